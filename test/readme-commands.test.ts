/**
 * The README's command lines work wherever the service runs: every curl names its base URL through
 * a variable ($FITROOM_URL, $FITROOM_AR_URL), never a hard-coded localhost port.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('README command lines', () => {
  it('give curl the service through a variable, not localhost:3000', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const lines = [...readme.matchAll(/^```sh[^\n]*\n([\s\S]*?)^```$/gm)].flatMap((m) => m[1].split('\n')).filter((l) => /^\s*(\S+=\S+\s+)*curl\s/.test(l));
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.filter((l) => /(localhost|127\.0\.0\.1):\d+/.test(l))).toEqual([]);
  });
});
