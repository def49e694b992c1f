import { randomBytes, randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import { definePlugin, type PluginApi } from '../../core/plugin.ts';
import { FitroomError, notFound, validationError, type ErrorDetail } from '../../core/errors.ts';
import { FOOT_MEASUREMENT_STORE, type FootDimensions, type FootScan, type FootMeasurementStore } from '../../core/ports/foot-measurement-store.ts';
import { ref } from '../../core/schemas.ts';
import { recommendSizes } from './shoe-sizes.ts';
import { EX } from '../../core/examples.ts';

const CLIENT_ID = /^fc_[A-Za-z0-9]{24}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `fc_` and 24 random letters and digits (about 143 bits), unbiased: bytes of 248 and above are skipped. */
function newClientId(): string {
  let s = '';
  while (s.length < 24) for (const b of randomBytes(32)) if (b < 248 && s.length < 24) s += ALPHABET[b % 62];
  return `fc_${s}`;
}

function safeEqual(a: string, b: string): boolean {
  // hashes first: equal lengths, so the comparison time says nothing about the secret's length
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

const FOOT = {
  type: 'object',
  additionalProperties: false,
  required: ['lengthMm', 'widthMm'],
  properties: {
    lengthMm: { type: 'number', minimum: 80, maximum: 400, description: 'Heel to the most prominent toe, mm' },
    widthMm: { type: 'number', minimum: 30, maximum: 180, description: 'Widest part of the forefoot, mm' },
    girthMm: { type: 'number', minimum: 100, maximum: 450, description: 'Ball girth, mm (optional)' },
  },
};

const SIZES = {
  type: 'object',
  required: ['eu', 'uk', 'usMen', 'usWomen', 'mondopoint'],
  properties: { eu: { type: 'number' }, uk: { type: 'number' }, usMen: { type: 'number' }, usWomen: { type: 'number' }, mondopoint: { type: 'string', description: 'ISO 9407 marking length/width in mm, e.g. 270/103' } },
};

function registerSchemas(api: PluginApi) {
  api.schema('FootDimensions', FOOT);
  api.schema('FootMeasurementRequest', {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      left: ref('FootDimensions'),
      right: ref('FootDimensions'),
      device: {
        type: 'object',
        maxProperties: 20,
        description: "The SDK's device information (platform, model, OS, SDK version, camera...): short strings, numbers or booleans.",
        additionalProperties: { oneOf: [{ type: 'string', maxLength: 200 }, { type: 'number' }, { type: 'boolean' }] },
        propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_]{0,39}$' },
      },
    },
  });
  api.schema('ShoeSizes', SIZES);
  api.schema('RecommendedShoeSizes', {
    type: 'object',
    required: ['basis', 'footLengthMm', 'footWidthMm', 'eu', 'uk', 'usMen', 'usWomen', 'mondopoint', 'perFoot', 'source'],
    properties: {
      basis: { enum: ['left', 'right'], description: 'The foot the pair is sized for (the longer one)' },
      footLengthMm: { type: 'number' },
      footWidthMm: { type: 'number' },
      ...SIZES.properties,
      perFoot: { type: 'object', properties: { left: ref('ShoeSizes'), right: ref('ShoeSizes') } },
      source: { type: 'string', description: 'The conversion used and where it comes from' },
    },
  });
  api.schema('FootScan', {
    type: 'object',
    required: ['id', 'clientId', 'feet', 'device', 'recommended', 'createdAt', 'expiresAt'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      clientId: { type: 'string' },
      feet: { type: 'object', properties: { left: ref('FootDimensions'), right: ref('FootDimensions') } },
      device: { type: ['object', 'null'] },
      recommended: ref('RecommendedShoeSizes'),
      createdAt: { type: 'string', format: 'date-time' },
      expiresAt: { type: 'string', format: 'date-time' },
    },
  });
  api.schema('FootClient', {
    type: 'object',
    required: ['clientId', 'name', 'createdAt', 'revokedAt'],
    properties: { clientId: { type: 'string', pattern: CLIENT_ID.source }, name: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' }, revokedAt: { type: ['string', 'null'], format: 'date-time' } },
  });
  api.schema('FootClientRequest', { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 200 } } });
}

const CLIENT = 'fc_3Yq8VnR2kXw7PzL0aT5mJc1B';
const CLIENT_EXAMPLE = { clientId: CLIENT, name: 'Acme foot-scan app', createdAt: EX.time, revokedAt: null };
const SCAN_EXAMPLE = { id: '3f0e7c52-6a1b-4b8e-9d0c-2e5f4a1b7c93', clientId: CLIENT, feet: { left: { lengthMm: 262, widthMm: 98 }, right: { lengthMm: 265, widthMm: 99 } }, device: { platform: 'ios', model: 'iPhone15,2', sdkVersion: '2.3.0' }, recommended: { basis: 'right', footLengthMm: 265, footWidthMm: 99, eu: 42, uk: 8, usMen: 9, usWomen: 10.5, mondopoint: '265/99', perFoot: { left: { eu: 41.5, uk: 7.5, usMen: 8.5, usWomen: 10, mondopoint: '262/98' }, right: { eu: 42, uk: 8, usMen: 9, usWomen: 10.5, mondopoint: '265/99' } }, source: 'Last = foot + 2 size units; EU = 1.5 × last (cm), UK = 3 × last (in) − 25, US men = UK + 1, US women = US men + 1.5 (Wikipedia, Shoe size)' }, createdAt: EX.time, expiresAt: '2027-02-22T19:19:05.332Z' };

const scanView = (s: FootScan) => ({ id: s.id, clientId: s.clientId, feet: s.feet, device: s.device, recommended: s.sizes, createdAt: s.createdAt.toISOString(), expiresAt: s.expiresAt.toISOString() });

/** The two schemes: the SDK's public client id, and the foot team's admin secret. */
function registerSchemes(api: PluginApi, store: FootMeasurementStore) {
  api.auth('clientId', {
    async resolve(req) {
      const id = req.headers['x-client-id'];
      if (id === undefined) return undefined;
      const c = CLIENT_ID.test(id) ? await store.client(id) : null;
      if (!c || c.revokedAt) throw new FitroomError('HTTP_ERROR', 'Unknown or revoked client id in X-Client-Id');
      return { caller: null };
    },
    missing: () => new FitroomError('HTTP_ERROR', 'Missing client id: send it in the X-Client-Id header'),
    openapi: {
      security: [{ ClientId: [] }],
      schemes: { ClientId: { type: 'apiKey', in: 'header', name: 'X-Client-Id', description: 'The foot-scan SDK\'s public client id (from POST /admin/v1/foot/clients); unknown or revoked: 401.' } },
    },
  });
  api.auth('footAdmin', {
    async resolve(req) {
      const secret = api.config.footAdminKey;
      if (!secret) throw new FitroomError('ADMIN_NOT_CONFIGURED', 'The foot-measurement admin routes are disabled: set FOOT_ADMIN_KEY on this deployment');
      const given = req.headers['x-admin-key'];
      if (given === undefined) return undefined;
      if (!safeEqual(given, secret)) throw new FitroomError('HTTP_ERROR', 'Invalid admin key for the foot-measurement routes');
      return { caller: null };
    },
    missing: () => new FitroomError('HTTP_ERROR', 'Missing admin key: send FOOT_ADMIN_KEY in the X-Admin-Key header'),
    openapi: {
      security: [{ FootAdminKey: [] }],
      schemes: { FootAdminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-Key', description: 'The foot team\'s admin secret (FOOT_ADMIN_KEY; the routes answer 503 ADMIN_NOT_CONFIGURED without it). Not the operator\'s ADMIN_KEY.' } },
    },
  });
}

/** Rules a schema cannot say: a foot's width is less than its length. */
function checkFeet(feet: { left?: FootDimensions; right?: FootDimensions }) {
  const details: ErrorDetail[] = [];
  if (!feet.left && !feet.right) details.push({ field: 'left', message: 'at least one foot (left or right) is required' });
  for (const side of ['left', 'right'] as const) {
    const f = feet[side];
    if (f && f.widthMm >= f.lengthMm * 0.7) details.push({ field: `${side}.widthMm`, message: 'must be less than 70 % of lengthMm' });
  }
  if (details.length) throw validationError(details);
}

/**
 * Foot measurements (issue 12.5): the foot-scan SDK stores scans with a public client id and gets
 * recommended shoe sizes; the foot team reads and deletes scans with FOOT_ADMIN_KEY; the operator
 * creates client ids through the admin API. Scans expire after FOOT_SCAN_RETENTION_DAYS.
 */
export const footMeasurementsPlugin = definePlugin({
  name: 'foot-measurements',
  setup(api) {
    const store = api.get(FOOT_MEASUREMENT_STORE);
    const retentionDays = api.config.footScanRetentionDays;
    registerSchemas(api);
    registerSchemes(api, store);
    api.cron({ task: 'fitroom_purge_foot_scans', pattern: '41 * * * *', run: async () => void (await store.purgeExpired(new Date())) });
    const ADMIN_ERRORS = {
      401: { description: 'Missing or wrong X-Admin-Key', schema: 'ErrorEnvelope' },
      503: { description: 'FOOT_ADMIN_KEY is not set (ADMIN_NOT_CONFIGURED)', schema: 'ErrorEnvelope' },
    };

    api.operation({
      id: 'createFootMeasurement',
      method: 'POST',
      path: '/api/v1/foot-measurements',
      summary: 'Store a foot scan and get shoe sizes',
      description: `Called by the foot-scan SDK with its public client id in \`X-Client-Id\` (no API key; client ids are created with \`POST /admin/v1/foot-clients\`). One or both feet: length and width in mm, optional girth, and the device information. Answers the recommended sizes for the pair (sized for the longer foot) and per foot: EU, UK, US men and women, and Mondopoint per ISO 9407. Conversion: ${'last = foot + 2 size units; EU = 1.5 × last (cm), UK = 3 × last (in) − 25, US men = UK + 1, US women = US men + 1.5 (Wikipedia, "Shoe size"); sizes rounded up'}. The scan is kept ${retentionDays} days (FOOT_SCAN_RETENTION_DAYS), then deleted. Rate limit per client address.`,
      tags: ['Foot measurements'],
      auth: ['clientId'],
      rateLimit: 'submission',
      cors: true,
      body: 'FootMeasurementRequest',
      example: { left: { lengthMm: 262, widthMm: 98 }, right: { lengthMm: 265, widthMm: 99 }, device: { platform: 'ios', model: 'iPhone15,2', sdkVersion: '2.3.0' } },
      maxBodyBytes: 16 * 1024,
      responses: {
        201: { description: 'Stored', schema: 'FootScan', example: SCAN_EXAMPLE },
        400: { description: 'Invalid measurements', schema: 'ErrorEnvelope' },
        401: { description: 'Missing, unknown or revoked X-Client-Id', schema: 'ErrorEnvelope' },
        429: { description: 'Rate limited', schema: 'ErrorEnvelope' },
      },
      async handler(ctx) {
        const b = ctx.body as { left?: FootDimensions; right?: FootDimensions; device?: Record<string, unknown> };
        const feet = { ...(b.left ? { left: b.left } : {}), ...(b.right ? { right: b.right } : {}) };
        checkFeet(feet);
        const now = new Date();
        const scan: FootScan = { id: randomUUID(), clientId: ctx.headers['x-client-id']!, feet, device: b.device ?? null, sizes: recommendSizes(feet), createdAt: now, expiresAt: new Date(now.getTime() + retentionDays * 86_400_000) };
        await store.saveScan(scan);
        return { status: 201, body: scanView(scan), headers: { 'Cache-Control': 'no-store' } };
      },
    });

    api.operation({
      id: 'listRecentFootMeasurements',
      method: 'GET',
      path: '/api/v1/foot-measurements/recent',
      summary: 'Recent foot scans',
      description: 'Newest first, unexpired scans only. `X-Admin-Key` with the dedicated secret FOOT_ADMIN_KEY (not ADMIN_KEY).',
      tags: ['Foot measurements'],
      auth: ['footAdmin'],
      query: {
        limit: { schema: { type: 'string', pattern: '^[0-9]{1,3}$' }, description: 'How many, 1 to 200 (default 50)' },
        clientId: { schema: { type: 'string', pattern: CLIENT_ID.source }, description: 'Only the scans of this client id' },
      },
      responses: { 200: { description: 'The scans', schema: { type: 'object', required: ['scans'], properties: { scans: { type: 'array', items: ref('FootScan') } } }, example: { scans: [SCAN_EXAMPLE] } }, 400: { description: 'Invalid query', schema: 'ErrorEnvelope' }, ...ADMIN_ERRORS },
      async handler(ctx) {
        const limit = ctx.query.limit === undefined ? 50 : Number(ctx.query.limit);
        if (limit < 1 || limit > 200) throw validationError([{ field: 'limit', message: 'must be from 1 to 200' }]);
        const scans = await store.recent({ limit, clientId: ctx.query.clientId, now: new Date() });
        return { body: { scans: scans.map(scanView) }, headers: { 'Cache-Control': 'no-store' } };
      },
    });

    api.operation({
      id: 'deleteFootMeasurement',
      method: 'DELETE',
      path: '/api/v1/foot-measurements/{id}',
      summary: 'Delete a foot scan',
      description: '`X-Admin-Key` with FOOT_ADMIN_KEY. 404 when no unexpired scan has this id.',
      tags: ['Foot measurements'],
      auth: ['footAdmin'],
      params: { id: { type: 'string', format: 'uuid' } },
      responses: { 204: { description: 'Deleted' }, 404: { description: 'No such scan', schema: 'ErrorEnvelope' }, ...ADMIN_ERRORS },
      async handler(ctx) {
        if (!(await store.deleteScan(ctx.params.id, new Date()))) throw notFound(`No foot scan ${ctx.params.id}`);
        return { status: 204 };
      },
    });

    const clientView = (c: { id: string; name: string; createdAt: Date; revokedAt: Date | null }) => ({ clientId: c.id, name: c.name, createdAt: c.createdAt.toISOString(), revokedAt: c.revokedAt?.toISOString() ?? null });
    api.operation({
      id: 'adminCreateFootClient',
      method: 'POST',
      path: '/admin/v1/foot-clients',
      summary: 'Create a foot-scan SDK client id',
      description: 'The operator creates a public client id (`fc_…`) for an integration of the foot-scan SDK. It is not a secret: it names the integration and can be revoked.',
      tags: ['Admin'],
      auth: ['admin'],
      body: 'FootClientRequest',
      example: { name: 'Acme foot-scan app' },
      responses: { 201: { description: 'Created', schema: 'FootClient', example: CLIENT_EXAMPLE } },
      async handler(ctx) {
        return { status: 201, body: clientView(await store.createClient({ id: newClientId(), name: (ctx.body as { name: string }).name })) };
      },
    });
    api.operation({
      id: 'adminListFootClients',
      method: 'GET',
      path: '/admin/v1/foot-clients',
      summary: 'Foot-scan SDK client ids',
      tags: ['Admin'],
      auth: ['admin'],
      responses: { 200: { description: 'Newest first', schema: { type: 'object', properties: { clients: { type: 'array', items: ref('FootClient') } } }, example: { clients: [CLIENT_EXAMPLE] } } },
      async handler() {
        return { body: { clients: (await store.listClients()).map(clientView) } };
      },
    });
    api.operation({
      id: 'adminRevokeFootClient',
      method: 'DELETE',
      path: '/admin/v1/foot-clients/{clientId}',
      summary: 'Revoke a foot-scan SDK client id',
      description: 'Its scans stay until they expire; new scans with it answer 401.',
      tags: ['Admin'],
      auth: ['admin'],
      params: { clientId: { type: 'string', pattern: CLIENT_ID.source } },
      responses: { 204: { description: 'Revoked' }, 404: { description: 'Unknown or already revoked', schema: 'ErrorEnvelope' } },
      async handler(ctx) {
        if (!(await store.revokeClient(ctx.params.clientId, new Date()))) throw notFound(`No active client id ${ctx.params.clientId}`);
        return { status: 204 };
      },
    });
  },
});
