import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { parse as parseCsv } from 'csv-parse/sync';

/**
 * `fitroom batch submit FILE` and `fitroom batch status ID`: a client of the running service's HTTP
 * API (FITROOM_URL, FITROOM_API_KEY), so it works against any deployment, not only a local database.
 */

export const BATCH_USAGE = `  fitroom batch submit FILE [--product-type shoe|other|auto] [--webhook URL] [--no-wait]
                                   FILE: items.json ({"items": [...]} or [...]) or a CSV with the
                                   image URLs of one product per row; shows progress until done
  fitroom batch status ID         counts per status and every item's result or error
      (batch commands call the API: FITROOM_URL, default http://127.0.0.1:$PORT; FITROOM_API_KEY or --key)`;

interface Item {
  images: string[];
  options?: Record<string, unknown>;
}

/** Items from a JSON file (`{items}` or an array) or a CSV of image URLs, one product per row. */
export function readItems(file: string, text: string, productType?: string): Item[] {
  let items: Item[];
  if (/\.csv$/i.test(file)) {
    const rows = parseCsv(text, { skip_empty_lines: true, trim: true, relax_column_count: true }) as string[][];
    // a header row (no URL in it) is skipped
    items = rows.filter((r) => r.some((c) => /^(https?:|data:)/.test(c))).map((r) => ({ images: r.filter((c) => c !== '') }));
  } else {
    const json = JSON.parse(text) as unknown;
    const list = Array.isArray(json) ? json : (json as { items?: unknown })?.items;
    if (!Array.isArray(list)) throw new Error(`${file}: expected {"items": [...]} or an array of items`);
    items = list as Item[];
  }
  if (items.length === 0) throw new Error(`${file}: no items found`);
  if (productType) items = items.map((i) => ({ ...i, options: { ...i.options, productType } }));
  return items;
}

export async function batchCommand(command: string | undefined, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { key: { type: 'string' }, url: { type: 'string' }, 'product-type': { type: 'string' }, webhook: { type: 'string' }, 'no-wait': { type: 'boolean' }, interval: { type: 'string', default: '2000' } },
  });
  const base = (values.url ?? env.FITROOM_URL ?? `http://127.0.0.1:${env.PORT ?? 3000}`).replace(/\/$/, '');
  const key = values.key ?? env.FITROOM_API_KEY;
  if (!key) throw new Error('an API key is needed: set FITROOM_API_KEY or pass --key (create one with: npx fitroom keys create --name NAME)');
  const call = async (method: string, path: string, body?: unknown) => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, { method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    } catch (e) {
      throw new Error(`cannot reach ${base} (${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}); is the service running? (FITROOM_URL)`, { cause: e });
    }
    const out = (await res.json().catch(() => null)) as Record<string, any> | null;
    if (!res.ok) {
      const details = (out?.error?.details as { field: string; message: string }[] | undefined)?.map((d) => `\n  ${d.field}: ${d.message}`).join('') ?? '';
      throw new Error(`${method} ${path} answered ${res.status} ${out?.error?.code ?? ''}: ${out?.error?.message ?? 'no details'}${details}`);
    }
    return out!;
  };

  if (command === 'status') {
    const id = positionals[0];
    if (!id) throw new Error('batch status needs the batch id');
    printBatch(await call('GET', `/api/v1/digitization/batches/${encodeURIComponent(id)}`));
    return 0;
  }
  if (command !== 'submit') throw new Error('batch commands: submit FILE, status ID');
  const file = positionals[0];
  if (!file) throw new Error('batch submit needs a file: items.json or a CSV of image URLs');
  const items = readItems(file, readFileSync(file, 'utf8'), values['product-type']);
  const submitted = await call('POST', '/api/v1/digitization/batches', { items, ...(values.webhook ? { webhookUrl: values.webhook } : {}) });
  console.error(`Batch ${submitted.batchId}: ${submitted.total} item(s) queued. Status: ${submitted.statusUrl}`);
  console.log(submitted.batchId);
  if (values['no-wait']) return 0;

  const bar = new cliProgress.SingleBar(
    { format: '{bar} {value}/{total} finished | {completed} completed, {failed} failed, {running} running, {queued} queued | {duration_formatted}', noTTYOutput: true, notTTYSchedule: 5000, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(submitted.total, 0, { completed: 0, failed: 0, running: 0, queued: submitted.total });
  let batch: Record<string, any>;
  for (;;) {
    batch = await call('GET', `/api/v1/digitization/batches/${submitted.batchId}`);
    const c = batch.counts as Record<string, number>;
    const finished = c.completed + c.failed + c.cancelled;
    bar.update(finished, { completed: c.completed, failed: c.failed + c.cancelled, running: c.validating + c.processing + c.uploading, queued: c.queued });
    if (batch.status === 'completed') break;
    await new Promise((r) => setTimeout(r, Number(values.interval) || 2000));
  }
  bar.stop();
  printBatch(batch);
  return batch.counts.completed === batch.total ? 0 : 1;
}

function printBatch(b: Record<string, any>) {
  const c = b.counts as Record<string, number>;
  console.error(`Batch ${b.batchId}: ${b.status}; ${c.completed} completed, ${c.failed} failed, ${c.cancelled} cancelled, ${b.total - c.completed - c.failed - c.cancelled} unfinished of ${b.total}${b.expiresAt ? `; results kept until ${b.expiresAt}` : ''}`);
  for (const i of b.items as Record<string, any>[]) {
    const what = i.status === 'completed' ? i.result?.glbUrl : i.status === 'failed' ? `${i.errorCode}: ${i.error}` : `${i.status} ${typeof i.progress === 'number' ? `${i.progress}%` : ''}`;
    console.log(`${String(i.index).padStart(4)}  ${i.jobId}  ${String(i.status).padEnd(10)} ${what}`);
  }
}
