import { token } from '../plugin.ts';
import type { PersonAnalyzer } from '../ports/twin-renderer.ts';

/** The PersonAnalyzer try-on uses for person photos (builtin body engine), bound by the connector. */
export const PERSON_ANALYZER = token<PersonAnalyzer>('PersonAnalyzer');
