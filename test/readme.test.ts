/**
 * The README's walkthrough runs as written: its ```sh walkthrough blocks, in order, in bash, from the
 * repository's folder, against a started service (FITROOM_URL / FITROOM_AR_URL stand for `npm start`,
 * DATABASE_URL lets `npx fitroom` reach its database). Shell variables and functions carry from one
 * block to the next as in a terminal; each block must exit 0 and print what the README says.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './support/harness.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The walkthrough's blocks from README.md, in order. */
export function walkthroughBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh walkthrough\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

let svc: TestService;
let stateDir: string;
const state = () => path.join(stateDir, 'state.sh');

beforeAll(async () => {
  // fixed ports as under `npm start`, so that links to the AR host are absolute
  svc = await startTestService({ fixedPorts: true });
  stateDir = mkdtempSync(path.join(tmpdir(), 'fitroom-readme-'));
  writeFileSync(state(), '');
}, 60_000);
afterAll(async () => {
  // the walkthrough's scratch folder (W) is a mktemp folder too
  const w = /^declare -- W="(.*)"$/m.exec(existsSync(state()) ? readFileSync(state(), 'utf8') : '')?.[1];
  if (w?.startsWith(tmpdir())) rmSync(w, { recursive: true, force: true });
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  await svc?.close();
});

/**
 * Runs one block in a fresh bash that first loads what the earlier blocks defined, then saves the
 * variables and functions it has afterwards (those bash itself sets are left out).
 */
function runBlock(block: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = [
    `__base=" $(compgen -v | tr '\\n' ' ') "`,
    `source ${JSON.stringify(state())}`,
    'set -eo pipefail',
    block,
    'set +e',
    `{ for v in $(compgen -v); do case "$__base" in *" $v "*) ;; *) [[ $v == __base ]] || declare -p "$v";; esac; done; declare -f; } > ${JSON.stringify(state())}`,
  ].join('\n');
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = { PATH: process.env.PATH!, HOME: process.env.HOME!, FITROOM_URL: svc.api, FITROOM_AR_URL: svc.ar!, DATABASE_URL: svc.dbUrl };
    const proc = spawn('bash', ['-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 120_000);
    proc.once('error', reject);
    proc.once('exit', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

const vars = () => Object.fromEntries([...readFileSync(state(), 'utf8').matchAll(/^declare -[-a-zA-Z]* (\w+)="(.*)"$/gm)].map((m) => [m[1], m[2]]));
const isPng = (f: string) => readFileSync(f).subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

describe('README walkthrough', () => {
  const blocks = walkthroughBlocks(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
  // what each step's output shows (the README's "→" lines), and what it leaves behind
  const expectations: ((out: string, err: string) => void)[] = [
    (out) => expect(out).toMatch(/^\{"status":"ok","timestamp":"[^"]+","version":"\d+\.\d+\.\d+","components":\{"database":\{"reachable":true,[^}]*\},"storage":\{"reachable":true,[^}]*\}\}\}/),
    (out, err) => {
      expect(err).toMatch(/Created user key "walkthrough" \(id [0-9a-f-]+\)\. It is shown once/);
      expect(vars().KEY).toMatch(/^fr_live_/);
      expect(out).toBe(`${vars().KEY.slice(0, 12)}…\n`);
    },
    (out) => {
      expect(out).toMatch(/\{"success":true,"jobId":"[0-9a-f-]{36}","status":"queued",.*"mode":"measurements"\}/);
      expect(out).toMatch(/^twin: [0-9a-f]{64}$/m);
    },
    (out) => expect(out).toMatch(/"success":true,"available":true,.*"recommendedSize":"M".*"reason":"M: chest fits/),
    (out) => {
      expect(out).toMatch(/"status":"completed","progress":\{"stage":"completed","percentage":100\}.*"result":\{"imageUrl":"http:\/\/127\.0\.0\.1:\d+\/api\/v1\/files\//);
      expect(out).toMatch(/^saved .*fitting\.png$/m);
      expect(isPng(path.join(vars().W, 'fitting.png'))).toBe(true);
    },
    (out) => {
      expect(out).toMatch(/"status":"completed","progress":100,.*"arObject":\{"id":"[0-9a-f]+","color_id":"default"/);
      expect(out).toMatch(/^"seq":1,"stage":"validate inputs"\t"outcome":"ok"$/m);
      expect(out).toMatch(/^"seq":\d+,"stage":"upload to AR host"\t"outcome":"ok"$/m);
      expect(out).toMatch(/^saved .*shoe\.glb and .*preview\.png/m);
      expect(readFileSync(path.join(vars().W, 'shoe.glb')).subarray(0, 4).toString()).toBe('glTF');
      expect(isPng(path.join(vars().W, 'preview.png'))).toBe(true);
      expect(out).toMatch(new RegExp(`^open in a browser: ${svc.ar!.replace(/[.]/g, '\\.')}/tryon\\?id=[0-9a-f]+&color_id=default$`, 'm'));
    },
    async (out) => {
      expect(out).toMatch(/^\{"id":"[0-9a-f]+","color_id":"default","viewer_url":"http:\/\/127\.0\.0\.1:\d+\/tryon\?id=/);
      expect(out).toMatch(/"status":"finished"\n"side":"right"\n"dimensions":\{"width":[\d.]+,"height":[\d.]+,"length":0\.2\d*\}/);
    },
  ];

  it('has the seven steps, from a key to the AR viewer', () => {
    expect(blocks).toHaveLength(expectations.length);
    expect(blocks[1]).toContain('npx fitroom keys create');
    expect(blocks.join('\n')).not.toMatch(/\bjq\b/);
  });

  it('runs every step as written, each continuing from the previous one', async () => {
    for (const [i, block] of blocks.entries()) {
      const r = await runBlock(block);
      expect(r.code, `step ${i + 1} exited ${r.code}\n${block}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`).toBe(0);
      await expectations[i](r.stdout, r.stderr);
    }
    // the viewer page the last step names opens
    const viewer = /open in a browser: (\S+)/.exec((await runBlock('echo "open in a browser: $(field viewer_url < $W/ar-answer.json)"')).stdout)![1];
    const page = await fetch(viewer);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
  }, 300_000);
});
