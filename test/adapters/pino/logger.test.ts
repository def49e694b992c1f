/**
 * On a terminal each event is one coloured line (a request is not spread over eight); anywhere else
 * each event is one JSON line. The terminal is a real pseudo-terminal (util-linux `script`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// what the service logs: a request line (as http.ts writes it) and a job line with an error
const PROGRAM = `
import { createLogger } from ${JSON.stringify(path.join(ROOT, 'adapters/pino/logger.ts'))};
const log = createLogger({ name: 'fitroom' });
log.info({ reqId: '5b0c', host: 'api', op: 'getJob', method: 'GET', path: '/api/v1/jobs/1', status: 200, ms: 3, caller: 'user' }, 'request');
log.error({ reqId: '5b0c', jobId: '1', kind: 'test-job', ms: 12, errorCode: 'VALIDATION_ERROR', err: new Error('The test input asked to fail') }, 'job failed');
`;

let dir: string;
let program: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fitroom-logs-'));
  program = path.join(dir, 'log.mjs');
  writeFileSync(program, PROGRAM);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (command: string, args: string[], env: Record<string, string> = {}) => promisify(execFile)(command, args, { cwd: ROOT, env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env } });

describe('log lines', () => {
  it('are one coloured line per event on a terminal', async () => {
    const { stdout } = await run('script', ['-qec', `'${process.execPath}' '${program}'`, '/dev/null']);
    const lines = stdout.split(/\r?\n/).filter(Boolean);
    expect(lines).toHaveLength(2);
    // eslint-disable-next-line no-control-regex
    const plain = lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
    expect(lines[0]).toContain('\x1b[');
    expect(plain[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(fitroom\) <user>: request GET \/api\/v1\/jobs\/1 200 3 ms \{.*"op":"getJob".*\}$/);
    expect(plain[1]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] ERROR \(fitroom\): job failed 12 ms \{.*"errorCode":"VALIDATION_ERROR".*The test input asked to fail.*\}$/);
  });

  it('are JSON lines when the output is not a terminal', async () => {
    const { stdout } = await run(process.execPath, [program]);
    const lines = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.level, l.msg, l.status ?? l.errorCode])).toEqual([[30, 'request', 200], [50, 'job failed', 'VALIDATION_ERROR']]);
  });
});
