import '@shopify/shopify-api/adapters/node';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { ApiVersion, HttpResponseError, LogSeverity, RequestedTokenType, Session, shopifyApi, type Shopify } from '@shopify/shopify-api';
import { randomUUID } from 'node:crypto';
import type { FitroomPlugin, PluginApi } from '../../core/plugin.ts';
import { TOKENS } from '../../core/tokens.ts';
import { FitroomError, isFitroomError } from '../../core/errors.ts';
import { sha256Hex, type Caller } from '../../core/credentials.ts';
import { PLATFORM_STORE, type PlatformInstall, type PlatformStore } from '../../core/ports/platform-store.ts';
import { OWNER_DATA, type OwnerData } from '../../core/ports/owner-data.ts';
import { restLinks } from '../../core/links.ts';
import type { JobService } from '../../core/jobs.ts';
import type { CredentialService } from '../../core/credentials.ts';
import type { FileService } from '../../core/files.ts';
import { PLATFORM_APP_STORE, type PlatformAppStore } from '../../core/ports/platform-app-store.ts';
import type { ShopifySettings } from './settings.ts';
import { shopperBuckets } from './proxy.ts';
import { purgeShopperPhotos } from './storefront.ts';
import { adminGraphql, assertNoUserErrors, MEDIA_STATUS_QUERY, PRODUCT_UPDATE_MEDIA, STAGED_UPLOADS_CREATE } from './admin-api.ts';
import { OfflineTokens, sealStoredSessions, TokenVault } from './tokens.ts';
import { billingPlans, chargeVendorJobs } from './billing.ts';

// The library captures `fetch` when its node adapter loads; call through the current global so that
// whatever replaces it later (a test's interceptor, an instrumented fetch) is used.
setAbstractFetchFunc((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));

export const PLATFORM = 'shopify';
export const ATTACH_JOB = 'shopify-attach-3d';
export const PROXY_SCHEME = 'shopifyProxy';

/** The Fitroom account of a shop. */
export const accountOf = (shop: string) => `shopify:${shop}`;

/**
 * Owner hashes of a shop's work. Shoppers: `storefront:shopify:<shop>` (anonymous) or
 * `storefront:shopify:<shop>/customer:<id>` (logged in, so a customer's data can be found and erased);
 * the merchant's admin work: `account:shopify:<shop>`.
 */
export function shopperOwner(shop: string, customerId?: string | null): string {
  return sha256Hex(`storefront:${accountOf(shop)}${customerId ? `/customer:${customerId}` : ''}`);
}
export const merchantOwner = (shop: string) => sha256Hex(`account:${accountOf(shop)}`);

export interface ShopifyConnector {
  settings: ShopifySettings;
  shopify: Shopify;
  store: PlatformStore;
  /** Webhook deliveries and redaction runs, data requests, billing. */
  appStore: PlatformAppStore;
  tokens: OfflineTokens;
  ownerData: OwnerData;
  jobs: JobService;
  credentials: CredentialService;
  files: FileService;
  api: PluginApi;
  /** The caller of the merchant's own work (admin: 3D generation). */
  merchantCaller(install: PlatformInstall): Caller;
  /** The caller of a shopper on the storefront (through the app proxy). */
  shopperCaller(install: PlatformInstall, customerId: string | null): Caller;
  /** The installed shop, or 401 / 403 in the envelope. */
  installed(shop: string): Promise<PlatformInstall>;
  /** The shop's offline session (its Admin API token, refreshed when near expiry), or PLATFORM_REAUTH_REQUIRED. */
  offlineSession(shop: string): Promise<Session>;
  /** Stores a session with its tokens sealed (AES-256-GCM). */
  storeSession(session: Session): Promise<void>;
  /** One Admin GraphQL call with the shop's token: renewed before expiry, and once more after a 401. */
  admin<T = any>(shop: string, query: string, variables?: Record<string, unknown>): Promise<T>;
  /** A library call with the shop's session (billing): retried once with a renewed token after a 401. */
  withSession<T>(shop: string, fn: (session: Session) => Promise<T>): Promise<T>;
  /** OAuth or token exchange completed: the shop's account and key exist and are active. */
  completeInstall(session: Session): Promise<PlatformInstall>;
  /** Moves generated models whose shoe-3d job finished on to their attach job. */
  sweepMedia(): Promise<number>;
  markReauth(shop: string): Promise<void>;
}

export const SHOPIFY_CONNECTOR = { key: Symbol.for('fitroom.ShopifyConnector'), name: 'ShopifyConnector' } as const;

export function createShopifyApi(settings: ShopifySettings): Shopify {
  return shopifyApi({
    apiKey: settings.apiKey,
    apiSecretKey: settings.apiSecret,
    scopes: settings.scopes,
    hostName: settings.appUrl.host,
    hostScheme: settings.appUrl.protocol === 'https:' ? 'https' : 'http',
    apiVersion: ApiVersion.October26,
    isEmbeddedApp: true,
    billing: billingPlans(settings.billing),
    logger: { level: LogSeverity.Error },
  });
}

/**
 * The Shopify app's domain side, as a plugin: the proxy's auth scheme, the attach job and its sweep.
 * Its HTTP side (OAuth, webhooks, proxy routes, embedded admin) is mounted by `mountShopify`.
 */
export function shopifyPlugin(settings: ShopifySettings): FitroomPlugin & { connector: () => ShopifyConnector } {
  let connector: ShopifyConnector | null = null;
  return {
    name: 'shopify',
    after: ['shoe-3d'],
    connector: () => {
      if (!connector) throw new Error('The Shopify plugin has not been set up');
      return connector;
    },
    async setup(api) {
      const shopify = createShopifyApi(settings);
      const store = api.get(PLATFORM_STORE);
      const credentials = api.get(TOKENS.credentials);
      const jobs = api.get(TOKENS.jobs);
      const files = api.get(TOKENS.files);
      const vault = new TokenVault(settings.tokenKeys);
      const tokens = new OfflineTokens({
        vault,
        store,
        platform: PLATFORM,
        offlineId: (shop) => shopify.session.getOfflineId(shop),
        refresh: async (shop, refreshToken) => (await shopify.auth.refreshToken({ shop, refreshToken })).session,
        migrate: async (shop, token) => (await shopify.auth.migrateToExpiringToken({ shop, nonExpiringOfflineAccessToken: token })).session,
        markReauth: (shop) => c.markReauth(shop),
      });
      const c: ShopifyConnector = {
        settings,
        shopify,
        store,
        appStore: api.get(PLATFORM_APP_STORE),
        tokens,
        ownerData: api.get(OWNER_DATA),
        jobs,
        credentials,
        files,
        api,
        merchantCaller: (i) => ({ kind: 'account', credentialId: i.keyId ?? 'shopify', ownerHash: merchantOwner(i.shop), accountId: i.accountId, development: false, countsKeyUsage: false, countsAiQuota: true }),
        shopperCaller: (i, customerId) => ({ kind: 'storefront', credentialId: i.keyId ?? 'shopify', ownerHash: shopperOwner(i.shop, customerId), accountId: i.accountId, development: false, countsKeyUsage: false, countsAiQuota: true }),
        async installed(shop) {
          const i = await store.getInstall(PLATFORM, shop);
          if (!i || i.status === 'uninstalled') throw new FitroomError('HTTP_ERROR', `Fitroom is not installed on ${shop}`);
          return i;
        },
        offlineSession: (shop) => tokens.get(shop),
        storeSession: (session) => tokens.save(session),
        async admin(shop, query, variables = {}) {
          return adminGraphql(shopify, await tokens.get(shop), query, variables, {
            onReauth: () => c.markReauth(shop),
            onUnauthorized: (refused) => tokens.get(shop, { force: true, staleToken: refused.accessToken }),
          });
        },
        async withSession(shop, fn) {
          const session = await tokens.get(shop);
          try {
            return await fn(session);
          } catch (e) {
            if (!(e instanceof HttpResponseError && e.response.code === 401)) throw e;
            return fn(await tokens.get(shop, { force: true, staleToken: session.accessToken }));
          }
        },
        async completeInstall(session) {
          await c.storeSession(session);
          const prior = await store.getInstall(PLATFORM, session.shop);
          let keyId = prior?.keyId ?? null;
          // A reinstall after an uninstall gets a fresh key: the old one was revoked on uninstall.
          if (!keyId || !(await credentials.active(keyId))) {
            const created = await credentials.create({ name: `Shopify ${session.shop}`, kind: 'service', accountId: accountOf(session.shop) });
            keyId = created.record.id;
          }
          const install: PlatformInstall = { platform: PLATFORM, shop: session.shop, accountId: accountOf(session.shop), keyId, status: 'installed', installedAt: prior?.status === 'installed' ? prior.installedAt : new Date(), uninstalledAt: null };
          await store.saveInstall(install);
          return install;
        },
        async markReauth(shop) {
          const i = await store.getInstall(PLATFORM, shop);
          if (i && i.status === 'installed') await store.saveInstall({ ...i, status: 'needs_reauth' });
        },
        async sweepMedia() {
          let n = 0;
          for (const m of await store.media({ platform: PLATFORM, status: ['generating'] })) {
            const install = await store.getInstall(PLATFORM, m.shop);
            let job: Awaited<ReturnType<typeof jobs.getOwned>> | null = null;
            try {
              job = install ? await jobs.getOwned(m.jobId, c.merchantCaller(install)) : null;
            } catch (e) {
              // only a job that is gone fails the row; a database fault is retried by the next sweep
              if (!(isFitroomError(e) && e.code === 'NOT_FOUND')) continue;
            }
            if (!install || !job) {
              await store.updateMedia(m.id, { status: 'failed', error: install ? 'The 3D generation job no longer exists' : 'The shop uninstalled Fitroom before the model could be attached' });
              continue;
            }
            if (job.status === 'failed' || job.status === 'cancelled') {
              await store.updateMedia(m.id, { status: 'failed', error: `3D generation failed: ${job.error ?? job.status}` });
            } else if (job.status === 'completed' && (await store.claimForAttach(m.id))) {
              await jobs.submit({ kind: ATTACH_JOB, input: { mediaRowId: m.id }, caller: c.merchantCaller(install), links: restLinks(api.config, job.baseUrl) });
              n++;
            }
          }
          return n;
        },
      };
      connector = c;
      // rows stored before migration 091 (plain) or sealed with an older key: sealed with the current key
      await sealStoredSessions(store, PLATFORM, vault);

      api.auth(PROXY_SCHEME, proxyScheme(c));
      api.jobKind({
        name: ATTACH_JOB,
        progress: 'stage',
        stages: [
          { name: 'stage upload', status: 'uploading' },
          { name: 'attach', status: 'uploading' },
          { name: 'processing', status: 'processing' },
        ],
        maxAttempts: ATTACH_ATTEMPTS,
        estimatedSeconds: 60,
        run: async (job) => ({ result: await attachModel(c, job as never) }),
      });
      api.cron({ task: 'fitroom_shopify_photo_purge', pattern: '*/15 * * * *', run: async () => void (await purgeShopperPhotos(c)) });
      api.cron({ task: 'fitroom_shopify_media_sweep', pattern: '* * * * *', run: async () => void (await c.sweepMedia()) });
      // usage charges of the paid plan: one per completed vendor job, idempotent per job
      api.cron({ task: 'fitroom_shopify_usage_charges', pattern: '* * * * *', run: async () => void (await chargeVendorJobs(c)) });
    },
  };
}

/**
 * App proxy requests (`/apps/fitroom/...` on the shop, forwarded to `/shopify/proxy/...`): Shopify
 * signs the query (`signature`, sorted params joined without separators, HMAC-SHA256 with the app
 * secret, `timestamp` within 90 s, no duplicated signed params). The caller is the shop's shopper
 * identity, per logged-in customer when Shopify names one.
 */
function proxyScheme(c: ShopifyConnector) {
  return {
    async resolve(req: { query: Readonly<Record<string, string>>; headers: Readonly<Record<string, string | undefined>>; ip: string }) {
      const raw = req.headers['x-fitroom-proxy-query'];
      if (raw === undefined) return undefined;
      const params = new URLSearchParams(raw);
      // a repeated parameter, signed by Shopify or not, is refused: collapsing it would let the request
      // mean something else than what was signed (and the operation would read one of the values)
      const repeated = [...new Set(params.keys())].find((k) => params.getAll(k).length > 1);
      if (repeated !== undefined) throw new FitroomError('HTTP_ERROR', `The app proxy request repeats the query parameter "${repeated}"`);
      let valid: boolean;
      try {
        valid = await c.shopify.utils.validateHmac(params, { signator: 'appProxy' });
      } catch {
        valid = false;
      }
      if (!valid) throw new FitroomError('HTTP_ERROR', 'The app proxy signature is missing, invalid or older than 90 seconds');
      const shop = c.shopify.utils.sanitizeShop(params.get('shop') ?? '');
      if (!shop) throw new FitroomError('HTTP_ERROR', 'The app proxy request names no valid shop');
      const install = await c.installed(shop);
      const customer = params.get('logged_in_customer_id') || null;
      if (customer) {
        if (!/^\d{1,20}$/.test(customer)) throw new FitroomError('HTTP_ERROR', 'logged_in_customer_id is not a Shopify customer id');
        await c.store.rememberCustomer(PLATFORM, shop, customer);
      }
      return { caller: { ...c.shopperCaller(install, customer), rateBuckets: shopperBuckets(c, shop, customer, req) } };
    },
    missing: () => new FitroomError('HTTP_ERROR', 'App proxy requests come signed by Shopify'),
  };
}

/** The attach job's attempts (the kind's maxAttempts); the media row fails only once they are spent. */
const ATTACH_ATTEMPTS = 3;

interface AttachJob {
  id: string;
  attempt: number;
  input: { mediaRowId: string };
  stage<T>(name: string, fn: (signal: AbortSignal) => Promise<T>, opts?: { timeoutMs?: number }): Promise<T>;
  note(d: Record<string, unknown>): void;
}

/**
 * A finished shoe-3d model becomes the product's MODEL_3D media: staged upload (with its byte size),
 * the multipart POST to Shopify's storage, `productUpdate` with the media, then the media status until
 * READY or FAILED. Shopify converts the GLB to USDZ itself.
 */
async function attachModel(c: ShopifyConnector, job: AttachJob) {
  const row = (await c.store.media({ platform: PLATFORM, status: ['attaching'] })).find((m) => m.id === job.input.mediaRowId);
  if (!row) throw new FitroomError('NOT_FOUND', 'This model is no longer waiting to be attached');
  // the row fails only when the job will not run again: a failure that is not retried, or the last attempt
  const fail = async (e: unknown) => {
    const retryable = isFitroomError(e) ? e.retryable : (e as { retryable?: boolean })?.retryable !== false;
    if (!retryable || job.attempt >= ATTACH_ATTEMPTS) await c.store.updateMedia(row.id, { status: 'failed', error: e instanceof Error ? e.message : String(e) });
    throw e;
  };
  try {
    const install = await c.store.getInstall(PLATFORM, row.shop);
    if (!install || install.status === 'uninstalled') throw new FitroomError('CONFLICT', `${row.shop} uninstalled Fitroom before the model could be attached; the model is kept until the shop's data is erased`);
    const call = <T>(q: string, v: Record<string, unknown>) => c.admin<T>(row.shop, q, v);
    const source = await c.jobs.getOwned(row.jobId, c.merchantCaller(install)).catch(() => null);
    const glbUrl = (source?.result as { glbUrl?: string } | null)?.glbUrl;
    const fileId = glbUrl ? /\/api\/v1\/files\/([0-9a-f-]{36})/.exec(glbUrl)?.[1] : undefined;
    const rec = fileId ? await c.files.get(fileId) : null;
    const glb = rec ? await c.files.read(rec) : null;
    if (!glb) throw new FitroomError('NOT_FOUND', 'The generated GLB has expired or was removed; generate the model again');

    // a retry after the media was attached goes straight to following its processing
    const attachedBefore = row.mediaId;
    const target = attachedBefore ? null : await job.stage('stage upload', async () => {
      const staged = await call<{ stagedUploadsCreate: { stagedTargets: { url: string; resourceUrl: string; parameters: { name: string; value: string }[] }[]; userErrors: { field: string[]; message: string }[] } }>(STAGED_UPLOADS_CREATE, {
        input: [{ resource: 'MODEL_3D', filename: 'model.glb', mimeType: 'model/gltf-binary', fileSize: String(glb.byteLength), httpMethod: 'POST' }],
      });
      assertNoUserErrors('Shopify refused the upload', staged.stagedUploadsCreate);
      const t = staged.stagedUploadsCreate.stagedTargets[0];
      const form = new FormData();
      for (const p of t.parameters) form.append(p.name, p.value);
      form.append('file', new Blob([glb as Uint8Array<ArrayBuffer>], { type: 'model/gltf-binary' }), 'model.glb');
      const res = await fetch(t.url, { method: 'POST', body: form, signal: AbortSignal.timeout(120_000) });
      if (!res.ok) throw new FitroomError('PLATFORM_ERROR', `Shopify's storage refused the model upload (HTTP ${res.status})`, { retryable: res.status >= 500 });
      job.note({ bytes: glb.byteLength });
      return t;
    });

    const mediaId = attachedBefore ?? await job.stage('attach', async () => {
      const updated = await call<{ productUpdate: { product: { media: { nodes: { id: string; mediaContentType: string; alt: string | null }[] } } | null; userErrors: { field: string[]; message: string }[] } }>(PRODUCT_UPDATE_MEDIA, {
        product: { id: row.productId },
        media: [{ originalSource: target!.resourceUrl, mediaContentType: 'MODEL_3D', alt: `3D model (Fitroom ${row.id})` }],
      });
      assertNoUserErrors('Shopify refused the 3D media', updated.productUpdate);
      const m = updated.productUpdate.product?.media.nodes.find((n) => n.mediaContentType === 'MODEL_3D' && n.alt === `3D model (Fitroom ${row.id})`);
      if (!m) throw new FitroomError('PLATFORM_ERROR', 'Shopify accepted the update but lists no new 3D media on the product');
      await c.store.updateMedia(row.id, { mediaId: m.id });
      return m.id;
    });

    const status = await job.stage(
      'processing',
      async (signal) => {
        for (let delay = 1000; ; delay = Math.min(10_000, delay * 2)) {
          const r = await call<{ node: { status: string; mediaErrors: { code: string; message: string }[] } | null }>(MEDIA_STATUS_QUERY, { id: mediaId });
          const s = r.node?.status;
          if (s === 'READY') return s;
          if (s === 'FAILED' || !r.node) throw new FitroomError('PLATFORM_ERROR', `Shopify could not process the 3D model: ${r.node?.mediaErrors.map((e) => `${e.code} ${e.message}`).join('; ') || 'the media disappeared'}`);
          await new Promise((res, rej) => {
            const t = setTimeout(res, delay);
            signal.addEventListener('abort', () => (clearTimeout(t), rej(signal.reason)), { once: true });
          });
        }
      },
      { timeoutMs: 15 * 60_000 },
    );
    await c.store.updateMedia(row.id, { status: 'ready' });
    return { mediaId, status, productId: row.productId };
  } catch (e) {
    return fail(e);
  }
}

/** Token exchange for the embedded admin: the page's session token becomes the shop's offline token. */
export async function exchangeToken(c: ShopifyConnector, shop: string, sessionToken: string): Promise<PlatformInstall> {
  // expiring offline tokens (required of public apps): an access token for about an hour plus a refresh token
  const { session } = await c.shopify.auth.tokenExchange({ shop, sessionToken, requestedTokenType: RequestedTokenType.OfflineAccessToken, expiring: true });
  return c.completeInstall(session);
}

export function newMediaRow(shop: string, productId: string, jobId: string) {
  return { id: randomUUID(), platform: PLATFORM, shop, productId, jobId };
}
