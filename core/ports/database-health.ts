import { token } from '../plugin.ts';

/** DatabaseHealth: a cheap, cached check that the system of record answers (postgres adapter). */
export interface DatabaseHealth {
  check(): Promise<{ ok: boolean; latencyMs: number; error?: string }>;
}

export const DATABASE_HEALTH = token<DatabaseHealth>('DatabaseHealth');
