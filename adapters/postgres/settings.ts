import { randomBytes } from 'node:crypto';
import type { Pool } from './db.ts';

/** Returns a named secret shared by every process, creating it once (first writer wins). */
export async function sharedSecret(pool: Pool, name: string): Promise<string> {
  await pool.query('insert into settings (name, value) values ($1, $2) on conflict (name) do nothing', [name, randomBytes(32).toString('base64url')]);
  const r = await pool.query<{ value: string }>('select value from settings where name = $1', [name]);
  return r.rows[0].value;
}
