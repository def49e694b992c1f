import data from './ansur2-bodies.json' with { type: 'json' };
import { rowToBody } from './reference-body.ts';
import type { ReferenceBody } from './reference-body.ts';

/** All ANSUR II reference bodies shipped with the service (see PROVENANCE.md). */
export const REFERENCE_BODIES: readonly ReferenceBody[] = data.rows.map(rowToBody);

/** The ~80% used to build profiles; the held-out rest is only for measuring accuracy. */
export const TRAINING_BODIES: readonly ReferenceBody[] = REFERENCE_BODIES.filter((b) => !b.heldOut);

export const HELD_OUT_BODIES: readonly ReferenceBody[] = REFERENCE_BODIES.filter((b) => b.heldOut);
