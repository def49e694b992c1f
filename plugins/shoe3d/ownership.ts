import { FitroomError } from '../../core/errors.ts';
import type { ArOwner } from '../../core/ports/ar-object-store.ts';

/** Owner ids (sessions, accounts) are opaque but must be safe to store and show: 1-128 of these. */
const OWNER_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;

export interface OwnershipClaims {
  /** `options.sessionId`. */
  sessionId?: string;
  /** The request carried an explicit account attribution (account token / X-Service-Account). */
  accountAttribution: boolean;
  /** The account tied to the credential, if any. */
  accountId: string | null;
  /** The credential's record id: its default library. */
  credentialId: string;
}

/**
 * Ownership of a model uploaded to the AR host: (1) `options.sessionId`, which is then the only
 * claim; else (2) the account tied to the credential; else (3) the integration's default library.
 * A session id together with an explicit account attribution is two ownership methods at once:
 * `attribution_conflict`. A malformed owner id is `invalid_user_id`. Messages start with the code
 * (`code: description`): a failed job exposes only its `error` text, and clients branch on codes.
 */
export function resolveOwner(c: OwnershipClaims): ArOwner {
  if (c.sessionId !== undefined) {
    if (c.accountAttribution) throw new FitroomError('attribution_conflict', 'attribution_conflict: options.sessionId and an account attribution were both supplied; use one ownership method');
    if (!OWNER_ID.test(c.sessionId)) throw new FitroomError('invalid_user_id', 'invalid_user_id: options.sessionId is not a valid owner id (1-128 letters, digits and . _ : @ -, starting with a letter or digit)');
    return { kind: 'session', id: c.sessionId };
  }
  if (c.accountId !== null) {
    if (!OWNER_ID.test(c.accountId)) throw new FitroomError('invalid_user_id', 'invalid_user_id: The account tied to this credential has an id that cannot own models');
    return { kind: 'user', id: c.accountId };
  }
  return { kind: 'library', id: c.credentialId };
}
