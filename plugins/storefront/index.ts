import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { definePlugin } from '../../core/plugin.ts';
import { TOKENS } from '../../core/tokens.ts';
import { FitroomError } from '../../core/errors.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
/** The widget's version is in its path: a new version is a new URL, so a year of caching is safe. */
export const WIDGET_VERSION = 'v1';
const IMMUTABLE = { 'Cache-Control': 'public, max-age=31536000, immutable', 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' };

/**
 * What a storefront page needs from Fitroom besides its token: the bot-verification challenge and
 * the widget script (with model-viewer for the 3D panel, loaded only when a shopper opens it).
 */
export const storefrontPlugin = definePlugin({
  name: 'storefront',
  setup(api) {
    const bot = api.has(TOKENS.botCheck) ? api.get(TOKENS.botCheck) : null;
    const replay = api.get(TOKENS.challengeReplay);
    const widget = readFileSync(path.join(HERE, 'widget', 'fitroom.js'), 'utf8');
    let modelViewer: string | null = null;

    api.schema('ChallengeResponse', {
      type: 'object',
      required: ['verifier'],
      properties: {
        verifier: { enum: ['altcha', 'turnstile', 'hcaptcha', 'off'], description: 'What the page shows: a proof of work to solve (altcha), a vendor widget, or nothing (verification is off on this deployment).' },
        challenge: { type: 'object', description: 'altcha: `{algorithm, challenge, maxnumber, salt, signature}`. Find the `number` (0..maxnumber) whose SHA-256 of `salt + number` is `challenge`, then send base64(JSON `{algorithm, challenge, number, salt, signature}`) as `X-Challenge-Token`. Expires after 10 minutes; single use.', additionalProperties: true },
        siteKey: { type: 'string', description: 'turnstile / hcaptcha: the site key to render the vendor widget with; its token goes in `X-Challenge-Token`.' },
        script: { type: 'string', description: 'turnstile / hcaptcha: the vendor script to load.' },
        passSeconds: { type: 'integer', description: 'How long the pass cookie a verified request sets stays valid (3600).' },
      },
    });

    api.operation({
      id: 'getChallenge',
      method: 'GET',
      path: '/api/v1/challenge',
      summary: 'A bot-verification challenge for storefront pages',
      description:
        'Browser-protected requests (virtual fitting and job reads with a storefront token; shoe-3d, file upload and clothing try-on from a browser) need a solved challenge in `X-Challenge-Token`, or the `fitroom_pass` cookie that a verified request sets (HttpOnly, bound to the client network, valid one hour from verification, never extended). Protected responses carry `X-Service-Verification-TTL` (seconds left on the pass). Without either: 403 `BOT_VERIFICATION_REQUIRED`. Send storefront requests with `credentials: "include"` so the pass is kept.',
      tags: ['Storefront'],
      auth: ['none'],
      rateLimit: 'status',
      cors: true,
      responses: {
        200: {
          description: 'The challenge, or which vendor widget to show',
          schema: 'ChallengeResponse',
          example: { verifier: 'altcha', challenge: { algorithm: 'SHA-256', challenge: '909bb407799fba9f6b3f6374d3fcb451e7e9b3eee58f14868c725417de4856b1', maxnumber: 100000, salt: '978948451efb36ac509fa41c?expires=1795549457&', signature: 'a5cc828e204e8c1b23110e605c12064b4f88c50dc2fb953af522c41f01e9c517' }, passSeconds: 3600 },
        },
      },
      async handler() {
        if (!bot) return { body: { verifier: 'off' }, headers: { 'Cache-Control': 'no-store' } };
        const c = await bot.verifier.challenge();
        const body = bot.verifier.id === 'altcha' ? { verifier: 'altcha', challenge: c, passSeconds: 3600 } : { verifier: bot.verifier.id, ...c, passSeconds: 3600 };
        return { body, headers: { 'Cache-Control': 'no-store' } };
      },
    });

    api.operation({
      id: 'getWidget',
      method: 'GET',
      path: `/widget/${WIDGET_VERSION}/fitroom.js`,
      summary: 'The storefront widget script',
      description:
        'For product pages: a script element with `src="https://<fitroom>/widget/v1/fitroom.js" data-token-url="/your-backend/fitroom-token" data-size-url="/your-backend/fitroom-size" defer` and elements `<div data-fitroom-tryon data-garment-url="…" data-category="top|bottom|fullBody">`, `<div data-fitroom-size data-product-id="…">`, `<div data-fitroom-3d data-glb-url="…">`. The page holds no key: `data-token-url` is the shop\'s own route that mints a storefront token (POST /api/v1/storefront/tokens). Cacheable for a year: the version is in the path.',
      tags: ['Storefront'],
      auth: ['none'],
      cors: true,
      responses: { 200: { description: 'JavaScript', contentType: 'text/javascript' } },
      handler: async () => ({ text: { contentType: 'text/javascript; charset=utf-8', body: widget }, headers: IMMUTABLE }),
    });

    api.operation({
      id: 'getWidgetModelViewer',
      method: 'GET',
      path: `/widget/${WIDGET_VERSION}/model-viewer.min.js`,
      summary: 'model-viewer for the widget\'s 3D panel',
      description: 'Google\'s model-viewer (Apache-2.0), served by Fitroom so that a product page needs no other host; the widget loads it only when a shopper opens the 3D view.',
      tags: ['Storefront'],
      auth: ['none'],
      cors: true,
      responses: { 200: { description: 'JavaScript', contentType: 'text/javascript' } },
      async handler() {
        try {
          modelViewer ??= readFileSync(require.resolve('@google/model-viewer/dist/model-viewer.min.js'), 'utf8');
        } catch {
          throw new FitroomError('SERVICE_UNAVAILABLE', 'model-viewer is not installed');
        }
        return { text: { contentType: 'text/javascript; charset=utf-8', body: modelViewer }, headers: IMMUTABLE };
      },
    });

    api.cron({ task: 'fitroom_purge_challenges', pattern: '*/15 * * * *', run: async () => void (await replay.purgeExpired(new Date())) });
  },
});
