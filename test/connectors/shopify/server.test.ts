/**
 * The Shopify app's server side through real HTTP on loopback, nock only for Shopify's hosts:
 * expiring offline tokens (token exchange with `expiring`, refresh before expiry and once after a 401),
 * tokens sealed at rest, webhooks checked against their signed body (shop, topic, JSON), redactions
 * redone after a failure, customer data requests in the admin, billing, the attach job's retries and
 * repeated proxy parameters.
 * Fixture shapes: @shopify/shopify-api 15 (getJwt, the access_token answers of token exchange and
 * refresh with expires_in / refresh_token / refresh_token_expires_in), shopify.dev's Admin GraphQL
 * reference for 2026-10 (currentAppInstallation.activeSubscriptions with AppRecurringPricing and
 * AppUsagePricing line items, appSubscriptionCreate, appUsageRecordCreate, appSubscriptionCancel,
 * shop.plan.partnerDevelopment) and the webhook payloads of the privacy-law compliance topics,
 * app/uninstalled and app_subscriptions/update.
 */
import nock from 'nock';
import pino from 'pino';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHmac, randomUUID } from 'node:crypto';
import { getJwt } from '@shopify/shopify-api/test-helpers';
import { Session } from '@shopify/shopify-api';
import { type TestService } from '../../support/harness.ts';
import { images as tryOnImages } from '../../plugins/tryon/helpers.ts';
import { loadShopifySettings, parseTokenKeys } from '../../../connectors/shopify/settings.ts';
import { PLATFORM, shopperOwner, merchantOwner, accountOf, type ShopifyConnector } from '../../../connectors/shopify/shopify.ts';
import { sealStoredSessions, TokenVault } from '../../../connectors/shopify/tokens.ts';
import { chargeVendorJobs, vendorAllowed } from '../../../connectors/shopify/billing.ts';
import { ConfigError } from '../../../core/config.ts';
import { signProxyQuery, TEST_TOKEN_KEYS, startShopifyService } from './support.ts';

const SHOP = 'server-shop.myshopify.com';
const OTHER = 'other-shop.myshopify.com';
const API_KEY = 'testApiKey';
const SECRET = 'testApiSecretKey';
const APP_URL = 'https://my-test-app.myshopify.io';
const ADMIN = `https://${SHOP}`;
const GRAPHQL = '/admin/api/2026-10/graphql.json';

let svc: TestService;
let c: ShopifyConnector;
const logLines: string[] = [];

beforeAll(async () => {
  // every line the app logs, at every level, kept to scan for tokens
  const sink = new Writable({ write: (chunk, _e, cb) => (logLines.push(String(chunk)), cb()) });
  const log = pino({ level: 'trace' }, sink);
  ({ svc, c } = await startShopifyService({ settings: { SHOPIFY_USAGE_CAP: '1.00', SHOPIFY_PRICE_TRYON: '0.40' }, env: { BOT_VERIFIER: 'off' }, log }));
  nock.disableNetConnect();
  nock.enableNetConnect(/127\.0\.0\.1|localhost/);
});

afterAll(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await svc?.close();
});

beforeEach(() => nock.cleanAll());

const token = async (shop = 'server-shop') => (await getJwt(shop, API_KEY, SECRET)).token;
const adminFetch = async (path: string, init: RequestInit & { auth?: boolean } = {}) => {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (init.auth !== false) headers.authorization = `Bearer ${await token()}`;
  return fetch(`${svc.api}${path}`, { ...init, headers });
};

async function webhook(topic: string, body: unknown, opts: { id?: string; shop?: string; raw?: string } = {}) {
  const raw = opts.raw ?? JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-shopify-topic': topic,
    'x-shopify-shop-domain': opts.shop ?? SHOP,
    'x-shopify-webhook-id': opts.id ?? randomUUID(),
    'x-shopify-api-version': '2026-10',
    'x-shopify-event-id': randomUUID(),
    'x-shopify-triggered-at': new Date().toISOString(),
    'x-shopify-hmac-sha256': createHmac('sha256', SECRET).update(raw).digest('base64'),
  };
  const res = await fetch(`${svc.api}/shopify/webhooks`, { method: 'POST', headers, body: raw });
  return { status: res.status, body: await res.json() };
}

/** Replies to Admin GraphQL calls by operation name; records each call's token and variables. */
function graphql(host: string, handlers: Record<string, (vars: any) => unknown>, calls: { name: string; token: string | null; vars: any }[] = []) {
  nock(host)
    .persist()
    .post(GRAPHQL)
    .reply(200, async (req: Request) => {
      const body = (await req.json()) as { query: string; variables: any };
      const name = /(query|mutation) (\w+)/.exec(body.query)?.[2] ?? '';
      calls.push({ name, token: req.headers.get('x-shopify-access-token'), vars: body.variables });
      const h = handlers[name];
      return h ? h(body.variables) : { errors: [{ message: `unexpected ${name}` }] };
    });
  return calls;
}

const accessTokenAnswer = (access: string, refresh: string, expiresIn = 3600) => ({ access_token: access, scope: 'read_products,write_products,write_app_proxy', expires_in: expiresIn, refresh_token: refresh, refresh_token_expires_in: 7_776_000 });

async function installByExchange() {
  let sent: Record<string, string> | null = null;
  nock(ADMIN).post('/admin/oauth/access_token').reply(200, async (req: Request) => {
    sent = (await req.json()) as Record<string, string>;
    return accessTokenAnswer('shpat_first_access', 'shprt_first_refresh');
  });
  graphql(ADMIN, { FitroomProducts: () => ({ data: { products: { nodes: [] } } }) });
  const r = await adminFetch('/shopify/api/products');
  expect(r.status).toBe(200);
  return sent!;
}

async function rows() {
  return (await svc.fitroom.pool.query<{ id: string; data: string; key_id: string | null; expires_at: Date | null }>('select id, data::text as data, key_id, expires_at from platform_sessions')).rows;
}

describe('tokens', () => {
  it('refuses to start without SHOPIFY_TOKEN_KEYS, or with a key that is not 32 bytes, saying how to make one', () => {
    const base = { SHOPIFY_API_KEY: API_KEY, SHOPIFY_API_SECRET: SECRET, SHOPIFY_APP_URL: APP_URL };
    expect(() => loadShopifySettings(base)).toThrow(ConfigError);
    expect(() => loadShopifySettings(base)).toThrow(/SHOPIFY_TOKEN_KEYS.*openssl rand -base64 32/);
    expect(() => loadShopifySettings({ ...base, SHOPIFY_TOKEN_KEYS: `k1:${Buffer.alloc(16).toString('base64')}` })).toThrow(/16 bytes, AES-256 needs 32/);
    expect(() => parseTokenKeys('nokeyid')).toThrow(/<key id>:<base64 key>/);
    expect(parseTokenKeys(`k2:${Buffer.alloc(32, 1).toString('base64')},k1:${Buffer.alloc(32, 2).toString('base64')}`).map((k) => k.id)).toEqual(['k2', 'k1']);
  });

  it('asks token exchange for an expiring offline token and stores both tokens sealed: no plain token in any row or log line', async () => {
    const sent = await installByExchange();
    expect(sent.expiring).toBe('1');
    expect(sent.requested_token_type).toBe('urn:shopify:params:oauth:token-type:offline-access-token');
    const session = await c.offlineSession(SHOP);
    expect(session.accessToken).toBe('shpat_first_access');
    expect(session.refreshToken).toBe('shprt_first_refresh');
    expect(session.expires!.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
    const stored = await rows();
    expect(stored.length).toBeGreaterThan(0);
    for (const r of stored) {
      expect(r.data).not.toMatch(/shpat_|shprt_/);
      expect(r.key_id).toBe('k1');
    }
    expect(stored.find((r) => r.id === `offline_${SHOP}`)!.expires_at).not.toBeNull();
    expect(logLines.join('')).not.toMatch(/shpat_|shprt_/);
  });

  it('refreshes before expiry, and once after a 401, using the stored refresh token', async () => {
    // the token expires in 2 minutes: within the refresh margin
    await c.storeSession(new Session({ id: `offline_${SHOP}`, shop: SHOP, state: '', isOnline: false, accessToken: 'shpat_old', scope: 'write_products', expires: new Date(Date.now() + 120_000), refreshToken: 'shprt_old', refreshTokenExpires: new Date(Date.now() + 86_400_000) }));
    const refreshes: Record<string, string>[] = [];
    nock(ADMIN).post('/admin/oauth/access_token').times(2).reply(200, async (req: Request) => {
      const b = (await req.json()) as Record<string, string>;
      refreshes.push(b);
      return refreshes.length === 1 ? accessTokenAnswer('shpat_renewed', 'shprt_renewed') : accessTokenAnswer('shpat_after_401', 'shprt_after_401');
    });
    const calls = graphql(ADMIN, { FitroomProducts: () => ({ data: { products: { nodes: [] } } }) });
    expect((await adminFetch('/shopify/api/products')).status).toBe(200);
    expect(refreshes[0]).toMatchObject({ grant_type: 'refresh_token', refresh_token: 'shprt_old', client_id: API_KEY });
    expect(calls.at(-1)!.token).toBe('shpat_renewed');
    expect((await c.offlineSession(SHOP)).refreshToken).toBe('shprt_renewed');

    // Shopify refuses the token once (revoked early): one refresh, the call repeated with the new token
    nock.cleanAll();
    nock(ADMIN).post('/admin/oauth/access_token').reply(200, async (req: Request) => {
      refreshes.push((await req.json()) as Record<string, string>);
      return accessTokenAnswer('shpat_after_401', 'shprt_after_401');
    });
    let first = true;
    const seen: (string | null)[] = [];
    nock(ADMIN).persist().post(GRAPHQL).reply(async function (this: unknown, ...args: unknown[]) {
      const req = args[0] as Request;
      seen.push(req.headers.get('x-shopify-access-token'));
      if (first) {
        first = false;
        return [401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' }];
      }
      return [200, { data: { products: { nodes: [{ id: 'gid://shopify/Product/1', title: 'Boot' }] } } }];
    } as never);
    const r = await adminFetch('/shopify/api/products');
    expect(r.status).toBe(200);
    expect(seen).toEqual(['shpat_renewed', 'shpat_after_401']);
    expect(refreshes.at(-1)).toMatchObject({ grant_type: 'refresh_token', refresh_token: 'shprt_renewed' });
    for (const row of await rows()) expect(row.data).not.toMatch(/shpat_|shprt_/);
    expect(logLines.join('')).not.toMatch(/shpat_|shprt_/);
  });

  it('exchanges a non-expiring offline token stored before for an expiring one at its first use', async () => {
    const shop = 'legacy-shop.myshopify.com';
    await c.completeInstall(new Session({ id: `offline_${shop}`, shop, state: '', isOnline: false, accessToken: 'shpat_never_expires', scope: 'write_products' }));
    let sent: Record<string, string> | null = null;
    nock(`https://${shop}`).post('/admin/oauth/access_token').reply(200, async (req: Request) => {
      sent = (await req.json()) as Record<string, string>;
      return accessTokenAnswer('shpat_migrated', 'shprt_migrated');
    });
    const s = await c.offlineSession(shop);
    expect(sent!).toMatchObject({ grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: 'shpat_never_expires', subject_token_type: 'urn:shopify:params:oauth:token-type:offline-access-token', expiring: '1' });
    expect(s.accessToken).toBe('shpat_migrated');
    expect(s.refreshToken).toBe('shprt_migrated');
    expect((await c.offlineSession(shop)).accessToken).toBe('shpat_migrated');
  });

  it('asks the merchant to re-authorize when the refresh token has expired too, without calling Shopify', async () => {
    const shop = 'expired-shop.myshopify.com';
    await c.completeInstall(new Session({ id: `offline_${shop}`, shop, state: '', isOnline: false, accessToken: 'shpat_expired', scope: 'write_products', expires: new Date(Date.now() - 60_000), refreshToken: 'shprt_expired', refreshTokenExpires: new Date(Date.now() - 1000) }));
    await expect(c.offlineSession(shop)).rejects.toMatchObject({ code: 'PLATFORM_REAUTH_REQUIRED' });
    expect((await c.store.getInstall(PLATFORM, shop))!.status).toBe('needs_reauth');
  });

  it('seals plain rows from before migration 091 (lazily and at start) and reseals rows of a rotated-out key', async () => {
    const plain = new Session({ id: `offline_${OTHER}`, shop: OTHER, state: '', isOnline: false, accessToken: 'shpat_plain_legacy', scope: 'write_products', expires: new Date(Date.now() + 3_600_000), refreshToken: 'shprt_plain_legacy', refreshTokenExpires: new Date(Date.now() + 86_400_000) });
    await svc.fitroom.pool.query('insert into platform_sessions (platform, id, shop, data) values ($1, $2, $3, $4)', [PLATFORM, plain.id, OTHER, JSON.stringify(plain.toObject())]);
    expect((await rows()).find((r) => r.id === plain.id)!.data).toMatch(/shpat_plain_legacy/);
    // the start-up pass
    const vault = new TokenVault(parseTokenKeys(TEST_TOKEN_KEYS));
    expect(await sealStoredSessions(c.store, PLATFORM, vault)).toBe(1);
    const sealed = (await rows()).find((r) => r.id === plain.id)!;
    expect(sealed.data).not.toMatch(/shpat_|shprt_/);
    expect(sealed.key_id).toBe('k1');
    expect((await c.offlineSession(OTHER)).accessToken).toBe('shpat_plain_legacy');

    // rotation: k2 first, k1 still listed; every row is sealed with k2 and still opens
    const rotated = new TokenVault(parseTokenKeys(`k2:${Buffer.alloc(32, 9).toString('base64')},${TEST_TOKEN_KEYS}`));
    expect(await sealStoredSessions(c.store, PLATFORM, rotated)).toBe((await rows()).length);
    for (const r of await rows()) expect(r.key_id).toBe('k2');
    const row = (await rows()).find((r) => r.id === plain.id)!;
    expect(rotated.openSession(JSON.parse(row.data)).session.accessToken).toBe('shpat_plain_legacy');
    // a sealed token does not open in another row (the session id is bound to it)
    const moved = { ...JSON.parse(row.data), id: `offline_${SHOP}` };
    expect(() => rotated.openSession(moved)).toThrow(/altered or moved/);
    // back to k1 for the rest of the file
    await sealStoredSessions(c.store, PLATFORM, new TokenVault([...parseTokenKeys(TEST_TOKEN_KEYS), ...parseTokenKeys(`k2:${Buffer.alloc(32, 9).toString('base64')}`)]));
    for (const r of await rows()) expect(r.key_id).toBe('k1');
  });
});

async function shopperJob(customer: string) {
  const img = await tryOnImages();
  const q = signProxyQuery(SECRET, [['shop', SHOP], ['path_prefix', '/apps/fitroom'], ['timestamp', String(Math.floor(Date.now() / 1000))], ['logged_in_customer_id', customer]]);
  const r = await fetch(`${svc.api}/shopify/proxy/api/v1/virtual-fitting?${q}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-fitroom-consent': '1' }, body: JSON.stringify({ personImages: [img.face], topGarment: img.top, options: { quality: 'draft' } }) });
  expect(r.status).toBe(202);
  return (await r.json()).jobId as string;
}
const held = async (owner: string) => Number((await svc.fitroom.pool.query<{ n: string }>('select (select count(*) from jobs where owner_hash = $1) + (select count(*) from files where owner_hash = $1) as n', [owner])).rows[0].n);
async function settled(ids: string[]) {
  const done = async () => (await svc.fitroom.pool.query(`select 1 from jobs where id = any($1::uuid[]) and status in ('completed', 'failed')`, [ids])).rowCount;
  await expect.poll(done, { timeout: 90_000, interval: 150, message: `jobs ${ids.join(', ')} did not finish` }).toBe(ids.length);
}

describe('webhooks', () => {
  it('answer 400 to a signed body that is not JSON', async () => {
    const r = await webhook('customers/redact', null, { raw: 'not json {' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('refuse a signed body replayed under another topic or another shop, and log it', async () => {
    if ((await c.store.getInstall(PLATFORM, SHOP))?.status !== 'installed') await installByExchange();
    // the other shop is installed and holds data
    await c.completeInstall(new Session({ id: `offline_${OTHER}`, shop: OTHER, state: '', isOnline: false, accessToken: 'shpat_other', scope: 'write_products' }));
    const before = await c.store.getInstall(PLATFORM, OTHER);
    const dataRequest = { shop_id: 1, shop_domain: SHOP, orders_requested: [], customer: { id: 5001, email: 'a@example.com', phone: null }, data_request: { id: 61 } };
    // captured signed data_request body of SHOP, resent as shop/redact for OTHER
    const asRedact = await webhook('shop/redact', dataRequest, { shop: OTHER });
    expect(asRedact.status).toBe(400);
    // the same body under its own topic but another shop's header
    const otherShop = await webhook('customers/data_request', dataRequest, { shop: OTHER });
    expect(otherShop.status).toBe(401);
    // a signed shop/redact of SHOP sent with OTHER's header
    const shopRedact = await webhook('shop/redact', { shop_id: 1, shop_domain: SHOP }, { shop: OTHER });
    expect(shopRedact.status).toBe(401);
    expect(await c.store.getInstall(PLATFORM, OTHER)).toEqual(before);
    expect(await c.credentials.active(before!.keyId!)).not.toBeNull();
    const logged = logLines.join('');
    expect(logged).toMatch(/the body does not match the topic/);
    expect(logged).toMatch(/names another shop than the header/);
  });

  it('a customers/redact that fails once is redone on Shopify\'s retry, removes the customer\'s exports, and is recorded for the admin', async () => {
    if ((await c.store.getInstall(PLATFORM, SHOP))?.status !== 'installed') await installByExchange();
    const job = await shopperJob('7001');
    await settled([job]);
    expect(await held(shopperOwner(SHOP, '7001'))).toBeGreaterThan(0);
    const report = await webhook('customers/data_request', { shop_id: 1, shop_domain: SHOP, orders_requested: [], customer: { id: 7001 }, data_request: { id: 71 } });
    expect(report.status).toBe(200);
    const exportFile = report.body.exportFileId as string;
    expect(await c.files.get(exportFile)).not.toBeNull();

    const id = randomUUID();
    const body = { shop_id: 1, shop_domain: SHOP, customer: { id: 7001, email: 'c@example.com', phone: null }, orders_to_redact: [] };
    // a real failure inside the erasure's transaction: a table it deletes from is missing
    await svc.fitroom.pool.query('alter table twins rename to twins_away');
    let failed;
    try {
      failed = await webhook('customers/redact', body, { id });
    } finally {
      await svc.fitroom.pool.query('alter table twins_away rename to twins');
    }
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(await held(shopperOwner(SHOP, '7001'))).toBeGreaterThan(0);
    // the retry (same webhook id) does the work, then is recorded
    const retried = await webhook('customers/redact', body, { id });
    expect(retried.status).toBe(200);
    expect(retried.body.duplicate).toBeUndefined();
    expect(await held(shopperOwner(SHOP, '7001'))).toBe(0);
    expect(await c.files.get(exportFile)).toBeNull();
    expect(retried.body.erased.exports).toBe(1);
    const again = await webhook('customers/redact', body, { id });
    expect(again.body.duplicate).toBe(true);

    const compliance = await (await adminFetch('/shopify/api/compliance')).json();
    expect(compliance.shopRedact).toBeNull();
    expect(compliance.customersRedact.files).toBeGreaterThan(0);
    expect(compliance.customersRedact.rows).toBeGreaterThan(compliance.customersRedact.files - 1);
    expect(Date.parse(compliance.customersRedact.lastRunAt)).not.toBeNaN();
  });
});

describe('data requests in the admin', () => {
  it('lists the open request, downloads the export (JSON and HTML) with the session token only, and marks it delivered', async () => {
    if ((await c.store.getInstall(PLATFORM, SHOP))?.status !== 'installed') await installByExchange();
    const job = await shopperJob('8001');
    await settled([job]);
    const w = await webhook('customers/data_request', { shop_id: 1, shop_domain: SHOP, orders_requested: [], customer: { id: 8001 }, data_request: { id: 81 } });
    expect(w.status).toBe(200);
    const list = await (await adminFetch('/shopify/api/data-requests')).json();
    const item = list.dataRequests.find((d: { id: string }) => d.id === '81');
    expect(item).toMatchObject({ id: '81', customerId: '8001', status: 'open', deliveredAt: null });
    expect(Date.parse(item.requestedAt)).not.toBeNaN();

    expect((await adminFetch('/shopify/api/data-requests/81/export?format=json', { auth: false })).status).toBe(401);
    expect((await adminFetch('/shopify/api/data-requests/81/export?format=json', { auth: false, headers: { authorization: 'Bearer abc.def.ghi' } })).status).toBe(401);
    const json = await adminFetch('/shopify/api/data-requests/81/export?format=json');
    expect(json.status).toBe(200);
    expect(json.headers.get('content-disposition')).toMatch(/attachment; filename="fitroom-data-request-81-customer-8001\.json"/);
    const doc = await json.json();
    expect(doc.customerId).toBe('8001');
    expect(doc.holds.jobs.map((j: { id: string }) => j.id)).toContain(job);
    expect(doc.holds.files.length).toBeGreaterThan(0);
    const html = await adminFetch('/shopify/api/data-requests/81/export?format=html');
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    const page = await html.text();
    expect(page).toMatch(/What Fitroom holds for customer 8001/);
    expect(page).toContain(job);
    expect((await adminFetch('/shopify/api/data-requests/81/export?format=pdf')).status).toBe(400);
    expect((await adminFetch('/shopify/api/data-requests/999/export')).status).toBe(404);

    const done = await adminFetch('/shopify/api/data-requests/81/delivered', { method: 'POST' });
    const d = await done.json();
    expect(done.status).toBe(200);
    expect(d.dataRequest).toMatchObject({ id: '81', status: 'delivered' });
    expect(Date.parse(d.dataRequest.deliveredAt)).not.toBeNaN();
    // another shop's session token does not see it
    const other = await fetch(`${svc.api}/shopify/api/data-requests/81/export`, { headers: { authorization: `Bearer ${await token('other-shop')}` } });
    expect(other.status).toBe(404);
  });
});

describe('billing', () => {
  const subscription = (status: string, balance = '0.0') => ({
    id: 'gid://shopify/AppSubscription/4019585080',
    name: 'Fitroom Paid',
    test: true,
    status,
    trialDays: 0,
    createdAt: new Date(Date.now() - 3_600_000).toISOString(),
    currentPeriodEnd: null,
    returnUrl: `https://admin.shopify.com/store/server-shop/apps/${API_KEY}`,
    lineItems: [
      { id: 'gid://shopify/AppSubscriptionLineItem/1?v=1&index=0', plan: { pricingDetails: { __typename: 'AppRecurringPricing', price: { amount: '19.0', currencyCode: 'USD' }, interval: 'EVERY_30_DAYS', discount: null } } },
      { id: 'gid://shopify/AppSubscriptionLineItem/1?v=1&index=1', plan: { pricingDetails: { __typename: 'AppUsagePricing', balanceUsed: { amount: balance, currencyCode: 'USD' }, cappedAmount: { amount: '1.0', currencyCode: 'USD' }, terms: 'usage' } } },
    ],
  });
  const installation = (subs: unknown[]) => () => ({ data: { currentAppInstallation: { activeSubscriptions: subs, oneTimePurchases: { edges: [], pageInfo: { hasNextPage: false, endCursor: null } } } } });

  /** A completed job of the shop that a vendor model answered (as the try-on job records it). */
  async function vendorJob(kind: 'tryon' | 'model3d') {
    const id = randomUUID();
    await svc.fitroom.pool.query(
      `insert into jobs (id, kind, owner_hash, account_id, credential_id, status, input, result, base_url, diagnostics, finished_at) values ($1, $2, $3, $4, 'shopify', 'completed', '{}', '{}', $5, $6, now())`,
      [id, kind === 'tryon' ? 'virtual-fitting' : 'shoe-3d', shopperOwner(SHOP, null), accountOf(SHOP), svc.api, JSON.stringify(kind === 'model3d' ? { reconstruction: { reconstructor: 'tripo' } } : {})],
    );
    if (kind === 'tryon') await svc.fitroom.pool.query(`insert into job_trace (job_id, seq, stage, status, attempt, started_at, ended_at, outcome, detail) values ($1, 1, 'generate', 'processing', 1, now(), now(), 'ok', $2)`, [id, JSON.stringify({ provider: 'fal', model: 'fal-ai/some-tryon' })]);
    return id;
  }

  it('free by default with builtin engines only; subscribe in test mode on a development store; ACTIVE by webhook; one usage record per vendor job; cap reached; cancel', async () => {
    if ((await c.store.getInstall(PLATFORM, SHOP))?.status !== 'installed') await installByExchange();
    const calls = graphql(ADMIN, {
      appSubscription: installation([]),
      FitroomShopPlan: () => ({ data: { shop: { plan: { partnerDevelopment: true } } } }),
      AppSubscriptionCreate: (v) => ({ data: { appSubscriptionCreate: { appSubscription: { ...subscription('PENDING'), name: v.name }, confirmationUrl: 'https://server-shop.myshopify.com/admin/charges/4019585080/confirm_recurring_application_charge?signature=x', userErrors: [] } } }),
    });
    const free = await (await adminFetch('/shopify/api/billing')).json();
    expect(free).toMatchObject({ plan: 'free', usage: { amount: 0, cap: 0, currency: 'USD' } });
    expect(free.plans.map((p: { id: string }) => p.id)).toEqual(['free', 'paid']);
    expect(free.plans[1]).toMatchObject({ price: 19, cappedAmount: 1 });
    expect(free.plans[1].usageTerms).toMatch(/0\.40 USD per AI try-on/);

    // free plan: a storefront try-on is set to the builtin engine
    const job = await shopperJob('9001');
    const input = (await svc.fitroom.pool.query<{ input: any }>('select input from jobs where id = $1', [job])).rows[0].input;
    expect(JSON.stringify(input)).toMatch(/"provider":"builtin"/);

    expect((await adminFetch('/shopify/api/billing/subscribe', { method: 'POST', body: JSON.stringify({ plan: 'gold' }) })).status).toBe(400);
    const sub = await adminFetch('/shopify/api/billing/subscribe', { method: 'POST', body: JSON.stringify({ plan: 'paid' }) });
    const subBody = await sub.json();
    expect(sub.status, JSON.stringify(subBody)).toBe(200);
    expect(subBody.confirmationUrl).toMatch(/confirm_recurring_application_charge/);
    const create = calls.find((x) => x.name === 'AppSubscriptionCreate')!;
    expect(create.vars).toMatchObject({ name: 'Fitroom Paid', test: true, replacementBehavior: 'APPLY_IMMEDIATELY' });
    expect(create.vars.lineItems).toEqual([
      { plan: { appRecurringPricingDetails: { interval: 'EVERY_30_DAYS', price: { amount: 19, currencyCode: 'USD' } } } },
      { plan: { appUsagePricingDetails: { terms: expect.stringMatching(/per AI try-on/), cappedAmount: { amount: 1, currencyCode: 'USD' } } } },
    ]);
    expect((await c.appStore.billing(PLATFORM, SHOP))!.plan).toBe('free');

    // the merchant approved: Shopify says so with app_subscriptions/update
    nock.cleanAll();
    const usage: any[] = [];
    let balance = 0;
    graphql(ADMIN, {
      appSubscription: () => installation([subscription('ACTIVE', balance.toFixed(2))])(),
      FitroomUsageRecord: (v) => {
        usage.push(v);
        balance += Number(v.price.amount);
        return { data: { appUsageRecordCreate: { appUsageRecord: { id: `gid://shopify/AppUsageRecord/${usage.length}`, idempotencyKey: v.idempotencyKey, price: v.price, subscriptionLineItem: { id: v.subscriptionLineItemId, plan: { pricingDetails: { balanceUsed: { amount: balance.toFixed(2), currencyCode: 'USD' }, cappedAmount: { amount: '1.0', currencyCode: 'USD' } } } } }, userErrors: [] } } };
      },
    });
    const active = await webhook('app_subscriptions/update', { app_subscription: { admin_graphql_api_id: 'gid://shopify/AppSubscription/4019585080', name: 'Fitroom Paid', status: 'ACTIVE', admin_graphql_api_shop_id: 'gid://shopify/Shop/1', created_at: new Date().toISOString(), updated_at: new Date().toISOString(), currency: 'USD', capped_amount: '1.0' } });
    expect(active.status).toBe(200);
    expect(active.body).toMatchObject({ plan: 'paid', status: 'ACTIVE' });
    expect(await vendorAllowed(c, SHOP, 'tryon')).toBe('yes');

    // two vendor try-ons: one usage record each, once, whatever the number of runs
    const a = await vendorJob('tryon');
    const b = await vendorJob('tryon');
    await shopperJob('9002'); // builtin: never charged
    await chargeVendorJobs(c, SHOP);
    await chargeVendorJobs(c, SHOP);
    expect(usage.map((u) => u.idempotencyKey).sort()).toEqual([a, b].sort());
    expect(usage[0]).toMatchObject({ subscriptionLineItemId: 'gid://shopify/AppSubscriptionLineItem/1?v=1&index=1', price: { amount: '0.40', currencyCode: 'USD' } });
    const charges = await c.appStore.charges(PLATFORM, SHOP);
    expect(charges.filter((x) => x.status === 'recorded')).toHaveLength(2);

    // a third would pass the 1.00 cap: not sent, recorded as capped; try-ons fall back to builtin
    const third = await vendorJob('tryon');
    await chargeVendorJobs(c, SHOP);
    expect(usage).toHaveLength(2);
    expect((await c.appStore.charges(PLATFORM, SHOP)).find((x) => x.jobId === third)!.status).toBe('capped');
    expect(await vendorAllowed(c, SHOP, 'tryon')).toBe('capped');
    const view = await (await adminFetch('/shopify/api/billing')).json();
    expect(view).toMatchObject({ plan: 'paid', status: 'ACTIVE', usage: { amount: 0.8, cap: 1, currency: 'USD' } });

    // cancel: appSubscriptionCancel, then the free plan
    nock.cleanAll();
    const cancelCalls = graphql(ADMIN, {
      appSubscription: installation([subscription('ACTIVE', '0.80')]),
      appSubscriptionCancel: (v) => ({ data: { appSubscriptionCancel: { appSubscription: { ...subscription('CANCELLED'), id: v.id }, userErrors: [] } } }),
    });
    const cancelled = await adminFetch('/shopify/api/billing/cancel', { method: 'POST' });
    expect(await cancelled.json()).toEqual({ plan: 'free' });
    expect(cancelCalls.find((x) => x.name === 'appSubscriptionCancel')!.vars).toMatchObject({ id: 'gid://shopify/AppSubscription/4019585080', prorate: true });
    expect(await vendorAllowed(c, SHOP, 'tryon')).toBe('free');
  });
});

describe('billing, plan changes from Shopify', () => {
  it('a CANCELLED app_subscriptions/update moves the shop to the free plan; a billing call refused once with 401 is repeated with a renewed token', async () => {
    if ((await c.store.getInstall(PLATFORM, SHOP))?.status !== 'installed') await installByExchange();
    const subId = 'gid://shopify/AppSubscription/555';
    await c.appStore.saveBilling({ platform: PLATFORM, shop: SHOP, plan: 'paid', subscriptionId: subId, status: 'ACTIVE', usageLineItemId: 'gid://shopify/AppSubscriptionLineItem/9', balanceUsed: 0, cappedAmount: 1, currency: 'USD', test: true, since: new Date() });
    // another subscription's update does not touch the shop's plan
    const foreign = await webhook('app_subscriptions/update', { app_subscription: { admin_graphql_api_id: 'gid://shopify/AppSubscription/1', name: 'Fitroom Paid', status: 'CANCELLED', admin_graphql_api_shop_id: 'gid://shopify/Shop/2' } });
    expect(foreign.status).toBe(200);
    expect((await c.appStore.billing(PLATFORM, SHOP))!.plan).toBe('paid');
    const gone = await webhook('app_subscriptions/update', { app_subscription: { admin_graphql_api_id: subId, name: 'Fitroom Paid', status: 'CANCELLED', admin_graphql_api_shop_id: 'gid://shopify/Shop/1' } });
    expect(gone.body).toMatchObject({ plan: 'free', status: 'CANCELLED' });
    expect(await vendorAllowed(c, SHOP, 'model3d')).toBe('free');
    // a malformed subscription body is refused before any work
    expect((await webhook('app_subscriptions/update', { app_subscription: { name: 'x' } })).status).toBe(400);

    const session = await c.offlineSession(SHOP);
    nock(ADMIN).post('/admin/oauth/access_token').reply(200, accessTokenAnswer('shpat_billing_retry', 'shprt_billing_retry'));
    const tokens: (string | null)[] = [];
    nock(ADMIN).persist().post(GRAPHQL).reply(async function (...args: unknown[]) {
      const req = args[0] as Request;
      tokens.push(req.headers.get('x-shopify-access-token'));
      if (tokens.length === 1) return [401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' }];
      return [200, { data: { currentAppInstallation: { activeSubscriptions: [] } } }];
    } as never);
    const r = await adminFetch('/shopify/api/billing');
    expect(r.status).toBe(200);
    expect((await r.json()).plan).toBe('free');
    expect(tokens).toEqual([session.accessToken, 'shpat_billing_retry']);
  });
});

describe('retries and repeated parameters', () => {
  it('the attach job keeps its media row through a failed attempt and attaches on the next one', async () => {
    if ((await c.store.getInstall(PLATFORM, SHOP))?.status !== 'installed') await installByExchange();
    // a generated model: its GLB file and the completed shoe-3d job that names it
    const glb = await c.files.store(new Uint8Array(4096).fill(1), { ownerHash: merchantOwner(SHOP), contentType: 'model/gltf-binary', ttlSeconds: 3600 });
    const jobId = randomUUID();
    await svc.fitroom.pool.query(`insert into jobs (id, kind, owner_hash, account_id, credential_id, status, input, result, base_url, finished_at) values ($1, 'shoe-3d', $2, $3, 'shopify', 'completed', '{}', $4, $5, now())`, [jobId, merchantOwner(SHOP), accountOf(SHOP), JSON.stringify({ glbUrl: `${svc.api}/api/v1/files/${glb.id}` }), svc.api]);
    const rowId = randomUUID();
    await c.store.addMedia({ id: rowId, platform: PLATFORM, shop: SHOP, productId: 'gid://shopify/Product/77', jobId });
    let uploads = 0;
    nock('https://shopify-staged-uploads.storage.googleapis.com').persist().post('/').reply(() => (++uploads === 1 ? [503, 'Service Unavailable'] : [201, '']));
    graphql(ADMIN, {
      FitroomStagedUpload: () => ({ data: { stagedUploadsCreate: { stagedTargets: [{ url: 'https://shopify-staged-uploads.storage.googleapis.com/', resourceUrl: 'https://shopify-staged-uploads.storage.googleapis.com/tmp/77/model.glb', parameters: [{ name: 'key', value: 'tmp/77/model.glb' }] }], userErrors: [] } } }),
      FitroomAttachModel: (v) => ({ data: { productUpdate: { product: { id: v.product.id, media: { nodes: [{ id: 'gid://shopify/Model3d/77', mediaContentType: 'MODEL_3D', status: 'UPLOADED', alt: v.media[0].alt }] } }, userErrors: [] } } }),
      FitroomMediaStatus: () => ({ data: { node: { id: 'gid://shopify/Model3d/77', status: 'READY', mediaErrors: [], sources: [] } } }),
    });
    await c.sweepMedia();
    const row = async () => (await c.store.media({ platform: PLATFORM, shop: SHOP })).find((m) => m.id === rowId)!;
    await expect.poll(async () => ['ready', 'failed'].includes((await row()).status), { timeout: 120_000, interval: 200 }).toBe(true);
    const media = await row();
    expect(media.status, media.error ?? '').toBe('ready');
    expect(uploads).toBe(2);
    const attempts = await svc.fitroom.pool.query<{ attempt: number }>(`select distinct t.attempt from job_trace t join jobs j on j.id = t.job_id where j.kind = 'shopify-attach-3d' and j.input ->> 'mediaRowId' = $1 order by 1`, [rowId]);
    expect(attempts.rows.map((x) => x.attempt)).toEqual([1, 2]);
  });

  it('refuses a repeated query parameter on the app proxy, signed or not, instead of collapsing it', async () => {
    if ((await c.store.getInstall(PLATFORM, SHOP))?.status !== 'installed') await installByExchange();
    const job = await shopperJob('9100');
    const base: [string, string][] = [['shop', SHOP], ['path_prefix', '/apps/fitroom'], ['timestamp', String(Math.floor(Date.now() / 1000))], ['logged_in_customer_id', '9100']];
    const signed = signProxyQuery(SECRET, [...base, ['variant', '2']]);
    const ok = await fetch(`${svc.api}/shopify/proxy/api/v1/jobs/${job}?${signed}`);
    expect(ok.status).toBe(200);
    // the same signed query with a value prepended: collapsing would keep the signed last value
    const repeated = await fetch(`${svc.api}/shopify/proxy/api/v1/jobs/${job}?variant=1&${signed}`);
    expect(repeated.status).toBe(401);
    expect((await repeated.json()).error.message).toMatch(/repeats the query parameter "variant"/);
  });
});
