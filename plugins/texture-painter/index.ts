import { definePlugin } from '../../core/plugin.ts';
import { TOKENS } from '../../core/tokens.ts';
import { notFound } from '../../core/errors.ts';
import { CPU_POOL } from '../../core/ports/cpu-pool.ts';
import { LIMITS, TextureEnhancer, type EnhanceRequest } from './enhance.ts';
import { painterAsset, painterHeaders, renderPainterPage } from './page.ts';
import { EX } from '../../core/examples.ts';

const DATA_URL_IMAGE = (what: string, maxBytes: number) => ({
  type: 'string',
  minLength: 22,
  maxLength: Math.ceil((maxBytes * 4) / 3) + 32,
  pattern: '^data:image/(png|jpeg|webp);base64,',
  'x-pattern-message': 'must be a data URL: data:image/png;base64,… (png, jpeg or webp)',
  description: `${what} as a base64 data URL (PNG, JPEG or WebP; at most ${maxBytes / 1048576} MiB decoded and ${LIMITS.maxSide}x${LIMITS.maxSide} pixels). URLs are not fetched.`,
});

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The texture painter (issue 12.3): an anonymous enhancement route with per-address rate limits and
 * strict caps, and the browser page that paints on a model's texture and calls it.
 */
export const texturePainterPlugin = definePlugin({
  name: 'texture-painter',
  setup(api) {
    const enhancer = new TextureEnhancer({
      codec: api.get(TOKENS.imageCodec),
      pool: api.get(CPU_POOL),
      providers: () => api.get(TOKENS.imageModels),
      chain: api.config.ai.modelChain,
    });

    api.schema('TextureEnhanceRequest', {
      type: 'object',
      additionalProperties: false,
      required: ['texture', 'mask'],
      properties: {
        texture: DATA_URL_IMAGE('The base colour texture with the paint on it', LIMITS.maxTextureBytes),
        mask: DATA_URL_IMAGE('The painted region, same size as the texture: white opaque pixels are painted, black or transparent ones are not', LIMITS.maxMaskBytes),
        prompt: { type: 'string', maxLength: 500, description: 'What the paint should become (vendor image models only; the builtin engine does not read it).' },
        mode: { enum: ['blend', 'inpaint'], default: 'blend', description: '`blend`: keep the painted colours and give them the grain of the surrounding material; `inpaint`: replace the painted region by the material around it.' },
        wrap: { enum: ['none', 'x', 'y', 'xy'], default: 'none', description: 'Texture edges that continue on the opposite edge (tiling textures, cylindrical UV layouts): the seam is then treated as inside the material.' },
        detail: { type: 'number', minimum: 0, maximum: 2, default: 1, description: 'Strength of the transferred detail (builtin engine): 0 none, 1 as in the surroundings, 2 double.' },
      },
    });
    api.schema('TextureEnhanceResult', {
      type: 'object',
      required: ['success', 'texture', 'width', 'height', 'mode', 'wrap', 'regions', 'paintedPixels', 'engine'],
      properties: {
        success: { const: true },
        texture: { type: 'string', description: 'The enhanced texture, data:image/png;base64,…, same size as the input. Pixels outside the painted region and its 3 px seam band are unchanged.' },
        width: { type: 'integer' },
        height: { type: 'integer' },
        mode: { enum: ['blend', 'inpaint'] },
        wrap: { enum: ['none', 'x', 'y', 'xy'] },
        regions: { type: 'integer', description: 'Painted regions processed by the builtin engine (strokes closer than 2 px are one); 0 for a vendor model' },
        paintedPixels: { type: 'integer' },
        engine: {
          type: 'object',
          required: ['provider', 'model'],
          properties: { provider: { type: 'string', description: '`builtin`, or the vendor (gemini, fal) when an image model is configured' }, model: { type: ['string', 'null'] }, fallbackReason: { type: 'string', description: 'Why the vendor models were passed over (the builtin engine answered)' } },
        },
      },
    });

    api.operation({
      id: 'enhanceTexture',
      method: 'POST',
      path: '/api/v1/texture-painter/enhance',
      summary: 'Enhance a painted texture',
      description:
        `No authentication (spec): rate-limited per client address (submission limit) and strictly capped: textures up to ${LIMITS.maxSide}x${LIMITS.maxSide} pixels and ${LIMITS.maxTextureBytes / 1048576} MiB, a mask of the same size marking at most ${LIMITS.maxPaintedPixels} pixels, a body up to ${LIMITS.maxBodyBytes / 1048576} MiB (413 beyond), ${LIMITS.concurrent} enhancements at once per process with ${LIMITS.maxWaiting} waiting (503 beyond). ` +
        'The builtin engine (deterministic, CPU): the texture splits into a smooth base and its detail; each painted region takes its detail from the offset whose surroundings match its own surroundings best; `blend` keeps the painted colour and adds that detail, `inpaint` rebuilds the base from the surroundings (pull-push) and adds it; a 3 px seam band fades the result into the texture, across wrapped edges too. When a vendor image model is configured (GEMINI_API_KEY, FAL_KEY; FITROOM_MODEL_CHAIN), it is asked first through the model chain with the texture, the mask and the prompt, and only its pixels inside the painted region are kept; if every vendor fails, the builtin engine answers and `engine.fallbackReason` says why.',
      tags: ['Texture painter'],
      auth: ['none'],
      rateLimit: 'submission',
      anonymousLimit: { perMinute: LIMITS.perAddressPerMinute, concurrent: LIMITS.concurrent + LIMITS.maxWaiting, perAddressConcurrent: LIMITS.perAddressConcurrent },
      body: 'TextureEnhanceRequest',
      // the texture's megabytes of base64 are decoded on a pool thread as the body is parsed, never a string on the event loop
      dataUrlsAsBytes: true,
      example: { texture: EX.png, mask: EX.png, mode: 'blend', wrap: 'x', detail: 1 },
      maxBodyBytes: LIMITS.maxBodyBytes,
      responses: {
        200: { description: 'The enhanced texture', schema: 'TextureEnhanceResult', example: { success: true, texture: EX.png, width: 1, height: 1, mode: 'blend', wrap: 'x', regions: 1, paintedPixels: 1, engine: { provider: 'builtin', model: null } } },
        400: { description: 'Invalid images or mask (VALIDATION_ERROR)', schema: 'ErrorEnvelope' },
        413: { description: 'Body, texture or painted region over the caps (PAYLOAD_TOO_LARGE)', schema: 'ErrorEnvelope' },
        429: { description: 'Rate limited per client address', schema: 'ErrorEnvelope' },
        503: { description: 'Too many enhancements running', schema: 'ErrorEnvelope' },
      },
      async handler(ctx) {
        const t0 = performance.now();
        const signal = AbortSignal.timeout(LIMITS.vendorTimeoutMs * 2);
        // decoding, the engine and the answer's JSON bytes (a data URL of up to 9 MB) all run on a pool thread
        const bytes = await enhancer.enhance(ctx.body as EnhanceRequest, signal);
        return {
          file: { contentType: 'application/json; charset=utf-8', bytes },
          headers: { 'Cache-Control': 'no-store', 'Server-Timing': `enhance;dur=${Math.round(performance.now() - t0)}` },
        };
      },
    });

    api.operation({
      id: 'texturePainterPage',
      method: 'GET',
      path: '/texture-painter',
      summary: 'Texture painter page',
      description: 'Paints onto a model\'s base colour texture: model-viewer shows the model (`glb`: an absolute http(s) URL the browser loads; the server never fetches it), a canvas holds the texture, strokes show on the model at once, and Enhance calls `POST /api/v1/texture-painter/enhance`. A model without a texture starts from its material colour.',
      tags: ['Texture painter'],
      auth: ['none'],
      rateLimit: 'status',
      query: { glb: { schema: { type: 'string', maxLength: 2000 }, required: true, description: 'Absolute http(s) URL of the GLB' } },
      responses: { 200: { description: 'HTML page', contentType: 'text/html' }, 400: { description: 'Missing or invalid glb', schema: 'ErrorEnvelope' } },
      async handler(ctx) {
        let glb: URL | null;
        try {
          glb = new URL(ctx.query.glb);
        } catch {
          glb = null;
        }
        if (!glb || (glb.protocol !== 'https:' && glb.protocol !== 'http:')) {
          return { status: 400, text: { contentType: 'text/html; charset=utf-8', body: `<!doctype html><meta charset="utf-8"><title>Texture painter</title><h1>Invalid model URL</h1><p>glb must be an absolute http(s) URL of a GLB file, got "${escapeHtml(ctx.query.glb)}".</p>` }, headers: painterHeaders(null) };
        }
        return { text: { contentType: 'text/html; charset=utf-8', body: renderPainterPage({ glb: glb.href, limits: { maxSide: LIMITS.maxSide, maxPaintedPixels: LIMITS.maxPaintedPixels } }) }, headers: painterHeaders(glb.origin) };
      },
    });

    api.operation({
      id: 'texturePainterAsset',
      method: 'GET',
      path: '/texture-painter/assets/{name}',
      summary: 'Scripts and styles of the texture painter page',
      tags: ['Texture painter'],
      auth: ['none'],
      hidden: true,
      params: { name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' } },
      responses: { 200: { description: 'The asset' }, 404: { description: 'Unknown asset', schema: 'ErrorEnvelope' } },
      async handler(ctx) {
        const a = painterAsset(ctx.params.name);
        if (!a) throw notFound(`No asset ${ctx.params.name}`);
        return { file: { contentType: a.type, bytes: a.bytes }, headers: { 'Cache-Control': 'public, max-age=3600' } };
      },
    });
  },
});
