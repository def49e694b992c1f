/**
 * Each example runs as its README says: the README's shell lines, in order, the way a newcomer types
 * them (`npx fitroom keys create ...`, then `VAR=... node examples/...`) on the Node their shell finds
 * (the machine's, not the project's own), against a service that, as under `npm start`, reaches no
 * private address. Placeholders in the README (`fr_live_...`, `<your key>`, `cert.pem`) stand for what
 * the earlier lines printed or for the test's files.
 */
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestService, type TestService } from '../support/harness.ts';
import { ROOT, startExample, systemNode, type RunningExample } from '../support/examples.ts';

const EXAMPLES = readdirSync(path.join(ROOT, 'examples'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && readdirSync(path.join(ROOT, 'examples', d.name)).includes('README.md'))
  .map((d) => d.name);

/** The command lines of a README's ```sh blocks (comments and `# open ...` notes left out). */
function shellLines(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((m) => m[1].split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l && !l.startsWith('#')));
}

let svc: TestService;
const running: RunningExample[] = [];

beforeAll(async () => {
  svc = await startTestService({ worker: false, env: { ALLOWED_PRIVATE_NETWORKS: '' } });
}, 60_000);
afterAll(async () => {
  await Promise.all(running.map((r) => r.stop()));
  await svc?.close();
});

describe.each(EXAMPLES)('examples/%s as its README says', (name) => {
  const readme = readFileSync(path.join(ROOT, 'examples', name, 'README.md'), 'utf8');
  const lines = shellLines(readme);

  it('names a Node the machine has, and each command runs on it', async () => {
    // the README says which Node it needs, and the machine's own one is at least that
    const needed = Number(/Node (\d+)(?:\+| or later)/.exec(readme)?.[1]);
    expect(needed, 'the README names the Node it needs, e.g. "Node 20 or later"').toBeGreaterThan(0);
    const { stdout } = await promisify(execFile)(systemNode(), ['--version']);
    expect(Number(/^v(\d+)/.exec(stdout)![1])).toBeGreaterThanOrEqual(needed);

    const vars: Record<string, string> = { FITROOM_URL: svc.api };
    const starts = lines.filter((l) => /(^|\s)node \S+/.test(l));
    expect(starts.length).toBeGreaterThan(0);
    for (const line of lines) {
      if (line === 'npm start') continue; // the service: the test's own
      const create = /^npx fitroom keys create --name (\S+)$/.exec(line);
      if (create) {
        const { stdout: key } = await promisify(execFile)('npx', ['fitroom', 'keys', 'create', '--name', create[1]], { cwd: ROOT, env: { PATH: process.env.PATH!, HOME: process.env.HOME!, DATABASE_URL: svc.dbUrl } });
        vars.KEY = key.trim();
        expect(vars.KEY).toMatch(/^fr_live_/);
        continue;
      }
      const run = /^((?:\w+=\S+\s+)*)node (\S+)$/.exec(line);
      expect(run, `a command the test does not know how to run: ${line}`).not.toBeNull();
      const env: Record<string, string> = { FITROOM_URL: svc.api };
      // the example listens where it is told, in a test on any free port (it says which)
      const port = '0';
      for (const [, k, v] of run![1].matchAll(/(\w+)=(\S+)/g)) {
        env[k] = /KEY$/.test(k) && k !== 'TLS_KEY' ? (vars.KEY ?? (await svc.createKey()).key) : k === 'TLS_CERT' ? inject('tlsCertPath') : k === 'TLS_KEY' ? inject('tlsKeyPath') : k === 'PORT' ? port : v;
      }
      env.PORT ??= port;
      const example = await startExample([run![2]], env, /(listening on|on) https?:\/\/[\d.]+:\d+/);
      running.push(example);
      expect(example.port).toBeGreaterThan(0);
      const base = `${env.TLS_CERT ? 'https' : 'http'}://127.0.0.1:${example.port}`;
      if (name === 'storefront') {
        // the page hands Fitroom its garment inline: nothing Fitroom fetches is on this laptop's address
        const page = await (await fetch(base)).text();
        const garment = /data-garment-url="([^"]+)"/.exec(page)?.[1];
        expect(garment).toMatch(/^data:image\/png;base64,/);
        expect(page).not.toContain('{{');
        const token = await fetch(`${base}/fitroom-token`, { method: 'POST' });
        expect(token.status).toBe(200);
        expect((await token.json()).token).toMatch(/^wfs1\./);
      } else if (name === 'webhook-receiver') {
        const unsigned = await fetch(base, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
        expect([unsigned.status, await unsigned.json()]).toEqual([401, { error: 'missing_signature' }]);
      }
      await example.stop();
    }
  }, 120_000);
});
