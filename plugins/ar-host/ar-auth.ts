import type { AuthRequest, AuthResolver } from '../../core/plugin.ts';
import type { Caller, CredentialService } from '../../core/credentials.ts';
import { callerFromKey, refusalMessage, sha256Hex } from '../../core/credentials.ts';
import { FitroomError } from '../../core/errors.ts';
import type { ArSession, SessionTokens } from './session-token.ts';
import { SESSION_COOKIE, SESSION_PREFIX } from './session-token.ts';

/** Who is calling an AR host route, as the ownership rules see it. */
export interface ArPrincipal {
  /** The caller jobs are submitted with (a key, or the account namespace of a session). */
  caller: Caller;
  via: 'api_key' | 'session';
  /** Account of the key or the signed-in user. */
  userId: string | null;
  /** For keys without an account: the key's own library (the integration's default library). */
  libraryId: string | null;
  group: string | null;
  admin: boolean;
  /** Recorded as createdBy / modifiedBy. */
  label: string;
}

export function unauthorized(message = 'Authentication required: send Authorization: Bearer <API key or session token>, sign in to the dashboard, or pass a token query parameter'): FitroomError {
  return new FitroomError('unauthorized', message);
}

/**
 * The AR host's credentials, checked in the spec's order: `Authorization: Bearer <API key or
 * session token>`, then the signed dashboard session cookie, then the legacy `token` query
 * parameter. A Bearer API key that is unknown, revoked, expired or over its usage limit is refused
 * with 401 `invalid_api_key`; a bad session token with 401 `unauthorized`. A stale cookie is
 * ignored so that a later credential can still apply. Key usage is counted after a successful
 * request only.
 */
export class ArAuth {
  private readonly credentials: CredentialService;
  private readonly sessions: SessionTokens;
  private readonly principals = new WeakMap<Caller, ArPrincipal>();

  constructor(credentials: CredentialService, sessions: SessionTokens) {
    this.credentials = credentials;
    this.sessions = sessions;
  }

  /** The principal behind a caller this resolver produced. */
  principal(caller: Caller | null): ArPrincipal | null {
    return caller ? (this.principals.get(caller) ?? null) : null;
  }

  /** Resolves an API key or session token (Bearer value, legacy query or form field). */
  async fromToken(token: string): Promise<ArPrincipal> {
    if (token.startsWith(SESSION_PREFIX)) {
      const s = this.sessions.verify(token);
      if (!s) throw unauthorized('The session token is invalid or has expired');
      return this.fromSession(s);
    }
    const checked = await this.credentials.check(token);
    if ('refusal' in checked) throw new FitroomError('invalid_api_key', refusalMessage(checked.refusal === 'missing' ? 'not_found' : checked.refusal));
    const caller = callerFromKey(checked.record);
    const p: ArPrincipal = {
      caller,
      via: 'api_key',
      userId: checked.record.accountId,
      libraryId: checked.record.accountId ? null : checked.record.id,
      group: null,
      admin: false,
      label: `key:${checked.record.prefix}`,
    };
    this.principals.set(caller, p);
    return p;
  }

  fromSession(s: ArSession): ArPrincipal {
    const caller: Caller = {
      kind: 'account',
      credentialId: `ar-session:${s.userId}`,
      // the account namespace the spec uses for account-scoped ownership
      ownerHash: sha256Hex(`account:${s.userId}`),
      accountId: s.userId,
      development: false,
      countsKeyUsage: false,
      countsAiQuota: true,
    };
    const p: ArPrincipal = { caller, via: 'session', userId: s.userId, libraryId: null, group: s.group, admin: s.admin, label: `user:${s.userId}` };
    this.principals.set(caller, p);
    return p;
  }

  resolver(): AuthResolver {
    return {
      resolve: async (req: AuthRequest) => {
        const authz = req.headers.authorization;
        if (authz !== undefined) {
          const m = /^Bearer\s+(\S+)\s*$/i.exec(authz);
          if (!m) throw unauthorized('The Authorization header must be "Bearer <API key or session token>"');
          return { caller: (await this.fromToken(m[1])).caller };
        }
        const cookie = req.cookie(SESSION_COOKIE);
        if (cookie) {
          const s = this.sessions.verify(cookie);
          if (s) return { caller: this.fromSession(s).caller };
        }
        const legacy = req.query.token;
        if (legacy !== undefined && legacy !== '') return { caller: (await this.fromToken(legacy)).caller };
        return undefined;
      },
      missing: () => unauthorized(),
      openapi: {
        security: [{ Bearer: [] }, { DashboardSession: [] }, { LegacyToken: [] }],
        schemes: {
          Bearer: { type: 'http', scheme: 'bearer', description: 'AR host (the second server; operations marked x-host: ar): `Authorization: Bearer <API key>` (the same key the API host takes in X-API-Key), or a session token from POST /admin/v1/ar/sessions. Uploads without it answer 401 `unauthorized`, with an unknown key 401 `invalid_api_key`. Public reads (viewer pages, object properties, GLB and USDZ files) need no credentials.' },
          DashboardSession: { type: 'apiKey', in: 'cookie', name: 'fitroom_session', description: 'AR host: signed dashboard session cookie issued by the admin API.' },
          LegacyToken: { type: 'apiKey', in: 'query', name: 'token', description: 'AR host: legacy token query parameter (discouraged).' },
        },
      },
      onSuccess: async (caller) => {
        if (this.principal(caller)?.via === 'api_key') await this.credentials.countUsage(caller);
      },
    };
  }

  /** Counts a key's use for requests authenticated by a form field (outside the resolver). */
  async countUsage(p: ArPrincipal): Promise<void> {
    if (p.via === 'api_key') await this.credentials.countUsage(p.caller);
  }
}
