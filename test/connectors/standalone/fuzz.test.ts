/**
 * A fuzzer driven by the OpenAPI document (hardening: the reliability suite): for every documented
 * operation of both hosts, requests with wrong types, missing and extra fields, huge strings,
 * prototype keys, nulls, unicode and NUL bytes, bad path parameters and query strings, malformed
 * JSON and truncated multipart, with no key, a bogus key, a real key and the admin key. Not one
 * answer may be 500 or above, every error must be in the envelope, and the process must keep serving.
 * Deterministic: the cases are enumerated, and the one random choice uses a seeded generator.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startArService, type ArTestService } from '../../plugins/ar-host/support.ts';
import { ADMIN_KEY } from '../../support/harness.ts';

const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: unknown) => void;
const DOC_ID = 'https://fitroom.test/openapi.json';

let svc: ArTestService;
let key: string;
let doc: any;

beforeAll(async () => {
  svc = await startArService({ worker: false, env: { FITROOM_ENV: 'development', BOT_VERIFIER: 'off', MAX_JSON_BYTES: String(2 * 1024 * 1024), FOOT_ADMIN_KEY: 'fuzz-foot-admin-key-0123456789' } });
  ({ key } = await svc.createKey({ kind: 'development' }));
  doc = (await svc.call('GET', '/api/v1/openapi.json')).body;
}, 120_000);
afterAll(async () => svc?.close());

/** mulberry32: a small seeded generator, so a failing case can be reproduced. */
function rng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function resolve(schema: any): any {
  let s = schema;
  for (let i = 0; i < 10 && s?.$ref; i++) s = doc.components.schemas[s.$ref.split('/').pop()];
  return s ?? {};
}

/** Properties of an object schema (following refs, allOf and the first of oneOf/anyOf). */
function properties(schema: any): Record<string, any> {
  const s = resolve(schema);
  const out: Record<string, any> = { ...(s.properties ?? {}) };
  for (const part of [...(s.allOf ?? []), ...(s.oneOf ?? []).slice(0, 1), ...(s.anyOf ?? []).slice(0, 1)]) Object.assign(out, properties(part));
  return out;
}

const HUGE = 'x'.repeat(300_000);
const DEEP = `{"context":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
const WEIRD = ['', 'a\u0000b', '\u202e\ud83d\ude00\u0301', HUGE, '../../etc/passwd', 'data:image/png;base64,AAAA', 'http://169.254.169.254/latest', 'javascript:alert(1)', '%00', "'; drop table jobs; --"];
const WRONG_TYPES = [null, 0, -1, 1e308, true, [], {}, [null], { __proto__: null }];

function bodies(schema: any): string[] {
  const out = ['{}', 'null', '[]', '"text"', '12', '{"a":', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', JSON.stringify({ unexpected: 1 })];
  const props = properties(schema);
  for (const [name] of Object.entries(props)) {
    for (const v of WRONG_TYPES) out.push(JSON.stringify({ [name]: v }));
    for (const v of WEIRD) out.push(JSON.stringify({ [name]: v }));
    out.push(`{"${name}":{"__proto__":{"polluted":true}}}`);
  }
  return out;
}

const BAD_PARAMS = ['%00', 'a%00b', '..%2F..%2Fetc', '%C0%AF', '%FF%FE', 'x'.repeat(3000), '__proto__', 'constructor', '%20', "'"];
const BAD_QUERIES = ['?x=%00', '?limit=-1&before=not-a-date', '?id=%FF&color_id=%00', '?token=&expires=abc', `?q=${'y'.repeat(5000)}`, '?__proto__[polluted]=1', '?a=1&a=2&a=3'];

interface Op {
  method: string;
  path: string;
  /** The operation object in the document. */
  spec: any;
  host: 'api' | 'ar';
  json: any | null;
  multipart: boolean;
  id: string;
}

/**
 * Checks an answer against the document: its status is one the operation declares, and a JSON body
 * is valid against the schema declared for that status. Returns what is wrong, or null.
 */
let ajv: InstanceType<typeof Ajv2020> | null = null;
function contractViolation(op: Op, status: number, contentType: string, text: string): string | null {
  const declared = op.spec.responses?.[String(status)];
  if (!declared) return `status ${status} is not declared (declared: ${Object.keys(op.spec.responses ?? {}).join(', ')})`;
  if (!contentType.includes('json') || !declared.content?.['application/json']?.schema) return null;
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: DOC_ID });
  }
  const enc = (x: string) => encodeURIComponent(x.replace(/~/g, '~0').replace(/\//g, '~1'));
  const pointer = `/paths/${enc(op.path)}/${op.method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
  const validate = ajv.getSchema(`${DOC_ID}#${pointer}`) ?? ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${status} body is not JSON`;
  }
  return validate(body) ? null : `${status} body does not match its schema: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 200)}`;
}

function operations(): Op[] {
  const ops: Op[] = [];
  for (const [p, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const content = op.requestBody?.content ?? {};
      ops.push({ spec: op, method: method.toUpperCase(), path: p, host: op['x-host'] === 'ar' ? 'ar' : 'api', json: content['application/json']?.schema ?? null, multipart: !!content['multipart/form-data'], id: op.operationId });
    }
  }
  return ops;
}

describe('the OpenAPI-driven fuzzer', () => {
  it('finds no answer of 500 or more, every error in the envelope, and the process alive', async () => {
    const random = rng(20261124);
    const failures: string[] = [];
    /** Answers the document does not declare (status) or describe (body). */
    const contract: string[] = [];
    let sent = 0;
    const ops = operations();
    expect(ops.length).toBeGreaterThan(40);
    const creds: Record<string, Record<string, string>> = {
      none: {},
      bogus: { 'x-api-key': 'fr_live_bogus', authorization: 'Bearer fr_live_bogus', 'x-admin-key': 'wrong' },
      key: { 'x-api-key': key, authorization: `Bearer ${key}` },
      admin: { 'x-admin-key': ADMIN_KEY },
    };

    const send = async (op: Op, url: string, init: RequestInit, label: string) => {
      sent++;
      let res: Response;
      try {
        res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
      } catch (e) {
        failures.push(`${label}: no answer (${(e as Error).message})`);
        return;
      }
      const text = await res.text();
      const violation = contractViolation(op, res.status, res.headers.get('content-type') ?? '', text);
      if (violation) contract.push(`${label}: ${violation}`);
      if (res.status >= 500) failures.push(`${label}: ${res.status} ${text.slice(0, 200)}`);
      else if (res.status >= 400 && (res.headers.get('content-type') ?? '').includes('json')) {
        try {
          const b = JSON.parse(text);
          if (b.success !== false || typeof b.error?.code !== 'string' || typeof b.error?.message !== 'string') failures.push(`${label}: ${res.status} not in the envelope: ${text.slice(0, 200)}`);
        } catch {
          failures.push(`${label}: ${res.status} unparseable JSON error`);
        }
      }
    };

    for (const op of ops) {
      const base = op.host === 'ar' ? svc.ar : svc.api;
      const fill = (v: string) => op.path.replace(/\{(\w+)\}/g, () => v);
      const good = fill('00000000-0000-4000-8000-000000000000');
      const credList = Object.entries(creds);
      // bad path parameters and query strings, with each credential
      if (op.path.includes('{')) for (const p of BAD_PARAMS) for (const [c, h] of credList) await send(op, `${base}${fill(p)}`, { method: op.method, headers: h }, `${op.id} param=${p.slice(0, 20)} ${c}`);
      for (const q of BAD_QUERIES) {
        const [c, h] = credList[Math.floor(random() * credList.length)];
        await send(op, `${base}${good}${q}`, { method: op.method, headers: h }, `${op.id} query=${q.slice(0, 30)} ${c}`);
      }
      if (op.method === 'GET' || op.method === 'DELETE') continue;
      // JSON bodies with the operation's own field names, with a real key and the admin key
      if (op.json) {
        for (const body of bodies(op.json)) {
          for (const c of ['key', 'admin'] as const) await send(op, `${base}${good}`, { method: op.method, headers: { ...creds[c], 'content-type': 'application/json' }, body }, `${op.id} body=${body.slice(0, 60)} ${c}`);
        }
        await send(op, `${base}${good}`, { method: op.method, headers: { ...creds.key, 'content-type': 'application/json' }, body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) }, `${op.id} invalid UTF-8`);
        await send(op, `${base}${good}`, { method: op.method, headers: { ...creds.key, 'content-type': 'text/plain' }, body: 'hello' }, `${op.id} text/plain`);
        // bodies that are not what their Content-Encoding says, an unknown encoding, and nesting 5000 deep
        for (const encoding of ['gzip', 'deflate', 'br']) await send(op, `${base}${good}`, { method: op.method, headers: { ...creds.key, 'content-type': 'application/json', 'content-encoding': encoding }, body: '{"not":"compressed"}' }, `${op.id} bad ${encoding}`);
        await send(op, `${base}${good}`, { method: op.method, headers: { ...creds.key, 'content-type': 'application/json', 'content-encoding': 'zstd' }, body: '{}' }, `${op.id} unknown encoding`);
        await send(op, `${base}${good}`, { method: op.method, headers: { ...creds.key, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: new Uint8Array(gzipSync('{}')) }, `${op.id} gzip {}`);
        for (const c of ['none', 'key'] as const) await send(op, `${base}${good}`, { method: op.method, headers: { ...creds[c], 'content-type': 'application/json' }, body: DEEP }, `${op.id} nested 5000 deep ${c}`);
        // the document's own example request, with a real key: answered as declared
        const example = op.spec.requestBody?.content?.['application/json']?.example;
        if (example !== undefined) await send(op, `${base}${good}`, { method: op.method, headers: { ...creds.key, 'content-type': 'application/json' }, body: JSON.stringify(example) }, `${op.id} its example`);
      }
      // multipart: truncated, without boundary, with the wrong field, with junk
      if (op.multipart) {
        const h = { ...creds.key };
        await send(op, `${base}${good}`, { method: op.method, headers: { ...h, 'content-type': 'multipart/form-data; boundary=b' }, body: '--b\r\nContent-Disposition: form-data; name="file"; filename="a.glb"\r\n\r\nglTF' }, `${op.id} truncated multipart`);
        await send(op, `${base}${good}`, { method: op.method, headers: { ...h, 'content-type': 'multipart/form-data' }, body: 'abc' }, `${op.id} multipart without boundary`);
        await send(op, `${base}${good}`, { method: op.method, headers: { ...h, 'content-type': 'multipart/form-data; boundary=b' }, body: '--b\r\nContent-Disposition: form-data; name="other"\r\n\r\nx\r\n--b--\r\n' }, `${op.id} multipart without file`);
        await send(op, `${base}${good}`, { method: op.method, headers: { ...h, 'content-type': 'multipart/form-data; boundary=b' }, body: '--b\r\nContent-Disposition: form-data; name="file"; filename="\u0000.glb"\r\n\r\n\u0000\u0001\u0002\r\n--b--\r\n' }, `${op.id} multipart junk file`);
      }
      const health = await fetch(`${svc.api}/api/v1/health`);
      if (health.status !== 200) failures.push(`after ${op.id}: health ${health.status}`);
    }
    console.log(`fuzzer: ${ops.length} operations, ${sent} requests, ${failures.filter((f) => /: 5\d\d /.test(f)).length} answers >= 500, ${failures.length} failures, ${contract.length} answers the document does not declare`);
    expect(failures).toEqual([]);
    expect(contract).toEqual([]);
  }, 600_000);
});
