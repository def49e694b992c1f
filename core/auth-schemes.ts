import { MAX_TOKEN_TTL_SECONDS } from './config.ts';
import type { AuthOutcome, AuthRequest, PluginApi } from './plugin.ts';
import type { ApiKeyRecord } from './ports/credential-store.ts';
import { TOKENS } from './tokens.ts';
import { EX } from './examples.ts';
import { FitroomError } from './errors.ts';
import { callerFromKey, type Caller } from './credentials.ts';
import { AccountTokens, TOKEN_PREFIX, accountCaller, accountOf, storefrontCaller, type TokenType } from './account-tokens.ts';
import { token } from './plugin.ts';
import ipaddr from 'ipaddr.js';
import type { UsageAttributionStore } from './ports/usage-attribution-store.ts';

export const ACCOUNT_TOKENS = token<AccountTokens>('AccountTokens');

const SERVICE_HEADERS = ['x-service-account', 'x-service-usage-account'] as const;

/**
 * The API host's credential schemes (spec, Authentication 1-4):
 * - `apiKey`: a user, service or development key in X-API-Key. With a service key only, an account
 *   token in X-Service-Account (ownership `account:<id>`, AI quota counted; unverifiable → 401
 *   ACCOUNT_TOKEN_INVALID) and a usage token in X-Service-Usage-Account (attribution only; an invalid
 *   one is ignored). Either header with any other credential, or on an operation without this
 *   scheme, is refused (403 CREDENTIAL_NOT_ALLOWED). Tokens sent as X-API-Key are not keys (401).
 * - `storefront`: a `wfs1.` token in X-API-Key, on the operations that list it; elsewhere 403.
 */
export function registerAuthSchemes(api: PluginApi): AccountTokens {
  const credentials = api.get(TOKENS.credentials);
  const tokens = new AccountTokens({ secrets: api.config.tokens.secrets, derivedFrom: api.get(TOKENS.signingSecret), usageHandshakeSecret: api.config.tokens.usageHandshakeSecret, credentials });
  api.provide(ACCOUNT_TOKENS, tokens);
  const attribution = api.has(USAGE_ATTRIBUTION) ? api.get(USAGE_ATTRIBUTION) : null;

  /** The caller of a usable key record, with the service headers applied (they need a service key). */
  const keyCaller = (rec: ApiKeyRecord, req: AuthRequest): AuthOutcome | Promise<AuthOutcome> => {
    const account = req.headers['x-service-account'];
    const usage = req.headers['x-service-usage-account'];
    // a plain key (every poll): answered in this turn
    if (account === undefined && usage === undefined) return { caller: callerFromKey(rec) };
    if (rec.kind !== 'service') throw new FitroomError('CREDENTIAL_NOT_ALLOWED', 'X-Service-Account and X-Service-Usage-Account are accepted only with a service key');
    return serviceCaller(callerFromKey(rec), account, usage);
  };
  const serviceCaller = async (keyed: Caller, account: string | undefined, usage: string | undefined): Promise<AuthOutcome> => {
    let caller = keyed;
    if (account !== undefined) {
      const claims = await tokens.verify('account', account);
      if (!claims) throw new FitroomError('ACCOUNT_TOKEN_INVALID', 'The account token in X-Service-Account cannot be verified (expired, tampered with, or its account key was revoked): discard it, obtain a new one and retry');
      caller = accountCaller(claims);
    }
    if (usage !== undefined) {
      // attribution only: an invalid usage token is ignored, never an error
      const claims = await tokens.verify('usage', usage).catch(() => null);
      if (claims) caller = { ...caller, usageAccountId: claims.acc };
    }
    return { caller };
  };

  api.auth('apiKey', {
    resolve(req) {
      const key = req.headers['x-api-key'];
      if (key === undefined || key.startsWith(TOKEN_PREFIX.storefront)) return undefined;
      if (key.startsWith(TOKEN_PREFIX.account) || key.startsWith(TOKEN_PREFIX.usage)) {
        throw new FitroomError('HTTP_ERROR', `${key.startsWith(TOKEN_PREFIX.account) ? 'An account token goes in X-Service-Account' : 'A usage token goes in X-Service-Usage-Account'}, together with a service key in X-API-Key`);
      }
      // a cached key comes back as the record itself, anything else as a promise (401 when refused)
      const rec = credentials.resolveRecord(key);
      return rec instanceof Promise ? rec.then((r) => keyCaller(r, req)) : keyCaller(rec, req);
    },
    claims: (req) => SERVICE_HEADERS.some((h) => req.headers[h] !== undefined),
    missing: () => new FitroomError('HTTP_ERROR', 'Missing API key: send it in the X-API-Key header'),
    openapi: {
      security: [{ ApiKey: [] }, { ApiKey: [], ServiceAccount: [] }],
      schemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API host (the first server): every /api/v1 operation that lists it. A user, service or development key (`fr_live_…`, from `npx fitroom keys create` or POST /admin/v1/keys); a missing or wrong key answers 401. The AR host does not read this header: send the same key there as `Authorization: Bearer`. Service keys may add `X-Service-Account` (an account token, `wfa1.`) and `X-Service-Usage-Account` (a usage token, `wfu1.`).' },
        ServiceAccount: { type: 'apiKey', in: 'header', name: 'X-Service-Account', description: 'An account token (`wfa1.`), only together with a service key: ownership becomes `account:<accountId>` and the AI quota is counted. Unverifiable: 401 ACCOUNT_TOKEN_INVALID.' },
      },
    },
    onSuccess(caller, op, units) {
      const attributed = caller.usageAccountId && attribution ? caller.usageAccountId : null;
      // most answers (polls, reads) count nothing: no promise to wait for
      if (!op.billable && !attributed) return undefined;
      return (async () => {
        if (op.billable) await credentials.countUsage(caller, units);
        if (attributed) await attribution!.record(attributed, op.id, new Date());
      })();
    },
  });

  api.auth('storefront', {
    async resolve(req) {
      const key = req.headers['x-api-key'];
      if (key === undefined || !key.startsWith(TOKEN_PREFIX.storefront)) return undefined;
      if (SERVICE_HEADERS.some((h) => req.headers[h] !== undefined)) throw new FitroomError('CREDENTIAL_NOT_ALLOWED', 'X-Service-Account and X-Service-Usage-Account are accepted only with a service key');
      const claims = await tokens.verify('storefront', key);
      if (!claims) throw new FitroomError('ACCOUNT_TOKEN_INVALID', 'The storefront token cannot be verified (expired, tampered with, or its key was revoked): obtain a new one from the shop and retry');
      return { caller: storefrontCaller(claims) };
    },
    claims: (req) => req.headers['x-api-key']?.startsWith(TOKEN_PREFIX.storefront) === true,
    missing: () => new FitroomError('HTTP_ERROR', 'Missing storefront token: send it in the X-API-Key header'),
    openapi: {
      security: [{ StorefrontToken: [] }],
      schemes: { StorefrontToken: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A short-lived storefront token (`wfs1.`) from POST /api/v1/storefront/tokens, sent in X-API-Key by storefront pages. Accepted only where this scheme is listed; elsewhere 403 CREDENTIAL_NOT_ALLOWED. A token minted with `forwardsShoppers` (by a service key, held by the merchant\'s server) sends `X-Fitroom-Shopper` (required: a stable shopper id) and `X-Fitroom-Shopper-IP` (optional: the shopper\'s address) with each request: rate limits count per shopper, bot verification uses that address and the pass it mints is bound to that shopper.' } },
    },
  });

  // Operator routes (monitoring) answer only clients on the allowlist; no key is involved.
  const allowed = api.config.operatorAllowlist.map((c) => ipaddr.parseCIDR(c));
  api.auth('ipAllowlist', {
    async resolve(req) {
      let addr: ipaddr.IPv4 | ipaddr.IPv6;
      try {
        addr = ipaddr.process(req.ip);
      } catch {
        return undefined;
      }
      return allowed.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits)) ? { caller: null } : undefined;
    },
    missing: () => new FitroomError('FORBIDDEN', 'This route answers only clients whose address is in MONITORING_ALLOWED_IPS'),
    // no credential: the client's address decides (MONITORING_ALLOWED_IPS)
    openapi: { security: [{}] },
  });

  registerTokenOperations(api, tokens);
  return tokens;
}

export const USAGE_ATTRIBUTION = token<UsageAttributionStore>('UsageAttributionStore');

const TOKEN_TYPES = { storefront: 'storefront', account: 'account', usage: 'usage' } as const;

function registerTokenOperations(api: PluginApi, tokens: AccountTokens) {
  const credentials = api.get(TOKENS.credentials);
  const cfg = api.config.tokens;
  api.schema('MintTokenRequest', {
    type: 'object',
    additionalProperties: false,
    properties: {
      type: { type: 'string', enum: Object.keys(TOKEN_TYPES), default: 'storefront', description: '`storefront` (wfs1., default), `account` (wfa1.) or `usage` (wfu1., needs the X-Usage-Handshake header).' },
      ttlSeconds: { type: 'integer', minimum: 60, maximum: MAX_TOKEN_TTL_SECONDS, description: `Lifetime; default ${cfg.storefrontTtlSeconds} s for storefront tokens (STOREFRONT_TOKEN_TTL_SECONDS), ${cfg.accountTtlSeconds} s for account and usage tokens; never more than ${MAX_TOKEN_TTL_SECONDS} s.` },
      accountId: { type: 'string', minLength: 1, maxLength: 200, description: 'Usage tokens only: the account to attribute. Storefront and account tokens are always for the calling key\'s own account.' },
      forwardsShoppers: { type: 'boolean', default: false, description: 'Storefront tokens minted with a service key only: a token for a merchant\'s server that calls on behalf of its shoppers (a commerce backend\'s store routes). Its requests must name the shopper in `X-Fitroom-Shopper` (1-128 characters `A-Z a-z 0-9 _ . : -`, e.g. `cart_01H…` or `cus_01H…`) and may give the shopper\'s address in `X-Fitroom-Shopper-IP`; rate limits then count per shopper, and bot verification checks that address and binds its pass to that shopper. Never hand such a token to a browser. Any other credential sending those headers gets 403 `CREDENTIAL_NOT_ALLOWED`.' },
    },
  });
  api.schema('MintedToken', {
    type: 'object',
    required: ['success', 'token', 'tokenType', 'accountId', 'expiresAt', 'expiresIn'],
    properties: {
      success: { const: true },
      token: { type: 'string', description: 'The token, shown once. Prefix `wfs1.`, `wfa1.` or `wfu1.`.' },
      tokenType: { type: 'string', enum: Object.keys(TOKEN_TYPES) },
      accountId: { type: 'string', description: 'The account it stands for: the key\'s accountId, or `key:<keyId>` for a key without an account.' },
      expiresAt: { type: 'string', format: 'date-time' },
      expiresIn: { type: 'integer', description: 'Seconds until expiry' },
    },
  });

  api.operation({
    id: 'mintToken',
    method: 'POST',
    path: '/api/v1/storefront/tokens',
    summary: 'Mint a storefront, account or usage token',
    description:
      'Called by a merchant\'s own backend with its user or service key, never from a browser. A **storefront token** (`wfs1.`, default lifetime 15 minutes, at most 1 hour) lets the shop\'s pages call `POST /api/v1/virtual-fitting` and `GET /api/v1/jobs/{jobId}` with `X-API-Key: wfs1.…`; every other operation refuses it with 403 `CREDENTIAL_NOT_ALLOWED`. It counts the account\'s AI quota, not the key\'s usage counter, and owns its jobs as `storefront:<accountId>`, so a re-minted token of the same account still reaches jobs in flight (webhooks of those jobs are signed with the UTF-8 hex SHA-256 of `storefront:<accountId>`). An **account token** (`wfa1.`) is sent in `X-Service-Account` beside a service key: ownership becomes `account:<accountId>` and the AI quota is counted. A **usage token** (`wfu1.`) is sent in `X-Service-Usage-Account` beside a service key for analytics attribution only; minting one needs a service key and the handshake header `X-Usage-Handshake: t=<unix seconds>,sig=<hex HMAC-SHA256 of "<t>.<accountId>" with USAGE_TOKEN_HANDSHAKE_SECRET>` (5-minute window). Tokens are signed with the deployment\'s token secret (key id inside, rotation through TOKEN_SECRETS) and end when the key that minted them is revoked or expires.',
    tags: ['Tokens'],
    auth: ['apiKey'],
    rateLimit: 'submission',
    body: 'MintTokenRequest',
    example: { type: 'storefront', ttlSeconds: 900 },
    maxBodyBytes: 4096,
    responses: {
      201: { description: 'Minted', schema: 'MintedToken', example: { success: true, token: 'wfs1.eyJ0eXAiOiJzdG9yZWZyb250Iiwia2lkIjoiZDEiLCJhY2MiOiJrZXk6Nzc3NWRmODUiLCJrZXkiOiI3Nzc1ZGY4NSIsImlhdCI6MTc5NTU0ODg1NywiZXhwIjoxNzk1NTQ5NzU3LCJuIjoiVXJLeG1kNk8ifQ.cRva6y9yjvSANaYUUV-FwllloaD9hSEYUtz78zhrRvk', tokenType: 'storefront', accountId: `key:${EX.keyId}`, expiresAt: EX.later, expiresIn: 900 } },
      400: { description: 'Invalid request', schema: 'ErrorEnvelope' },
      401: { description: 'Missing or invalid key, or a bad usage handshake', schema: 'ErrorEnvelope' },
      403: { description: 'This key may not mint this token type (CREDENTIAL_NOT_ALLOWED)', schema: 'ErrorEnvelope' },
      503: { description: 'Usage tokens are not configured', schema: 'ErrorEnvelope' },
    },
    async handler(ctx) {
      const b = (ctx.body ?? {}) as { type?: TokenType; ttlSeconds?: number; accountId?: string; forwardsShoppers?: boolean };
      const type = b.type ?? 'storefront';
      const caller = ctx.caller!;
      if (caller.kind !== 'user' && caller.kind !== 'service' && caller.kind !== 'development') throw new FitroomError('CREDENTIAL_NOT_ALLOWED', 'Tokens are minted with an API key, not with another token');
      const rec = await credentials.active(caller.credentialId);
      if (!rec) throw new FitroomError('HTTP_ERROR', 'Invalid API key');
      if (type !== 'usage' && b.accountId !== undefined && b.accountId !== accountOf(rec)) throw new FitroomError('CREDENTIAL_NOT_ALLOWED', 'A key mints storefront and account tokens for its own account only');
      if (type === 'usage') {
        if (rec.kind !== 'service') throw new FitroomError('CREDENTIAL_NOT_ALLOWED', 'Usage tokens are minted with a service key');
        if (!b.accountId) throw new FitroomError('VALIDATION_ERROR', 'The request is invalid', { details: [{ field: 'accountId', message: 'is required for usage tokens' }] });
        tokens.checkHandshake(ctx.headers['x-usage-handshake'], b.accountId);
      }
      if (b.forwardsShoppers && (type !== 'storefront' || rec.kind !== 'service')) throw new FitroomError('CREDENTIAL_NOT_ALLOWED', 'forwardsShoppers is for storefront tokens minted with a service key (a merchant server acting for its shoppers)');
      const ttl = b.ttlSeconds ?? (type === 'storefront' ? cfg.storefrontTtlSeconds : cfg.accountTtlSeconds);
      const minted = tokens.mint(type, rec, ttl, type === 'usage' ? b.accountId : undefined, { forwardsShoppers: b.forwardsShoppers === true });
      return { status: 201, body: { success: true, ...minted }, headers: { 'Cache-Control': 'no-store' } };
    },
  });

  api.schema('AdminAccountTokenRequest', {
    type: 'object',
    additionalProperties: false,
    required: ['accountId'],
    properties: { accountId: { type: 'string', minLength: 1, maxLength: 200 }, ttlSeconds: { type: 'integer', minimum: 60, maximum: 24 * 3600 } },
  });
  api.operation({
    id: 'adminMintAccountToken',
    method: 'POST',
    path: '/admin/v1/account-tokens',
    summary: 'Mint an account token for an account',
    description: 'The operator mints a `wfa1.` token for an account that has at least one usable key (the token ends when that key is revoked). Default lifetime ACCOUNT_TOKEN_TTL_SECONDS (1 hour), at most 24 hours.',
    tags: ['Admin'],
    auth: ['admin'],
    body: 'AdminAccountTokenRequest',
    example: { accountId: 'acme-shop', ttlSeconds: 3600 },
    responses: { 201: { description: 'Minted', schema: 'MintedToken', example: { success: true, token: 'wfa1.eyJ0eXAiOiJhY2NvdW50Iiwia2lkIjoiZDEiLCJhY2MiOiJhY21lLXNob3AifQ.3a9kVnq0yQf5mVQb8o3n2q5QmZk0xF3e1q2T6wVbq7c', tokenType: 'account', accountId: 'acme-shop', expiresAt: EX.later, expiresIn: 3600 } }, 404: { description: 'No usable key belongs to that account', schema: 'ErrorEnvelope' } },
    async handler(ctx) {
      const b = ctx.body as { accountId: string; ttlSeconds?: number };
      const rec = await credentials.activeKeyOfAccount(b.accountId);
      if (!rec) throw new FitroomError('NOT_FOUND', `No usable API key belongs to account ${b.accountId}`);
      const minted = tokens.mint('account', rec, b.ttlSeconds ?? cfg.accountTtlSeconds);
      return { status: 201, body: { success: true, ...minted }, headers: { 'Cache-Control': 'no-store' } };
    },
  });

  api.operation({
    id: 'adminUsageAttribution',
    method: 'GET',
    path: '/admin/v1/usage-attribution',
    summary: 'Successful requests attributed by usage tokens',
    description: 'Counts per attributed account, operation and UTC day, from requests that carried a valid `X-Service-Usage-Account` token. Analytics only.',
    tags: ['Admin'],
    auth: ['admin'],
    query: { accountId: { schema: { type: 'string', minLength: 1, maxLength: 200 } }, since: { schema: { type: 'string', format: 'date' }, description: 'First UTC day (default: 30 days ago)' } },
    responses: {
      200: {
        description: 'Counts, newest day first',
        schema: { type: 'object', required: ['usage'], properties: { usage: { type: 'array', items: { type: 'object', required: ['accountId', 'operationId', 'day', 'count'], properties: { accountId: { type: 'string' }, operationId: { type: 'string' }, day: { type: 'string', format: 'date' }, count: { type: 'integer', minimum: 0 } } } } } },
        example: { usage: [{ accountId: 'acme-shop', operationId: 'createVirtualFitting', day: '2026-11-24', count: 17 }] },
      },
    },
    async handler(ctx) {
      const store = api.has(USAGE_ATTRIBUTION) ? api.get(USAGE_ATTRIBUTION) : null;
      const since = ctx.query.since ?? new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
      return { body: { usage: store ? await store.list({ accountId: ctx.query.accountId, since }) : [] }, headers: { 'Cache-Control': 'no-store' } };
    },
  });
}
