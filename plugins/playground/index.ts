import { notFound } from '../../core/errors.ts';
import { definePlugin } from '../../core/plugin.ts';
import { playgroundAsset, PLAYGROUND_HEADERS, renderPlaygroundPage } from './page.ts';

/**
 * The playground at /playground on the API host: a page that calls the API the way a client does
 * (the key stays in the tab's session storage), shows the stages, the result, the trace and the
 * equivalent curl command. It holds no state and needs nothing on the server but its files.
 */
export const playgroundPlugin = definePlugin({
  name: 'playground',
  setup(api) {
    api.operation({
      id: 'playgroundPage',
      method: 'GET',
      path: '/playground',
      summary: 'Playground page',
      description:
        'Try digital twin, size fitting, virtual fitting and shoe-3d in a browser: paste a key (kept in the tab\'s session storage only), drop images, submit, watch the stages, see the result image or 3D model, the trace timeline and the equivalent curl command. Same-origin requests from the page pass the builtin bot check (it solves the proof of work) like the storefront widget.',
      tags: ['Playground'],
      auth: ['none'],
      rateLimit: 'status',
      responses: { 200: { description: 'HTML page', contentType: 'text/html', example: '<!doctype html>…' } },
      async handler() {
        return { text: { contentType: 'text/html; charset=utf-8', body: renderPlaygroundPage() }, headers: PLAYGROUND_HEADERS };
      },
    });

    api.operation({
      id: 'playgroundAsset',
      method: 'GET',
      path: '/playground/assets/{name}',
      summary: 'Scripts and styles of the playground page',
      tags: ['Playground'],
      auth: ['none'],
      hidden: true,
      params: { name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' } },
      responses: { 200: { description: 'The asset' }, 404: { description: 'Unknown asset', schema: 'ErrorEnvelope' } },
      async handler(ctx) {
        const a = playgroundAsset(ctx.params.name);
        if (!a) throw notFound(`No asset ${ctx.params.name}`);
        return { file: { contentType: a.type, bytes: a.bytes }, headers: { 'Cache-Control': 'public, max-age=3600' } };
      },
    });
  },
});
