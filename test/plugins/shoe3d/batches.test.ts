import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../../core/webhooks.ts';
import { startTestService, type TestService } from '../../support/harness.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../../support/tls.ts';
import { download, shoe3dPlugins, shoePhotos, startShoe3dService } from './helpers.ts';

const run = promisify(execFile);

/**
 * Digitization batches through the HTTP API: validation of the whole batch, items as shoe-3d jobs,
 * the owner-only 404, batch.completed once over the exact bytes, cancellation, expiry and purge.
 */

let svc: TestService;
let key: string;
let keyId: string;
let receiver: HttpsReceiver;
let photos: string[];
let missingImageUrl: string;
let shopUrl: string;
let server: http.Server;

beforeAll(async () => {
  // no receiver here hangs: a limit that a loaded machine's in-process receiver cannot run out
  svc = await startShoe3dService(undefined, { env: { WEBHOOK_TIMEOUT_MS: '30000' } });
  ({ key, id: keyId } = await svc.createKey());
  receiver = await startHttpsReceiver();
  photos = await shoePhotos([0, 90], 240);
  // a shop serving the photos as files, and one that is gone
  const files = photos.map((p) => Buffer.from(p.slice(p.indexOf(',') + 1), 'base64'));
  server = http.createServer((req, res) => {
    const m = /^\/shoe-(\d)\.png$/.exec(req.url ?? '');
    if (m && files[Number(m[1])]) res.writeHead(200, { 'content-type': 'image/png' }).end(files[Number(m[1])]);
    else res.writeHead(404).end('gone');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  missingImageUrl = `${shopUrl}/missing.png`;
});

afterAll(async () => {
  await svc?.close();
  await receiver?.close();
  server?.close();
});

const submit = (body: unknown, k = key) => svc.call('POST', '/api/v1/digitization/batches', { key: k, body });

async function waitForBatch(batchId: string, until: (b: any) => boolean, timeoutMs = 90_000): Promise<any> {
  const t0 = Date.now();
  for (;;) {
    const r = await svc.call('GET', `/api/v1/digitization/batches/${batchId}`, { key });
    expect(r.status, r.text).toBe(200);
    if (until(r.body)) return r.body;
    if (Date.now() - t0 > timeoutMs) throw new Error(`batch ${batchId} not as expected: ${r.text.slice(0, 500)}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

/**
 * The batch.completed deliveries recorded for a batch, and how many of them the webhook queue may
 * still send (an entry with attempts left, or one running): once that is 0, no further request can come.
 */
async function batchDeliveries(batchId: string): Promise<{ recorded: number; queued: number }> {
  const r = await svc.fitroom.pool.query<{ recorded: number; queued: number }>(
    `with d as (select id::text as id from webhook_deliveries where event = 'batch.completed' and body::jsonb->>'batchId' = $1)
     select (select count(*)::int from d) as recorded,
            (select count(*)::int from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
              where t.identifier = 'fitroom_webhook' and j.payload->>'deliveryId' in (select id from d)
                and (j.attempts < j.max_attempts or j.locked_at is not null)) as queued`,
    [batchId],
  );
  return r.rows[0];
}

const counts = async () => {
  const r = await svc.fitroom.pool.query<{ batches: string; files: string }>('select (select count(*) from batches) as batches, (select count(*) from files) as files');
  return { batches: Number(r.rows[0].batches), files: Number(r.rows[0].files) };
};

describe('batch validation', () => {
  it('refuses 501 items, an empty list and unknown fields with VALIDATION_ERROR and queues nothing', async () => {
    const before = await counts();
    const item = { images: ['https://shop.example/a.jpg'] };
    const tooMany = await submit({ items: Array.from({ length: 501 }, () => item) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(tooMany.body.error.details)).toContain('items');
    const empty = await submit({ items: [] });
    expect(empty.status).toBe(400);
    const unknown = await submit({ items: [{ images: ['https://shop.example/a.jpg'], colour: 'red' }] });
    expect(unknown.status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it('checks every item as a single shoe-3d request would and names the item; nothing is stored', async () => {
    const before = await counts();
    // what the schema says (each item as a shoe-3d request) ...
    const schema = await submit({ items: [{ images: [photos[0]] }, { images: [], options: {} }, { images: ['https://shop.example/b.jpg'], options: { productType: 'hat' } }] });
    expect(schema.status).toBe(400);
    expect(schema.body.error.code).toBe('VALIDATION_ERROR');
    const schemaFields = (schema.body.error.details as { field: string }[]).map((d) => d.field);
    expect(schemaFields.some((f) => f.startsWith('items[1].images'))).toBe(true);
    expect(schemaFields.some((f) => f.startsWith('items[2].options.productType'))).toBe(true);
    expect(schemaFields.some((f) => f.startsWith('items[0]'))).toBe(false);
    // ... and what only decoding shows, for every item before anything is stored
    const data = await submit({ items: [{ images: [photos[0]] }, { images: [photos[1], 'data:image/png;base64,@@@'] }, { images: ['data:image/png;base64,'] }] });
    expect(data.status).toBe(400);
    expect((data.body.error.details as { field: string }[]).map((d) => d.field).sort()).toEqual(['items[1].images[1]', 'items[2].images[0]']);
    // item 0 was valid and inline, but a refused batch stashes nothing
    expect(await counts()).toEqual(before);
  });

  it('needs a key', async () => {
    const r = await submit({ items: [{ images: ['https://shop.example/a.jpg'] }] }, '');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('HTTP_ERROR');
  });
});

describe('a batch run', () => {
  it('runs every item as a shoe-3d job, reports each, counts usage per item and sends batch.completed once', async () => {
    const usageBefore = await svc.usage(keyId);
    const r = await submit({ items: [{ images: photos }, { images: photos, options: { productType: 'shoe' } }, { images: [missingImageUrl] }], webhookUrl: `${receiver.url}/batches` });
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({ success: true, status: 'queued', total: 3 });
    expect(r.body.statusUrl).toBe(`${svc.api}/api/v1/digitization/batches/${r.body.batchId}`);
    expect(r.body.items.map((i: any) => i.index)).toEqual([0, 1, 2]);
    // usage is read once the batch has settled: the failing item may be refunded at any moment now

    // each item is an ordinary job, readable on its own
    const single = await svc.call('GET', `/api/v1/jobs/${r.body.items[0].jobId}`, { key });
    expect(single.status).toBe(200);

    // completedAt and expiresAt come with the completion bookkeeping, a moment after the last item ends
    const done = await waitForBatch(r.body.batchId, (b) => b.status === 'completed' && b.completedAt !== undefined);
    expect(done.counts).toMatchObject({ completed: 2, failed: 1, queued: 0 });
    expect(done.items[0]).toMatchObject({ index: 0, status: 'completed', jobId: r.body.items[0].jobId });
    expect(done.items[2]).toMatchObject({ index: 2, status: 'failed' });
    expect(done.items[2].error).toBeTruthy();
    expect(done.items[2].errorCode).toBeTruthy();
    const glb = await download(done.items[1].result.glbUrl);
    expect(glb.status).toBe(200);
    expect(new TextDecoder().decode(glb.bytes.subarray(0, 4))).toBe('glTF');
    expect(Date.parse(done.expiresAt) - Date.parse(done.completedAt)).toBe(7 * 24 * 3600 * 1000);
    // the failed item's usage was given back
    expect(await svc.usage(keyId)).toBe(usageBefore + 2);

    const [delivery] = await receiver.waitFor(1, (d) => d.path === '/batches', 90_000);
    const secret = createHash('sha256').update(key, 'utf8').digest('hex');
    const checked = verifyWebhook({ body: delivery.body, signature: delivery.headers['x-webhook-signature'] as string, timestamp: delivery.headers['x-webhook-timestamp'] as string, secret, kind: 'batch' });
    expect(checked).toMatchObject({ ok: true });
    const payload = JSON.parse(delivery.body.toString('utf8'));
    expect(payload).toMatchObject({ event: 'batch.completed', batchId: r.body.batchId, status: 'completed', total: 3, counts: { completed: 2, failed: 1 } });
    expect(payload.items[1].result.glbUrl).toBe(done.items[1].result.glbUrl);
    // signed over the exact bytes: a re-serialised (key-sorted) body does not verify
    const resorted = JSON.stringify(Object.fromEntries(Object.entries(payload).sort(([a], [b]) => a.localeCompare(b))));
    expect(resorted).not.toBe(delivery.body.toString('utf8'));
    expect(verifyWebhook({ body: resorted, signature: delivery.headers['x-webhook-signature'] as string, timestamp: delivery.headers['x-webhook-timestamp'] as string, secret, kind: 'batch' }).ok).toBe(false);

    const after = await waitForBatch(r.body.batchId, (b) => b.webhook?.state === 'delivered', 90_000);
    expect(after.webhook.attempts).toHaveLength(1);
    expect(after.webhook.attempts[0].status).toBe(200);
    // the completion check runs again on the minute: it records no second delivery, nothing is queued
    await svc.fitroom.kernel.crons.find((c) => c.task === 'fitroom_batch_check')!.run();
    await expect.poll(() => batchDeliveries(r.body.batchId), { timeout: 90_000 }).toEqual({ recorded: 1, queued: 0 });
    expect(receiver.deliveries.filter((d) => d.path === '/batches')).toHaveLength(1);
  });

  it('answers the same 404 to another key, to unknown and malformed ids', async () => {
    const r = await submit({ items: [{ images: [missingImageUrl] }] });
    expect(r.status).toBe(202);
    const other = (await svc.createKey()).key;
    const foreign = await svc.call('GET', `/api/v1/digitization/batches/${r.body.batchId}`, { key: other });
    const unknown = await svc.call('GET', '/api/v1/digitization/batches/7a0e9a52-4d36-4c53-9d3e-2f4ed4c1b7a1', { key });
    const malformed = await svc.call('GET', '/api/v1/digitization/batches/not-a-batch', { key });
    for (const x of [foreign, unknown, malformed]) {
      expect(x.status).toBe(404);
      expect(x.body).toEqual(foreign.body);
    }
    const del = await svc.call('DELETE', `/api/v1/digitization/batches/${r.body.batchId}`, { key: other });
    expect(del.status).toBe(404);
    await waitForBatch(r.body.batchId, (b) => b.status === 'completed');
  });
});

describe('cancelling, expiry and purge', () => {
  it('cancels unfinished items, keeps finished ones, completes the batch and sends its one attempt even when refused', async () => {
    receiver.setResponder((req) => (req.path === '/refused' ? { status: 500 } : { status: 200 }));
    const r = await submit({ items: Array.from({ length: 5 }, () => ({ images: photos })), webhookUrl: `${receiver.url}/refused` });
    expect(r.status).toBe(202);
    const cancel = await svc.call('DELETE', `/api/v1/digitization/batches/${r.body.batchId}`, { key });
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body.cancelledItems).toBeGreaterThanOrEqual(3);
    const done = await waitForBatch(r.body.batchId, (b) => b.status === 'completed' && b.webhook?.state === 'failed', 60_000);
    expect(done.counts.cancelled).toBe(cancel.body.cancelledItems);
    expect(done.counts.cancelled + done.counts.completed).toBe(5);
    for (const item of done.items.filter((i: any) => i.cancelled)) expect(item).toMatchObject({ status: 'failed', errorCode: 'CANCELLED' });
    // no retry recovery for batch callbacks: one attempt, recorded, and none left in the queue
    expect(done.webhook.attempts).toHaveLength(1);
    expect(done.webhook.attempts[0].status).toBe(500);
    await expect.poll(() => batchDeliveries(r.body.batchId), { timeout: 90_000 }).toEqual({ recorded: 1, queued: 0 });
    expect(receiver.deliveries.filter((d) => d.path === '/refused')).toHaveLength(1);
    const again = await svc.call('DELETE', `/api/v1/digitization/batches/${r.body.batchId}`, { key });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('BATCH_NOT_CANCELLABLE');
  });

  it('answers 404 once expired and the purge removes the batch, its items and its delivery', async () => {
    const r = await submit({ items: [{ images: [missingImageUrl] }, { images: [missingImageUrl] }], webhookUrl: `${receiver.url}/expiry` });
    const done = await waitForBatch(r.body.batchId, (b) => b.status === 'completed' && b.webhook?.state === 'delivered', 90_000);
    expect(done.expiresAt).toBeTruthy();
    await svc.fitroom.pool.query(`update batches set expires_at = now() - interval '1 second' where id = $1`, [r.body.batchId]);
    const gone = await svc.call('GET', `/api/v1/digitization/batches/${r.body.batchId}`, { key });
    expect(gone.status).toBe(404);
    await svc.fitroom.kernel.crons.find((c) => c.task === 'fitroom_purge_batches')!.run();
    const left = await svc.fitroom.pool.query(
      `select (select count(*) from batches where id = $1)::int as batches, (select count(*) from jobs where batch_id = $1 or id = any($2::uuid[]))::int as jobs,
              (select count(*) from webhook_deliveries where body like '%' || $1 || '%')::int as deliveries`,
      [r.body.batchId, r.body.items.map((i: any) => i.jobId)],
    );
    expect(left.rows[0]).toEqual({ batches: 0, jobs: 0, deliveries: 0 });
    expect((await svc.call('GET', `/api/v1/jobs/${r.body.items[0].jobId}`, { key })).status).toBe(404);
  });
});

describe('the batch CLI', () => {
  const cli = (args: string[], env: Record<string, string> = {}) =>
    run('node_modules/.bin/node', ['connectors/standalone/cli.ts', 'batch', ...args], { env: { ...process.env, FITROOM_URL: svc.api, FITROOM_API_KEY: key, ...env }, encoding: 'utf8', timeout: 300_000 }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it('submits a CSV of image URLs, shows progress to the end and prints each item; status reads it back', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fitroom-batch-cli-'));
    const csv = path.join(dir, 'products.csv');
    writeFileSync(csv, `side,front\n${shopUrl}/shoe-0.png,${shopUrl}/shoe-1.png\n${shopUrl}/shoe-1.png,${shopUrl}/shoe-0.png\n${missingImageUrl}\n`);
    const out = await cli(['submit', csv, '--product-type', 'shoe', '--interval', '300']);
    // one item cannot be fetched: exit 1, and the summary says so
    expect(out.code, out.stderr).toBe(1);
    const batchId = out.stdout.split('\n')[0].trim();
    expect(batchId).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.stderr).toContain(`Batch ${batchId}: 3 item(s) queued`);
    expect(out.stderr).toMatch(/3\/3 finished \| 2 completed, 1 failed/);
    expect(out.stderr).toContain(`Batch ${batchId}: completed; 2 completed, 1 failed, 0 cancelled, 0 unfinished of 3`);
    const lines = out.stdout.trimEnd().split('\n').slice(1);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\s+0\s+\S+\s+completed\s+http:\/\/127\.0\.0\.1:\d+\/api\/v1\/files\//);
    expect(lines[2]).toMatch(/failed\s+IMAGE_FETCH_FAILED: /);
    const status = await cli(['status', batchId]);
    expect(status.code).toBe(0);
    expect(status.stdout.trimEnd().split('\n')).toEqual(lines);
    const rows = await svc.fitroom.pool.query<{ input: any }>('select input from jobs where batch_id = $1 order by batch_index', [batchId]);
    expect(rows.rows.map((r) => r.input.options.productType)).toEqual(['shoe', 'shoe', 'shoe']);
    expect(rows.rows[0].input.images).toEqual([{ url: `${shopUrl}/shoe-0.png` }, { url: `${shopUrl}/shoe-1.png` }]);
  }, 420_000); // the CLI follows a batch of shoe-3d jobs to the end

  it('says what is wrong: invalid items, no key, no service', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fitroom-batch-cli-'));
    const json = path.join(dir, 'items.json');
    writeFileSync(json, JSON.stringify({ items: [{ images: [] }] }));
    const invalid = await cli(['submit', json]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/answered 400 VALIDATION_ERROR/);
    expect(invalid.stderr).toMatch(/items\[0\]\.images/);
    const noKey = await cli(['submit', json], { FITROOM_API_KEY: '' });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/FITROOM_API_KEY/);
    const down = await cli(['status', '7a0e9a52-4d36-4c53-9d3e-2f4ed4c1b7a1'], { FITROOM_URL: 'http://127.0.0.1:9' });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9/);
  });
});

describe('priority', () => {
  let one: TestService;
  afterAll(async () => {
    await one?.close();
  });

  it('starts a real-time shoe-3d submitted behind a batch before the batch\'s remaining items', async () => {
    // one worker slot: order of start is the queue's order
    one = await startTestService({ plugins: shoe3dPlugins(), concurrency: 1 });
    const k = (await one.createKey()).key;
    const batch = await one.call('POST', '/api/v1/digitization/batches', { key: k, body: { items: Array.from({ length: 4 }, () => ({ images: photos })) } });
    expect(batch.status).toBe(202);
    const single = await one.call('POST', '/api/v1/shoe-3d', { key: k, body: { images: photos } });
    expect(single.status).toBe(202);
    const t0 = Date.now();
    for (;;) {
      const s = await one.call('GET', `/api/v1/jobs/${single.body.jobId}`, { key: k });
      if (s.body.status === 'completed' || s.body.status === 'failed') break;
      if (Date.now() - t0 > 300_000) throw new Error('single job did not finish');
      await new Promise((res) => setTimeout(res, 200));
    }
    const rows = await one.fitroom.pool.query<{ id: string; started_at: Date | null }>('select id, started_at from jobs where id = any($1::uuid[])', [[single.body.jobId, ...batch.body.items.map((i: any) => i.jobId)]]);
    const started = new Map(rows.rows.map((r) => [r.id, r.started_at?.getTime() ?? Infinity]));
    const singleStart = started.get(single.body.jobId)!;
    const itemsBefore = batch.body.items.filter((i: any) => started.get(i.jobId)! < singleStart).length;
    // at most the item already running when it arrived went first
    expect(itemsBefore).toBeLessThanOrEqual(1);
    await one.call('DELETE', `/api/v1/digitization/batches/${batch.body.batchId}`, { key: k });
  }, 420_000); // a batch of shoe-3d jobs: minutes on a loaded machine

  it('with BATCH_LANES=1 runs one item at a time and keeps the other slot for real-time work', async () => {
    const lanes = await startTestService({ plugins: shoe3dPlugins(), concurrency: 2, env: { BATCH_LANES: '1' } });
    try {
      const k = (await lanes.createKey()).key;
      const batch = await lanes.call('POST', '/api/v1/digitization/batches', { key: k, body: { items: Array.from({ length: 3 }, () => ({ images: photos })) } });
      expect(batch.status).toBe(202);
      // an item holds the batch lane before the real-time job arrives
      const running = async () => (await lanes.fitroom.pool.query<{ id: string }>('select id from jobs where batch_id = $1 and started_at is not null', [batch.body.batchId])).rows.map((r) => r.id);
      await expect.poll(running, { timeout: 60_000 }).toHaveLength(1);
      const [first] = await running();
      const single = await lanes.call('POST', '/api/v1/shoe-3d', { key: k, body: { images: photos } });
      const t0 = Date.now();
      for (;;) {
        const b = await lanes.call('GET', `/api/v1/digitization/batches/${batch.body.batchId}`, { key: k });
        if (b.body.status === 'completed') break;
        if (Date.now() - t0 > 300_000) throw new Error('batch did not finish');
        await new Promise((res) => setTimeout(res, 200));
      }
      const rows = (await lanes.fitroom.pool.query<{ id: string; s: Date; f: Date }>('select id, started_at as s, finished_at as f from jobs where batch_id = $1 order by started_at', [batch.body.batchId])).rows;
      // never two items at once
      for (let i = 1; i < rows.length; i++) expect(rows[i].s.getTime()).toBeGreaterThanOrEqual(rows[i - 1].f.getTime());
      // the single job started without waiting for an item to end: before the item running when it came
      const s = (await lanes.fitroom.pool.query<{ s: Date }>('select started_at as s from jobs where id = $1', [single.body.jobId])).rows[0];
      expect(rows[0].id).toBe(first);
      expect(s.s.getTime()).toBeLessThan(rows[0].f.getTime());
    } finally {
      await lanes.close();
    }
  }, 420_000);
});
