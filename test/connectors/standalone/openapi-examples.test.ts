/**
 * The OpenAPI document is complete: every operation (whichever plugin registers it) has a request
 * example when it takes a JSON body and an example for each JSON answer, every answer with a body
 * names its schema, and every example is valid against its schema (ajv, the same draft as requests).
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../core/errors.ts';
import { startTestService, type TestService } from '../../support/harness.ts';

const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: unknown) => void;

const DOC_ID = 'https://fitroom.test/openapi.json';
let svc: TestService;
let doc: any;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
  doc = (await svc.call('GET', '/api/v1/openapi.json')).body;
}, 60_000);
afterAll(async () => {
  await svc?.close();
});

interface Media {
  where: string;
  pointer: string;
  media: { schema?: unknown; example?: unknown };
}

/** Every JSON request body and response of every operation, with its JSON pointer in the document. */
function jsonMedia(document: any): { requests: Media[]; responses: Media[]; bodiless: string[] } {
  const enc = (s: string) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'));
  const requests: Media[] = [];
  const responses: Media[] = [];
  const bodiless: string[] = [];
  // the webhooks Fitroom sends are operations too (their request is the payload a receiver gets)
  const items = [...Object.entries<any>(document.paths).map(([p, item]) => [`/paths/${enc(p)}`, item]), ...Object.entries<any>(document.webhooks ?? {}).map(([name, item]) => [`/webhooks/${enc(name)}`, item])];
  for (const [at, item] of items) {
    for (const [method, op] of Object.entries<any>(item)) {
      const base = `${at}/${method}`;
      const json = op.requestBody?.content?.['application/json'];
      if (json) requests.push({ where: `${op.operationId} request`, pointer: `${base}/requestBody/content/application~1json/schema`, media: json });
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (!r.content) {
          if (status !== '204' && !at.startsWith('/webhooks/')) bodiless.push(`${op.operationId} ${status}`);
          continue;
        }
        for (const [type, media] of Object.entries<any>(r.content)) {
          if (!media.schema) bodiless.push(`${op.operationId} ${status} ${type}`);
          if (type === 'application/json') responses.push({ where: `${op.operationId} ${status}`, pointer: `${base}/responses/${status}/content/application~1json/schema`, media });
        }
      }
    }
  }
  return { requests, responses, bodiless };
}

describe('OpenAPI examples', () => {
  it('lists operations of both hosts, each with a summary and its security explained', () => {
    const ops = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item));
    expect(ops.length).toBeGreaterThan(50);
    expect(ops.every((op) => op.summary)).toBe(true);
    expect(doc.components.securitySchemes.ApiKey.description).toMatch(/API host/);
    expect(doc.components.securitySchemes.Bearer.description).toMatch(/AR host/);
    const ar = ops.filter((op) => op['x-host'] === 'ar');
    expect(ar.length).toBeGreaterThan(10);
    for (const op of ar) expect(op.servers?.[0].url, op.operationId).toBe(svc.ar);
  });

  it('gives every answer with a body a schema', () => {
    expect(jsonMedia(doc).bodiless).toEqual([]);
  });

  it('has an example for every JSON request body and answer of every operation', () => {
    const { requests, responses } = jsonMedia(doc);
    const missing = [...requests, ...responses].filter((m) => m.media.example === undefined).map((m) => m.where);
    expect(missing).toEqual([]);
  });

  it('gives every operation a success answer with an example, and a request example where it takes a body', () => {
    const ops = [...Object.values<any>(doc.paths), ...Object.values<any>(doc.webhooks)].flatMap((item) => Object.values<any>(item));
    const withoutSuccess = ops.filter((op) => {
      const success = Object.entries<any>(op.responses).filter(([status]) => /^2/.test(status));
      // a webhook's success is the receiver's empty 2xx; an answer that is not JSON (an image, a page) shows its media type
      return !success.some(([, r]) => !r.content || Object.entries<any>(r.content).some(([type, m]) => type !== 'application/json' || m.example !== undefined));
    });
    const withoutRequest = ops.filter((op) => op.requestBody?.content?.['application/json'] && op.requestBody.content['application/json'].example === undefined);
    expect(withoutSuccess.map((op) => op.operationId)).toEqual([]);
    expect(withoutRequest.map((op) => op.operationId)).toEqual([]);
    expect(doc.webhooks['job.failed'].post.requestBody.content['application/json'].example.errorCode).toBe('IMAGE_FETCH_FAILED');
  });

  it('lists every error code an answer can carry (generated from the codes a FitroomError takes)', () => {
    expect(doc.components.schemas.ErrorEnvelope.properties.error.properties.code.enum.toSorted()).toEqual(Object.keys(ERROR_CODES).toSorted());
  });

  it('keeps every example valid against its schema', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: DOC_ID });
    const invalid: string[] = [];
    const { requests, responses } = jsonMedia(doc);
    for (const m of [...requests, ...responses]) {
      if (m.media.example === undefined) continue;
      const validate = ajv.compile({ $ref: `${DOC_ID}#${m.pointer}` });
      if (!validate(m.media.example)) invalid.push(`${m.where}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(invalid).toEqual([]);
  });

  it('refuses an example that does not match (the check can fail)', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: DOC_ID });
    const job = jsonMedia(doc).responses.find((m) => m.where === 'getJob 200')!;
    expect(ajv.compile({ $ref: `${DOC_ID}#${job.pointer}` })({ status: 'completed' })).toBe(false);
  });
});
