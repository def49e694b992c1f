import { validationError } from '../../core/errors.ts';
import type { ArRouteDeps } from './context.ts';
import { unauthorized } from './ar-auth.ts';
import { SESSION_COOKIE } from './session-token.ts';
import { AR_EXAMPLES } from './examples.ts';

const ERR = (description: string) => ({ description, schema: 'ErrorEnvelope' });

function cookie(value: string, maxAge: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/**
 * Dashboard sessions on the AR host. The dashboard (with the admin key) mints a signed session
 * for a user; the user's browser opens the returned login URL on the AR host, which checks the
 * token and sets it as an HttpOnly cookie; later requests from the pages carry the cookie.
 */
export function registerSessionRoutes(deps: ArRouteDeps): void {
  const { api, sessions } = deps;

  api.operation({
    id: 'adminCreateArSession',
    method: 'POST',
    path: '/admin/v1/ar/sessions',
    summary: 'Sign a user in to the AR host',
    description: 'Returns a session token (usable as `Authorization: Bearer` on the AR host) and a login URL that sets it as the dashboard session cookie.',
    tags: ['Admin'],
    auth: ['admin'],
    body: 'ArSessionRequest',
    example: { userId: 'editor-1', ttlSeconds: 43200 },
    responses: { 201: { description: 'A signed session', schema: 'ArSession', example: AR_EXAMPLES.session }, 503: ERR('ADMIN_KEY is not configured') },
    async handler(ctx) {
      const b = ctx.body as { userId: string; group?: string | null; admin?: boolean; ttlSeconds?: number };
      const { token, session } = sessions.sign({ userId: b.userId, group: b.group ?? null, admin: b.admin ?? false }, b.ttlSeconds ?? 43_200);
      const ar = api.config.arPublicUrl;
      return {
        status: 201,
        body: { token, expiresAt: new Date(session.exp * 1000).toISOString(), cookieName: SESSION_COOKIE, ...(ar ? { loginUrl: `${ar}/tryon/login?token=${encodeURIComponent(token)}` } : {}) },
        headers: { 'Cache-Control': 'no-store' },
      };
    },
  });

  api.operation({
    id: 'arLogin',
    method: 'GET',
    path: '/tryon/login',
    host: 'ar',
    summary: 'Set the dashboard session cookie',
    description: '`token`: a session token from POST /admin/v1/ar/sessions; `next`: a path on this host to continue to (default /tryon/app).',
    tags: ['AR host'],
    auth: ['none'],
    rateLimit: 'status',
    hidden: true,
    query: { token: { schema: { type: 'string', maxLength: 4096 }, required: true }, next: { schema: { type: 'string', maxLength: 2000 } } },
    responses: { 303: { description: 'Cookie set' }, 401: ERR('Invalid or expired session token') },
    async handler(ctx) {
      const s = sessions.verify(ctx.query.token);
      if (!s) throw unauthorized('The session token is invalid or has expired');
      const next = ctx.query.next ?? '/tryon/app';
      // only paths on this host: no scheme, no protocol-relative //host, no backslashes
      if (!/^\/(?![/\\])[^\\]*$/.test(next)) throw validationError([{ field: 'next', message: 'must be a path on this host' }]);
      const maxAge = Math.max(0, s.exp - Math.floor(Date.now() / 1000));
      return { status: 303, headers: { Location: next, 'Set-Cookie': cookie(ctx.query.token, maxAge, ctx.baseUrl.startsWith('https:')), 'Cache-Control': 'no-store' } };
    },
  });

  api.operation({
    id: 'arLogout',
    method: 'GET',
    path: '/tryon/logout',
    host: 'ar',
    summary: 'Clear the dashboard session cookie',
    tags: ['AR host'],
    auth: ['none'],
    hidden: true,
    responses: { 303: { description: 'Cookie cleared' } },
    async handler(ctx) {
      return { status: 303, headers: { Location: '/tryon', 'Set-Cookie': cookie('', 0, ctx.baseUrl.startsWith('https:')), 'Cache-Control': 'no-store' } };
    },
  });
}
