import type Router from '@koa/router';
import type Koa from 'koa';
import { BillingInterval, BillingReplacementBehavior, type BillingConfig } from '@shopify/shopify-api';
import type { Operation, OperationContext } from '../../core/plugin.ts';
import { FitroomError, validationError } from '../../core/errors.ts';
import type { BillingRecord, UsageCharge } from '../../core/ports/platform-app-store.ts';
import type { BillingSettings } from './settings.ts';
import { PLATFORM, accountOf, type ShopifyConnector } from './shopify.ts';
import { TOKENS } from '../../core/tokens.ts';
import { assertNoUserErrors } from './admin-api.ts';

/**
 * Billing through Shopify's Billing API (shapes of the Admin GraphQL reference for 2026-10:
 * appSubscriptionCreate, appUsageRecordCreate, appSubscriptionCancel, currentAppInstallation
 * { activeSubscriptions }, and the app_subscriptions/update webhook payload; shopify.dev/docs/api/admin-graphql/2026-10
 * and shopify.dev/docs/apps/launch/billing/subscription-billing/create-usage-based-subscriptions).
 *
 * Free plan: builtin engines only (a storefront try-on runs the builtin engine; 3D generation with a
 * vendor reconstructor is refused). Paid plan: a recurring charge every 30 days plus usage charges, one
 * per completed vendor job (AI try-on, vendor 3D model), capped per period. At the cap, try-ons fall back
 * to the builtin engine (uncharged) and vendor 3D generation is refused with QUOTA_EXCEEDED until the
 * period renews or the merchant raises the cap.
 */
export const PAID_PLAN = 'Fitroom Paid';

export function usageTerms(b: BillingSettings): string {
  return `${money(b.tryOn, b.currency)} per AI try-on and ${money(b.model3d, b.currency)} per vendor 3D model, at most ${money(b.cap, b.currency)} per 30 days`;
}
const money = (n: number, currency: string) => `${n.toFixed(2)} ${currency}`;

/** The library's billing configuration (`shopify.billing.request` creates the subscription from it). */
export function billingPlans(b: BillingSettings): BillingConfig {
  return {
    [PAID_PLAN]: {
      replacementBehavior: BillingReplacementBehavior.ApplyImmediately,
      lineItems: [
        { interval: BillingInterval.Every30Days, amount: b.price, currencyCode: b.currency },
        { interval: BillingInterval.Usage, amount: b.cap, currencyCode: b.currency, terms: usageTerms(b) },
      ],
    },
  };
}

// The library's usage-record mutation does not declare $idempotencyKey, so the key it is given is not
// sent; this one does (appUsageRecordCreate(idempotencyKey: String), 2026-10).
export const USAGE_RECORD_CREATE = `mutation FitroomUsageRecord($subscriptionLineItemId: ID!, $price: MoneyInput!, $description: String!, $idempotencyKey: String) {
  appUsageRecordCreate(subscriptionLineItemId: $subscriptionLineItemId, price: $price, description: $description, idempotencyKey: $idempotencyKey) {
    appUsageRecord { id idempotencyKey price { amount currencyCode } subscriptionLineItem { id plan { pricingDetails { ... on AppUsagePricing { balanceUsed { amount currencyCode } cappedAmount { amount currencyCode } } } } } }
    userErrors { field message }
  }
}`;

interface UsageRecordAnswer {
  appUsageRecordCreate: { appUsageRecord: { id: string; subscriptionLineItem: { plan: { pricingDetails: { balanceUsed?: { amount: string } } } } } | null; userErrors: { field: string[] | null; message: string }[] };
}

export const SHOP_PLAN_QUERY = `query FitroomShopPlan { shop { plan { partnerDevelopment } } }`;

const freeRecord = (shop: string, status = 'FREE'): BillingRecord => ({ platform: PLATFORM, shop, plan: 'free', subscriptionId: null, status, usageLineItemId: null, balanceUsed: 0, cappedAmount: null, currency: null, test: false, since: null });

interface Subscription {
  id: string;
  name: string;
  status: string;
  test: boolean;
  createdAt: string;
  lineItems?: { id: string; plan: { pricingDetails: { balanceUsed?: { amount: number | string; currencyCode: string }; cappedAmount?: { amount: number | string; currencyCode: string } } } }[];
}

/** The shop's plan as Shopify reports it now (currentAppInstallation.activeSubscriptions), stored. */
export async function syncBilling(c: ShopifyConnector, shop: string): Promise<BillingRecord> {
  const { activeSubscriptions } = (await c.withSession(shop, (session) => c.shopify.billing.subscriptions({ session }))) as { activeSubscriptions: Subscription[] };
  const prior = await c.appStore.billing(PLATFORM, shop);
  const sub = activeSubscriptions.find((s) => s.name === PAID_PLAN && s.status === 'ACTIVE');
  const rec = sub ? fromSubscription(shop, sub, prior) : freeRecord(shop, prior?.plan === 'paid' ? 'CANCELLED' : (prior?.status ?? 'FREE'));
  // a pending subscription (confirmation not yet accepted) stays visible as pending on the free plan
  if (!sub && prior?.status === 'PENDING') Object.assign(rec, { status: 'PENDING', subscriptionId: prior.subscriptionId });
  await c.appStore.saveBilling(rec);
  return rec;
}

function fromSubscription(shop: string, sub: Subscription, prior: BillingRecord | null): BillingRecord {
  const usage = sub.lineItems?.find((l) => l.plan.pricingDetails.cappedAmount);
  const p = usage?.plan.pricingDetails;
  return {
    platform: PLATFORM,
    shop,
    plan: 'paid',
    subscriptionId: sub.id,
    status: sub.status,
    usageLineItemId: usage?.id ?? null,
    balanceUsed: Number(p?.balanceUsed?.amount ?? 0),
    cappedAmount: p?.cappedAmount ? Number(p.cappedAmount.amount) : null,
    currency: p?.cappedAmount?.currencyCode ?? null,
    test: sub.test,
    since: prior?.subscriptionId === sub.id && prior.since ? prior.since : new Date(sub.createdAt),
  };
}

/** Test charges on development stores (they cannot be charged) or when SHOPIFY_BILLING_TEST=true. */
async function isTestShop(c: ShopifyConnector, shop: string): Promise<boolean> {
  if (c.settings.billing.forceTest) return true;
  const r = await c.admin<{ shop: { plan: { partnerDevelopment: boolean } } }>(shop, SHOP_PLAN_QUERY);
  return r.shop.plan.partnerDevelopment;
}

/** Whether a shop's work may run a vendor engine now: the paid plan, active, below its cap. */
export async function vendorAllowed(c: ShopifyConnector, shop: string, kind: UsageCharge['kind']): Promise<'yes' | 'free' | 'capped'> {
  const b = await c.appStore.billing(PLATFORM, shop);
  if (!b || b.plan !== 'paid' || b.status !== 'ACTIVE') return 'free';
  const price = kind === 'tryon' ? c.settings.billing.tryOn : c.settings.billing.model3d;
  if (b.cappedAmount !== null && b.balanceUsed + price > b.cappedAmount + 1e-9) return 'capped';
  return 'yes';
}

/**
 * A proxied storefront operation under the shop's plan: on the free plan, or at the cap, a request's
 * engine options are set to the builtin engine (no vendor is called, nothing is charged).
 */
export function planGated(c: ShopifyConnector, op: Operation): Operation['handler'] {
  // the try-on is the storefront operation a vendor model may answer
  if (op.path !== '/api/v1/virtual-fitting') return op.handler;
  return async (ctx: OperationContext) => {
    const shop = ctx.caller?.accountId?.startsWith('shopify:') ? ctx.caller.accountId.slice('shopify:'.length) : null;
    const options = (ctx.body as { options?: Record<string, unknown> } | undefined)?.options;
    if (shop && ctx.body && typeof ctx.body === 'object' && (await vendorAllowed(c, shop, 'tryon')) !== 'yes') {
      const rest = { ...(options ?? {}) };
      delete rest.model;
      (ctx.body as Record<string, unknown>).options = { ...rest, provider: 'builtin' };
    }
    return op.handler(ctx);
  };
}

/** Before a merchant's 3D generation: refused when the configured reconstructor is a vendor the plan does not cover. */
export async function assert3dAllowed(c: ShopifyConnector, shop: string): Promise<void> {
  const first = c.api.get(TOKENS.reconstructors)[0];
  if (!first || first.id === 'builtin') return;
  const allowed = await vendorAllowed(c, shop, 'model3d');
  if (allowed === 'free') throw new FitroomError('FORBIDDEN', `3D models on this deployment are made by ${first.id}, which is part of the paid plan: choose it under Billing in the Fitroom app`);
  if (allowed === 'capped') throw new FitroomError('QUOTA_EXCEEDED', 'This period\'s usage cap of the paid plan is reached: 3D models resume when the period renews');
}

/**
 * Usage charges: each completed vendor job of a paid shop (since its plan became active) gets one usage
 * record. Idempotent per job twice over: the charge row (primary key shop + job) and Shopify's
 * idempotencyKey (the job id), so a crash between Shopify's answer and the row's update does not charge twice.
 */
export async function chargeVendorJobs(c: ShopifyConnector, onlyShop?: string): Promise<{ recorded: number; capped: number; failed: number }> {
  const out = { recorded: 0, capped: 0, failed: 0 };
  const shops = onlyShop ? [onlyShop] : await c.appStore.paidShops(PLATFORM);
  for (const shop of shops) {
    let b = await c.appStore.billing(PLATFORM, shop);
    if (!b || b.plan !== 'paid' || b.status !== 'ACTIVE' || !b.usageLineItemId || !b.since) continue;
    for (const job of await c.appStore.unchargedVendorJobs(PLATFORM, shop, accountOf(shop), b.since)) {
      const amount = job.kind === 'tryon' ? c.settings.billing.tryOn : c.settings.billing.model3d;
      const charge = await c.appStore.claimCharge(PLATFORM, shop, { jobId: job.jobId, kind: job.kind, amount });
      if (charge.status === 'recorded' || charge.status === 'capped') continue;
      if (b.cappedAmount !== null && b.balanceUsed + amount > b.cappedAmount + 1e-9) {
        await c.appStore.finishCharge(PLATFORM, shop, job.jobId, { status: 'capped', error: 'the usage cap of the period was reached' });
        out.capped++;
        continue;
      }
      try {
        const r: UsageRecordAnswer = await c.admin<UsageRecordAnswer>(shop, USAGE_RECORD_CREATE, {
          subscriptionLineItemId: b.usageLineItemId,
          price: { amount: amount.toFixed(2), currencyCode: c.settings.billing.currency },
          description: `Fitroom ${job.kind === 'tryon' ? 'AI try-on' : 'vendor 3D model'} (job ${job.jobId})`,
          idempotencyKey: job.jobId,
        });
        const errs: { message: string }[] = r.appUsageRecordCreate.userErrors;
        if (errs.length && errs.some((e: { message: string }) => /cap|exceed|balance/i.test(e.message))) {
          await c.appStore.finishCharge(PLATFORM, shop, job.jobId, { status: 'capped', error: errs.map((e: { message: string }) => e.message).join('; ') });
          b = { ...b, balanceUsed: b.cappedAmount ?? b.balanceUsed };
          await c.appStore.saveBilling(b);
          out.capped++;
          continue;
        }
        assertNoUserErrors('Shopify refused the usage record', r.appUsageRecordCreate);
        const rec: NonNullable<UsageRecordAnswer['appUsageRecordCreate']['appUsageRecord']> = r.appUsageRecordCreate.appUsageRecord!;
        await c.appStore.finishCharge(PLATFORM, shop, job.jobId, { status: 'recorded', usageRecordId: rec.id });
        const used: string | undefined = rec.subscriptionLineItem.plan.pricingDetails.balanceUsed?.amount;
        b = { ...b, balanceUsed: used !== undefined ? Number(used) : b.balanceUsed + amount };
        await c.appStore.saveBilling(b);
        out.recorded++;
      } catch (e) {
        // left failed: the next run tries again with the same idempotency key
        await c.appStore.finishCharge(PLATFORM, shop, job.jobId, { status: 'failed', error: (e as Error).message });
        out.failed++;
      }
    }
  }
  return out;
}

/** app_subscriptions/update: the subscription's new status (payload `app_subscription`), then Shopify's current view. */
export async function subscriptionUpdated(c: ShopifyConnector, shop: string, payload: Record<string, any>): Promise<Record<string, unknown>> {
  const sub = payload.app_subscription as { admin_graphql_api_id?: string; status?: string; name?: string } | undefined;
  if (!sub?.admin_graphql_api_id || !sub.status) throw validationError([{ field: 'app_subscription', message: 'is missing its id or status' }]);
  const prior = await c.appStore.billing(PLATFORM, shop);
  if (sub.status.toUpperCase() !== 'ACTIVE') {
    // a cancelled, declined, expired or frozen subscription: the shop is on the free plan (if it was this one)
    if (prior?.subscriptionId === sub.admin_graphql_api_id) await c.appStore.saveBilling(freeRecord(shop, sub.status.toUpperCase()));
    return { plan: prior?.subscriptionId === sub.admin_graphql_api_id ? 'free' : (prior?.plan ?? 'free'), status: sub.status.toUpperCase() };
  }
  const rec = await syncBilling(c, shop);
  return { plan: rec.plan, status: rec.status };
}

type AdminRoute = (fn: (ctx: Koa.Context, shop: string) => Promise<unknown>) => (ctx: Koa.Context) => Promise<void>;

export function billingView(c: ShopifyConnector, b: BillingRecord) {
  const s = c.settings.billing;
  return {
    plan: b.plan,
    status: b.status,
    usage: { amount: b.plan === 'paid' ? b.balanceUsed : 0, cap: b.plan === 'paid' ? (b.cappedAmount ?? s.cap) : 0, currency: b.currency ?? s.currency },
    plans: [
      { id: 'free', name: 'Free', price: 0, usageTerms: 'Builtin engines only: try-on, size recommendations and 3D models made on this server, no usage charges', cappedAmount: 0 },
      { id: 'paid', name: PAID_PLAN, price: s.price, usageTerms: usageTerms(s), cappedAmount: s.cap },
    ],
  };
}

/** The admin's billing routes (App Bridge session token). */
export function mountBilling(router: Router, c: ShopifyConnector, admin: AdminRoute, readJson: (ctx: Koa.Context) => Promise<unknown>): void {
  router.get('/shopify/api/billing', admin(async (_ctx, shop) => billingView(c, await syncBilling(c, shop))));
  router.post('/shopify/api/billing/subscribe', admin(async (ctx, shop) => {
    const body = (await readJson(ctx)) as { plan?: unknown } | null;
    if (body?.plan !== 'paid') throw validationError([{ field: 'plan', message: body?.plan === 'free' ? 'the free plan needs no subscription: use POST /shopify/api/billing/cancel' : 'must be "paid"' }]);
    const isTest = await isTestShop(c, shop);
    const store = shop.replace(/\.myshopify\.com$/, '');
    const returnUrl = `https://admin.shopify.com/store/${store}/apps/${c.settings.apiKey}`;
    const r = await c.withSession(shop, (session) => c.shopify.billing.request({ session, plan: PAID_PLAN, isTest, returnUrl, returnObject: true })).catch((e: unknown) => {
      const details = (e as { errorData?: { message?: string }[] }).errorData;
      throw new FitroomError('PLATFORM_ERROR', `Shopify refused the subscription: ${Array.isArray(details) && details.length ? details.map((d) => d.message).join('; ') : (e as Error).message}`);
    });
    const prior = await c.appStore.billing(PLATFORM, shop);
    // stays on its plan until Shopify reports the subscription ACTIVE (app_subscriptions/update)
    await c.appStore.saveBilling({ ...(prior ?? freeRecord(shop)), ...(prior?.plan === 'paid' ? {} : { status: 'PENDING', subscriptionId: r.appSubscription?.id ?? null, test: isTest }) });
    return { confirmationUrl: r.confirmationUrl };
  }));
  router.post('/shopify/api/billing/cancel', admin(async (_ctx, shop) => {
    const b = await syncBilling(c, shop);
    if (b.plan === 'paid' && b.subscriptionId) {
      await c.withSession(shop, (session) => c.shopify.billing.cancel({ session, subscriptionId: b.subscriptionId!, prorate: true, isTest: b.test })).catch((e: unknown) => {
        throw new FitroomError('PLATFORM_ERROR', `Shopify did not cancel the subscription: ${(e as Error).message}`);
      });
    }
    await c.appStore.saveBilling(freeRecord(shop, 'CANCELLED'));
    return { plan: 'free' };
  }));
}
