import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe } from 'vitest';
import { FilesystemBlobStore } from '../../../adapters/fs/blob-store.ts';
import { blobStoreContract } from '../blob-store.contract.ts';

const root = mkdtempSync(path.join(tmpdir(), 'fitroom-fs-blobs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every file under the root, temporary ones included. */
function files(dir = root, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`])).sort();
}

describe('the filesystem blob store', () => {
  const store = new FilesystemBlobStore(root);
  blobStoreContract(() => ({ store, keys: async () => files() }));
});
