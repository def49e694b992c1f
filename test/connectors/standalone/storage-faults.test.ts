/**
 * Issue 28, defect 5: blob-store faults are named truthfully. The service talks to the S3 test server
 * (test/support/s3.ts) through a loopback TCP relay that can forward, be stopped (nothing listens:
 * ECONNREFUSED, which used to be taken for the database) or freeze (accepts connections and never
 * answers, which used to hold requests until the idle timeout). Downloads, uploads and health must
 * answer 503 STORAGE_UNAVAILABLE, health naming the component, and recover when the store is back.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/harness.ts';
import { startS3Server, type TestS3 } from '../../support/s3.ts';
import { shoeGlb } from '../../plugins/shoe3d/helpers.ts';

type Mode = 'forward' | 'stopped' | 'frozen';

/** A TCP relay in front of the S3 server whose behaviour can be switched. */
async function startRelay(target: number) {
  let mode: Mode = 'forward';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (mode === 'frozen') return; // accepted, never answered
    const upstream = net.connect(target, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  const dropAll = () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async set(next: Mode) {
      dropAll();
      if (next === 'stopped' && server.listening) await new Promise<void>((r) => server.close(() => r()));
      if (next !== 'stopped' && !server.listening) await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
      mode = next;
    },
    async close() {
      dropAll();
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

let s3: TestS3;
let relay: Awaited<ReturnType<typeof startRelay>>;
let svc: TestService;
let key: string;
let fileUrl: string;
let glb: Uint8Array;

function upload() {
  const form = new FormData();
  form.append('file', new Blob([glb as BlobPart], { type: 'model/gltf-binary' }), 'm.glb');
  return fetch(`${svc.api}/api/v1/files/upload`, { method: 'POST', body: form, headers: { 'x-api-key': key } });
}

async function expectStorageUnavailable(res: Response) {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(503);
  expect(body.success).toBe(false);
  expect(body.error.code).toBe('STORAGE_UNAVAILABLE');
}

beforeAll(async () => {
  s3 = await startS3Server();
  relay = await startRelay(Number(new URL(s3.endpoint).port));
  // limits a frozen store runs out quickly, with room for the healthy calls on a loaded machine
  svc = await startTestService({ env: { ...s3.env, S3_ENDPOINT: relay.endpoint, S3_TIMEOUT_MS: '4000', S3_CONNECT_TIMEOUT_MS: '2000' }, worker: false });
  ({ key } = await svc.createKey());
  glb = await shoeGlb(64);
  const up = await upload();
  expect(up.status).toBe(200);
  fileUrl = (await up.json()).url;
});
afterAll(async () => {
  await svc?.close();
  await relay?.close();
  await s3?.close();
});

describe('storage faults', () => {
  it('health reports both components while all is well', async () => {
    const h = await svc.call('GET', '/api/v1/health');
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({ status: 'ok', version: expect.any(String), components: { database: { reachable: true }, storage: { reachable: true } } });
    expect((await fetch(fileUrl)).status).toBe(200);
  });

  for (const mode of ['stopped', 'frozen'] as const) {
    it(`store ${mode}: downloads, uploads and health answer 503 STORAGE_UNAVAILABLE`, async () => {
      await relay.set(mode);
      try {
        await expectStorageUnavailable(await fetch(fileUrl));
        await expectStorageUnavailable(await upload());
        // health: 503 in the envelope, the storage component named, the database reported reachable
        // (asked until the health check's one-second memory of the good answer has run out)
        let h!: Awaited<ReturnType<TestService['call']>>;
        await expect.poll(async () => (h = await svc.call('GET', '/api/v1/health')).status, { timeout: 90_000 }).toBe(503);
        expect(h.body.error.code).toBe('STORAGE_UNAVAILABLE');
        expect(h.body.error.details).toEqual([{ field: 'components.storage', message: expect.any(String) }]);
        expect(h.body.components.database.reachable).toBe(true);
        expect(h.body.components.storage.reachable).toBe(false);
      } finally {
        await relay.set('forward');
      }
      await expect.poll(async () => (await svc.call('GET', '/api/v1/health')).status, { timeout: 90_000 }).toBe(200);
      const again = await fetch(fileUrl);
      expect(again.status).toBe(200);
      expect(new Uint8Array(await again.arrayBuffer())).toEqual(glb);
    });
  }
});
