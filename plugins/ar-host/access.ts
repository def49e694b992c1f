import type { ArObject, ArOwner } from '../../core/ports/ar-object-store.ts';
import type { ArPrincipal } from './ar-auth.ts';

/**
 * Ownership rules of AR objects. An object belongs to an account, an anonymous ownership session
 * or an integration's default library (a key without an account). Owners, members of the object's
 * group and admins see the private metadata; they and the principal that created the object may
 * modify it.
 */

/** The owner a principal's uploads get: ownership session first, then account, then library. */
export function ownerFor(p: ArPrincipal, sessionId?: string): ArOwner {
  if (sessionId) return { kind: 'session', id: sessionId };
  if (p.userId) return { kind: 'user', id: p.userId };
  return { kind: 'library', id: p.libraryId! };
}

/** Owners whose objects a principal lists as its own. */
export function ownersOf(p: ArPrincipal): ArOwner[] {
  const out: ArOwner[] = [];
  if (p.userId) out.push({ kind: 'user', id: p.userId });
  if (p.libraryId) out.push({ kind: 'library', id: p.libraryId });
  return out;
}

export function owns(o: ArObject, p: ArPrincipal | null): boolean {
  if (!p) return false;
  return ownersOf(p).some((w) => w.kind === o.owner.kind && w.id === o.owner.id);
}

export function sameGroup(o: ArObject, p: ArPrincipal | null): boolean {
  return !!p && !!o.group && p.group === o.group;
}

export function canSeePrivate(o: ArObject, p: ArPrincipal | null): boolean {
  return !!p && (p.admin || owns(o, p) || sameGroup(o, p));
}

/** The creator may modify its object: compared by the credential's id (the label), never by a key prefix. */
export function canModify(o: ArObject, p: ArPrincipal | null): boolean {
  return !!p && (canSeePrivate(o, p) || o.createdBy === p.label);
}
