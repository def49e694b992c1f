/**
 * Operation routes are looked up directly (connectors/standalone/http.ts DirectRoutes) and only in
 * their own spelling; every other request takes the router, so its answers are the router's as before:
 * extra routes first, case-insensitive paths, a trailing slash, escapes, HEAD, templates that overlap.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/harness.ts';
import { definePlugin } from '../../../core/plugin.ts';

// Two templates of one method that the same path matches: the router answers with the first registered.
const overlapping = definePlugin({
  name: 'route-overlap',
  setup(api) {
    for (const [id, path] of [['getThing', '/api/v1/test-things/{thingId}'], ['getSpecialThing', '/api/v1/test-things/special']] as const) {
      api.operation({
        id,
        method: 'GET',
        path,
        summary: id,
        tags: ['Test'],
        auth: ['none'],
        params: path.includes('{') ? { thingId: { type: 'string', maxLength: 40 } } : undefined,
        responses: { 200: { description: 'Which operation answered', schema: { type: 'object' } } },
        handler: async (ctx) => ({ body: { op: id, params: ctx.params } }),
      });
    }
  },
});

let svc: TestService;
let key: string;
beforeAll(async () => {
  svc = await startTestService({
    worker: false,
    plugins: [overlapping],
    // an extra route on an operation's own path comes first, as it did through the router alone
    mounts: [(router) => router.get('/api/v1/openapi.json', (ctx) => void (ctx.body = { mounted: true }))],
  });
  key = (await svc.createKey()).key;
}, 120_000);
afterAll(async () => svc?.close());

describe('operation routes', () => {
  it('answers an operation path directly, with its parameters and the spec headers', async () => {
    const r = await svc.call('GET', `/api/v1/jobs/${randomUUID()}`, { key });
    expect(r.status).toBe(404);
    expect(r.body.error.message).toBe('Job not found');
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('leaves other spellings to the router, which matches as before', async () => {
    const id = randomUUID();
    // the router is case-insensitive and takes a trailing slash: the operation still answers
    for (const path of [`/API/V1/JOBS/${id}`, `/api/v1/jobs/${id}/`]) {
      const r = await svc.call('GET', path, { key });
      expect(r.status, path).toBe(404);
      expect(r.body.error.message, path).toBe('Job not found');
    }
    // an escaped parameter reaches the handler decoded
    const esc = await svc.call('GET', '/api/v1/test-things/a%62c');
    expect(esc.body).toEqual({ op: 'getThing', params: { thingId: 'abc' } });
    // an empty segment matches no operation
    const empty = await svc.call('GET', '/api/v1/jobs//', { key });
    expect(empty.status).toBe(404);
    expect(empty.body.error.message).toMatch(/^No route for GET/);
  });

  it('answers HEAD on a GET operation and 405 on a wrong method, through the router', async () => {
    const head = await fetch(`${svc.api}/api/v1/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const put = await svc.call('PUT', '/api/v1/health');
    expect(put.status).toBe(405);
    expect(put.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('keeps the router\'s choice between templates that match the same path', async () => {
    expect((await svc.call('GET', '/api/v1/test-things/special')).body).toEqual({ op: 'getThing', params: { thingId: 'special' } });
    expect((await svc.call('GET', '/api/v1/test-things/other')).body).toEqual({ op: 'getThing', params: { thingId: 'other' } });
  });

  it('lets an extra route on an operation\'s path answer first', async () => {
    expect((await svc.call('GET', '/api/v1/openapi.json')).body).toEqual({ mounted: true });
  });
});
