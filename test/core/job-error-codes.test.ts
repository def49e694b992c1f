/**
 * A failed job's `errorCode` is one of JOB_ERROR_CODES (core/errors.ts), and that list holds exactly
 * the codes a job can fail with. The runner reports only listed codes (`jobErrorCode`); this file
 * derives from the source which codes the code that jobs run raises, so a new code raised there fails
 * here until it is listed (or shown to come only from a request, below), and a listed code nothing
 * raises any more fails too.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, FitroomError, JOB_ERROR_CODES, jobErrorCode } from '../../core/errors.ts';
import { CORE_SCHEMAS } from '../../core/schemas.ts';
import { BlobStoreUnavailableError } from '../../core/ports/blob-store.ts';
import { ProviderError } from '../../core/ports/image-model.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Codes raised in modules that jobs reach which a job still cannot fail with: each is raised there
 * only while answering a request (or caught before it could end a job), as the reason says.
 */
const NOT_FROM_JOBS: Record<string, string> = {
  HTTP_ERROR: 'credentials, the pipeline and the Shopify OAuth routes: a request without a valid credential',
  CREDENTIAL_NOT_ALLOWED: 'the pipeline: a credential sent to a route that does not take its kind',
  FORBIDDEN: 'AR object permissions, the Shopify proxy consent and billing plan checks: all checked when a request arrives',
  RATE_LIMITED: 'the pipeline and the Shopify proxy, per request',
  METHOD_NOT_ALLOWED: 'the HTTP router',
  PAYLOAD_TOO_LARGE: 'the HTTP body reader',
  UNSUPPORTED_MEDIA_TYPE: 'the HTTP body reader',
  BOT_VERIFICATION_REQUIRED: 'bot verification of a browser request',
  RANGE_NOT_SATISFIABLE: 'a file download with a Range header past the end',
  unauthorized: 'the AR host: a request without its credentials',
  invalid_api_key: 'the AR host: a request with a key it refuses',
};

/** Codes the runner itself writes: a cancelled job, a file store out of reach, anything unlisted. */
const FROM_THE_RUNNER = ['CANCELLED', 'STORAGE_UNAVAILABLE', 'INTERNAL_ERROR'];

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    if (e === 'node_modules' || e === 'dist' || e === 'medusa' || e.startsWith('.')) continue;
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const text = new Map(['core', 'adapters', 'plugins', 'connectors'].flatMap((d) => sourceFiles(path.join(ROOT, d))).map((f) => [f, readFileSync(f, 'utf8')]));
const IMPORT = /(?:import|export)\s([^'";]*?)from\s+'(\.[^']+\.ts)'/g;
const resolved = (f: string, spec: string) => path.resolve(path.dirname(f), spec);
const allImports = (f: string) => [...text.get(f)!.matchAll(IMPORT)].map((m) => resolved(f, m[2])).filter((p) => text.has(p));
const rel = (f: string) => path.relative(ROOT, f);

/**
 * The modules a job runs: each job kind's `run` (its module), what they import (a type import too: a
 * service handed over by its token runs all the same), and for every port they use (core/ports) the
 * adapters that implement it. The runner (core/jobs.ts) is left out: it is also the cancel request's code.
 */
function jobModules(): Set<string> {
  const implementers = new Map<string, string[]>();
  for (const f of text.keys()) if (rel(f).startsWith('adapters/')) for (const i of allImports(f)) if (rel(i).startsWith('core/ports/')) implementers.set(i, [...(implementers.get(i) ?? []), f]);
  const roots = [...text.keys()].filter((f) => rel(f) !== 'core/jobs.ts' && /\brun(?::\s*(?:async\s*)?|\s*)\(job\b/.test(text.get(f)!));
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length) {
    const f = queue.pop()!;
    if (seen.has(f) || rel(f) === 'core/jobs.ts') continue;
    seen.add(f);
    for (const i of allImports(f)) queue.push(i, ...(rel(i).startsWith('core/ports/') ? (implementers.get(i) ?? []) : []));
  }
  return seen;
}

/** The codes an error may carry out of the code: FitroomError's, and ProviderError's (core/ports/image-model.ts). */
const KNOWN = new Set([...Object.keys(ERROR_CODES), ...[...text.get(path.join(ROOT, 'core/ports/image-model.ts'))!.matchAll(/type ProviderErrorCode = ([^;]+);/g)].flatMap((m) => [...m[1].matchAll(/'([A-Z_]+)'/g)].map((x) => x[1]))]);

/** The codes a module raises: `new FitroomError('CODE'`, and any known code given as `code: 'CODE'` (a ProviderError's options, a `cond ? 'A' : 'B'`). */
function raisedIn(src: string): string[] {
  const given = [...src.matchAll(/\bcode: ((?:[\w.]+ \? )?'[A-Z_]+'(?: : (?:[\w.]+ \? )?'[A-Z_]+')*)/g)].flatMap((m) => [...m[1].matchAll(/'([A-Z_]+)'/g)].map((x) => x[1]));
  return [...[...src.matchAll(/new FitroomError\(\s*'([A-Za-z_]+)'/g)].map((m) => m[1]), ...given.filter((c) => KNOWN.has(c))];
}

describe('the codes a failed job reports', () => {
  const modules = jobModules();
  const fromJobs = new Map<string, string[]>();
  for (const f of modules) for (const code of raisedIn(text.get(f)!)) fromJobs.set(code, [...new Set([...(fromJobs.get(code) ?? []), rel(f)])]);

  it('finds the job kinds and what they run', () => {
    const names = [...modules].map(rel);
    for (const m of ['plugins/tryon/tryon-job.ts', 'plugins/shoe3d/shoe3d-job.ts', 'plugins/twins/twin-job.ts', 'plugins/ar-host/autofit-job.ts', 'connectors/shopify/shopify.ts', 'core/image-loader.ts', 'adapters/http/vendor.ts', 'adapters/piscina/cpu-pool.ts']) expect(names).toContain(m);
    expect(names).not.toContain('core/jobs.ts');
  });

  it('lists every code the code run by jobs raises (or names the request it comes from instead)', () => {
    const unlisted = [...fromJobs].filter(([code]) => !(code in JOB_ERROR_CODES) && !(code in NOT_FROM_JOBS)).map(([code, where]) => `${code}: ${where.join(', ')}`);
    expect(unlisted).toEqual([]);
    // an exception that no longer applies goes too
    expect(Object.keys(NOT_FROM_JOBS).filter((code) => !fromJobs.has(code) || code in JOB_ERROR_CODES)).toEqual([]);
  });

  it('lists nothing a job cannot fail with', () => {
    expect(Object.keys(JOB_ERROR_CODES).filter((code) => !fromJobs.has(code) && !FROM_THE_RUNNER.includes(code))).toEqual([]);
  });

  it('reports a listed code as it is, a storage fault as STORAGE_UNAVAILABLE, anything else as INTERNAL_ERROR', () => {
    expect(jobErrorCode(new FitroomError('PERSON_NOT_FOUND', 'nobody'))).toBe('PERSON_NOT_FOUND');
    expect(jobErrorCode(new ProviderError('fal', 'no such model', { retryable: false, code: 'MODEL_UNAVAILABLE' }))).toBe('MODEL_UNAVAILABLE');
    expect(jobErrorCode(new Error('store down', { cause: new BlobStoreUnavailableError('ECONNREFUSED') }))).toBe('STORAGE_UNAVAILABLE');
    expect(jobErrorCode(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe('INTERNAL_ERROR');
    expect(jobErrorCode(new FitroomError('RATE_LIMITED', 'a request code'))).toBe('INTERNAL_ERROR');
    expect(jobErrorCode(undefined)).toBe('INTERNAL_ERROR');
  });

  it('documents the list as the enum of Job.errorCode and of the job.failed payload', () => {
    const codes = Object.keys(JOB_ERROR_CODES).toSorted();
    expect((CORE_SCHEMAS.Job.properties as Record<string, { enum: string[] }>).errorCode.enum.toSorted()).toEqual(codes);
    expect((CORE_SCHEMAS.JobWebhookPayload.properties as Record<string, { enum: string[] }>).errorCode.enum.toSorted()).toEqual(codes);
  });
});
