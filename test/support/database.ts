import { inject } from 'vitest';
import pg from 'pg';
import { randomBytes } from 'node:crypto';

/** A fresh database cloned from the migrated template; drop it when the file is done. */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client(inject('pgAdminUrl'));
  await admin.connect();
  try {
    // Cloning needs the template to be idle; retry briefly when another file is cloning it too.
    for (let i = 0; ; i++) {
      try {
        await admin.query(`create database ${name} template fitroom_template`);
        break;
      } catch (e) {
        if (i > 40 || !/being accessed by other users/.test((e as Error).message)) throw e;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    name,
    url: inject('pgUrlTemplate').replace('__DB__', name),
    async drop() {
      const c = new pg.Client(inject('pgAdminUrl'));
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
      await c.end();
    },
  };
}
