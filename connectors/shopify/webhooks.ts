import type Router from '@koa/router';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { FitroomError, isFitroomError, validationError } from '../../core/errors.ts';
import { TOKENS } from '../../core/tokens.ts';
import { PLATFORM, merchantOwner, shopperOwner, type ShopifyConnector } from './shopify.ts';
import { subscriptionUpdated } from './billing.ts';

const MAX_WEBHOOK_BYTES = 1024 * 1024;

/** What a handled webhook says for the answer, and the redaction run to record with its id. */
interface Handled {
  answer: Record<string, unknown>;
  run?: { shop: string; topic: string; rows: number; files: number };
}

type Payload = Record<string, any>;

/**
 * The topics handled, each with the shape its signed body must have and where the body names the shop
 * (Shopify's payload references: the Shop resource for app/uninstalled, the privacy-law compliance
 * payloads, the AppSubscription webhook). The topic and shop headers are not covered by the HMAC: the
 * body is the authority, so a signed body of one topic or shop cannot be replayed as another.
 */
const TOPICS: Record<string, { shape(p: Payload): string | null; shop(p: Payload): string | null }> = {
  APP_UNINSTALLED: {
    shape: (p) => (typeof p.myshopify_domain === 'string' && p.customer === undefined ? null : 'an app/uninstalled body is the shop (myshopify_domain)'),
    shop: (p) => p.myshopify_domain,
  },
  CUSTOMERS_DATA_REQUEST: {
    shape: (p) => (typeof p.shop_domain === 'string' && customerId(p) && p.data_request?.id !== undefined && p.orders_to_redact === undefined ? null : 'a customers/data_request body has shop_domain, customer.id and data_request.id'),
    shop: (p) => p.shop_domain,
  },
  CUSTOMERS_REDACT: {
    shape: (p) => (typeof p.shop_domain === 'string' && customerId(p) && p.data_request === undefined && Array.isArray(p.orders_to_redact ?? []) ? null : 'a customers/redact body has shop_domain and customer.id, and no data_request'),
    shop: (p) => p.shop_domain,
  },
  SHOP_REDACT: {
    shape: (p) => (typeof p.shop_domain === 'string' && p.customer === undefined && p.data_request === undefined ? null : 'a shop/redact body has shop_domain and no customer'),
    shop: (p) => p.shop_domain,
  },
  APP_SUBSCRIPTIONS_UPDATE: {
    shape: (p) => (typeof p.app_subscription?.admin_graphql_api_id === 'string' && typeof p.app_subscription?.status === 'string' ? null : 'an app_subscriptions/update body has app_subscription with its id and status'),
    // the body names the shop by id only; its effect is bounded by the subscription id stored for the shop
    shop: () => null,
  },
};

function customerId(p: Payload): string | null {
  const id = String(p.customer?.id ?? '');
  return /^\d{1,20}$/.test(id) ? id : null;
}

export function normalizeTopic(topic: string): string {
  return topic.toUpperCase().replace(/[/.]/g, '_');
}

/**
 * POST /shopify/webhooks: HMAC over the raw body (401), the body JSON (400), its shape for the topic and
 * the shop it names against the header (refused and logged), then the work; the webhook id is recorded
 * only once the work committed (with the redaction run, in one transaction), so a failed handler answers
 * 5xx and Shopify's retry does the work again. The handlers are idempotent by construction.
 */
export function mountWebhooks(router: Router, c: ShopifyConnector, fail: (ctx: Koa.Context, e: unknown) => void, log?: Logger): void {
  router.post('/shopify/webhooks', async (ctx) => {
    try {
      const rawBody = await readRaw(ctx.req, MAX_WEBHOOK_BYTES);
      const check = await c.shopify.webhooks.validate({ rawBody, rawRequest: ctx.req, rawResponse: ctx.res });
      if (!check.valid) throw new FitroomError('HTTP_ERROR', `Webhook refused: ${check.reason}`);
      const { topic: rawTopic, domain, webhookId } = check as { topic: string; domain: string; webhookId: string };
      let payload: unknown;
      try {
        payload = JSON.parse(rawBody);
      } catch {
        throw validationError([{ field: '(body)', message: 'is not JSON' }], 'The signed webhook body is not JSON');
      }
      if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw validationError([{ field: '(body)', message: 'is not a JSON object' }], 'The signed webhook body is not a JSON object');
      const topic = normalizeTopic(rawTopic);
      const spec = TOPICS[topic];
      if (spec) {
        const wrong = spec.shape(payload as Payload);
        if (wrong) {
          log?.warn({ topic, headerShop: domain, webhookId }, `shopify webhook refused: the body does not match the topic (${wrong})`);
          throw validationError([{ field: '(body)', message: wrong }], `The webhook body does not match the topic ${rawTopic}`);
        }
        const bodyShop = spec.shop(payload as Payload);
        if (bodyShop !== null && bodyShop !== domain) {
          log?.warn({ topic, headerShop: domain, bodyShop, webhookId }, 'shopify webhook refused: the signed body names another shop than the header');
          throw new FitroomError('HTTP_ERROR', 'Webhook refused: the signed body names another shop than X-Shopify-Shop-Domain');
        }
      }
      if (await c.appStore.delivered(PLATFORM, webhookId)) {
        ctx.body = { success: true, duplicate: true };
        return;
      }
      let handled: Handled;
      try {
        handled = spec ? await handleWebhook(c, topic, domain, payload as Payload) : { answer: { topic, ignored: 'no handler' } };
      } catch (e) {
        log?.error({ topic, shop: domain, webhookId, err: (e as Error)?.message }, 'shopify webhook failed; Shopify will retry it');
        if (isFitroomError(e) && e.status >= 500) throw e;
        throw new FitroomError('SERVICE_UNAVAILABLE', `The ${rawTopic} webhook could not be handled (${(e as Error)?.message ?? e}); Shopify retries it`, { retryable: true });
      }
      await c.appStore.recordDelivery(PLATFORM, webhookId, handled.run);
      ctx.body = { success: true, ...handled.answer };
    } catch (e) {
      fail(ctx, e);
    }
  });
}

/** What each topic does (idempotent: running it twice leaves what running it once leaves). */
export async function handleWebhook(c: ShopifyConnector, topic: string, shop: string, payload: Payload): Promise<Handled> {
  const install = await c.store.getInstall(PLATFORM, shop);
  switch (topic) {
    case 'APP_UNINSTALLED': {
      if (!install) return { answer: { topic, ignored: 'unknown shop' } };
      // Stop pending work and revoke the shop's key; its data stays until shop/redact.
      if (install.keyId) await c.credentials.revoke(install.keyId).catch(() => undefined);
      const owners = await ownersOf(c, shop);
      const summary = await c.ownerData.summarize(owners);
      let cancelled = 0;
      for (const j of summary.jobs.filter((x) => ['queued', 'validating', 'processing', 'uploading'].includes(x.status))) {
        await c.jobs.cancel(j.id, { ...c.merchantCaller(install), ownerHash: j.ownerHash }).then(() => cancelled++, () => undefined);
      }
      await c.store.deleteSessions(PLATFORM, [c.shopify.session.getOfflineId(shop)]);
      // Shopify cancels the app's subscription with the uninstall; a reinstall starts on the free plan
      const billing = await c.appStore.billing(PLATFORM, shop);
      if (billing?.plan === 'paid') await c.appStore.saveBilling({ ...billing, plan: 'free', status: 'CANCELLED', subscriptionId: null, usageLineItemId: null, since: null });
      await c.store.saveInstall({ ...install, status: 'uninstalled', uninstalledAt: new Date() });
      return { answer: { topic, cancelled } };
    }
    case 'CUSTOMERS_DATA_REQUEST': {
      const customer = customerId(payload)!;
      const requestId = String(payload.data_request.id);
      const summary = await c.ownerData.summarize([shopperOwner(shop, customer)]);
      const holds = { ...summary, jobs: summary.jobs.map(({ ownerHash: _o, ...j }) => j) };
      const doc = { shop, customerId: customer, dataRequestId: requestId, generatedAt: new Date().toISOString(), holds };
      // a retry finds the request recorded and does not write a second export
      const existing = await c.appStore.dataRequest(PLATFORM, shop, requestId);
      if (existing) return { answer: { topic, exportFileId: existing.fileId, jobs: summary.jobs.length, files: summary.files.length, twins: summary.twins.length } };
      const file = await c.files.store(new TextEncoder().encode(JSON.stringify(doc, null, 2)), { ownerHash: merchantOwner(shop), contentType: 'application/json', filename: `fitroom-customer-${customer}.json`, ttlSeconds: 30 * 86_400 });
      await c.store.recordDataExport({ platform: PLATFORM, id: requestId, shop, customerId: customer, fileId: file.id });
      return { answer: { topic, jobs: summary.jobs.length, files: summary.files.length, twins: summary.twins.length, exportFileId: file.id } };
    }
    case 'CUSTOMERS_REDACT': {
      const customer = customerId(payload)!;
      const erased = await c.ownerData.erase([shopperOwner(shop, customer)]);
      // the customer's data-request exports go too (files and their rows)
      const exportFiles = await removeFiles(c, await c.appStore.forgetDataRequests(PLATFORM, shop, customer));
      await c.store.forgetCustomers(PLATFORM, shop, [customer]);
      const files = erased.files + exportFiles;
      return { answer: { topic, erased: { ...erased, exports: exportFiles } }, run: { shop, topic: 'customers/redact', rows: erased.jobs + erased.twins + erased.tryOnResults + erased.files + exportFiles, files } };
    }
    case 'SHOP_REDACT': {
      // erase first, forget the shop last: a retry after a failure still knows the shop's customers
      const erased = await c.ownerData.erase(await ownersOf(c, shop));
      const exportFiles = await removeFiles(c, await c.appStore.forgetDataRequests(PLATFORM, shop));
      const billing = await c.appStore.forgetShop(PLATFORM, shop);
      if (install?.keyId) await c.credentials.revoke(install.keyId).catch(() => undefined);
      await c.store.deleteInstall(PLATFORM, shop);
      return { answer: { topic, erased: { ...erased, exports: exportFiles } }, run: { shop, topic: 'shop/redact', rows: erased.jobs + erased.twins + erased.tryOnResults + erased.files + exportFiles + billing, files: erased.files + exportFiles } };
    }
    case 'APP_SUBSCRIPTIONS_UPDATE':
      return { answer: { topic, ...(await subscriptionUpdated(c, shop, payload)) } };
    default:
      return { answer: { topic, ignored: 'no handler' } };
  }
}

/** Deletes files by id (blob, then row); already gone counts nothing. */
async function removeFiles(c: ShopifyConnector, ids: string[]): Promise<number> {
  const fileStore = c.api.get(TOKENS.fileStore);
  const blobs = c.api.get(TOKENS.blobStore);
  let n = 0;
  for (const id of ids) {
    const f = await fileStore.get(id);
    if (!f) continue;
    await blobs.delete(f.blobKey);
    await fileStore.delete(id);
    n++;
  }
  return n;
}

/** Every owner hash of a shop: its merchant account, its anonymous shoppers and each customer seen. */
export async function ownersOf(c: ShopifyConnector, shop: string): Promise<string[]> {
  return [merchantOwner(shop), shopperOwner(shop), ...(await c.store.customers(PLATFORM, shop)).map((id) => shopperOwner(shop, id))];
}

export async function readRaw(req: NodeJS.ReadableStream, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new FitroomError('PAYLOAD_TOO_LARGE', `The body is larger than ${max} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
