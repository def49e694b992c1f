import { randomBytes, randomUUID } from 'node:crypto';
import type { Pool } from './db.ts';
import { withTransaction } from './db.ts';
import type {
  ArObject,
  ArObjectFiles,
  ArObjectFilter,
  ArObjectPatch,
  ArObjectStore,
  ArOwner,
  AutofitState,
  BugReport,
  ColorPreset,
  MaterialsData,
  NewArObject,
} from '../../core/ports/ar-object-store.ts';

interface Row {
  id: string;
  name: string;
  owner_kind: ArOwner['kind'];
  owner_id: string;
  group_id: string | null;
  created_at: Date;
  created_by: string;
  modified_at: Date;
  modified_by: string;
  properties: Record<string, unknown>;
  custom: Record<string, unknown>;
  materials_data: MaterialsData;
  autofit: Record<string, AutofitState>;
  files: ArObjectFiles;
}

const toObject = (r: Row): ArObject => ({
  id: r.id,
  name: r.name,
  owner: { kind: r.owner_kind, id: r.owner_id },
  group: r.group_id,
  created: r.created_at.toISOString(),
  createdBy: r.created_by,
  modified: r.modified_at.toISOString(),
  modifiedBy: r.modified_by,
  properties: r.properties,
  custom: r.custom,
  materialsData: r.materials_data,
  autofit: r.autofit,
  files: { ...r.files, colors: r.files.colors ?? {}, textures: r.files.textures ?? {} },
});

const HEX_ID = /^[0-9a-f]{24}$/;

/** Shallow merge where a null value removes the key. */
function mergeRemovingNulls<T>(base: Record<string, T>, patch: Record<string, T | null>): Record<string, T> {
  const out = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** File keys: top-level keys replaced, colours replaced per colour id, textures added by name. */
function mergeFiles(cur: ArObjectFiles, patch: NonNullable<ArObjectPatch['files']>): ArObjectFiles {
  const files: ArObjectFiles = { ...cur, colors: { ...cur.colors }, textures: { ...cur.textures } };
  const { colors, textures, ...rest } = patch;
  for (const [k, v] of Object.entries(rest)) {
    if (v === undefined) delete (files as unknown as Record<string, unknown>)[k];
    else (files as unknown as Record<string, unknown>)[k] = v;
  }
  if (colors) for (const [k, v] of Object.entries(colors)) files.colors[k] = v;
  if (textures) Object.assign(files.textures, textures);
  return files;
}

export class PostgresArObjectStore implements ArObjectStore {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  async create(input: NewArObject): Promise<ArObject> {
    const id = input.id ?? randomBytes(12).toString('hex');
    if (!HEX_ID.test(id)) throw new Error('AR object ids are 24 lowercase hex characters');
    const files: ArObjectFiles = { colors: {}, textures: {}, ...input.files };
    const r = await this.pool.query<Row>(
      `insert into ar_objects (id, name, owner_kind, owner_id, group_id, created_by, modified_by, properties, custom, materials_data, autofit, files)
       values ($1, $2, $3, $4, $5, $6, $6, $7, $8, $9, $10, $11) returning *`,
      [
        id,
        input.name ?? id,
        input.owner.kind,
        input.owner.id,
        input.group ?? null,
        input.createdBy,
        input.properties ?? {},
        input.custom ?? {},
        input.materialsData ?? {},
        input.autofit ?? {},
        files,
      ],
    );
    return toObject(r.rows[0]);
  }

  async get(idOrName: string): Promise<ArObject | null> {
    if (HEX_ID.test(idOrName)) {
      const byId = await this.pool.query<Row>('select * from ar_objects where id = $1', [idOrName]);
      if (byId.rows[0]) return toObject(byId.rows[0]);
    }
    // Names are not unique: the newest object with the name wins.
    const byName = await this.pool.query<Row>('select * from ar_objects where name = $1 order by created_at desc, id limit 1', [idOrName]);
    return byName.rows[0] ? toObject(byName.rows[0]) : null;
  }

  async list(filter: ArObjectFilter): Promise<ArObject[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const ors: string[] = [];
    for (const o of filter.owners ?? []) {
      args.push(o.kind, o.id);
      ors.push(`(owner_kind = $${args.length - 1} and owner_id = $${args.length})`);
    }
    if (filter.group) {
      args.push(filter.group);
      ors.push(`group_id = $${args.length}`);
    }
    if (filter.owners || filter.group) where.push(ors.length ? `(${ors.join(' or ')})` : 'false');
    args.push(Math.min(Math.max(filter.limit ?? 50, 1), 500), Math.max(filter.offset ?? 0, 0));
    const r = await this.pool.query<Row>(
      `select * from ar_objects ${where.length ? `where ${where.join(' and ')}` : ''} order by created_at desc, id limit $${args.length - 1} offset $${args.length}`,
      args,
    );
    return r.rows.map(toObject);
  }

  async update(id: string, patch: ArObjectPatch, by: string): Promise<ArObject | null> {
    return await withTransaction(this.pool, async (c) => {
      const cur = await c.query<Row>('select * from ar_objects where id = $1 for update', [id]);
      if (!cur.rows[0]) return null;
      const o = toObject(cur.rows[0]);
      const files = patch.files ? mergeFiles(o.files, patch.files) : o.files;
      const owner = patch.owner ?? o.owner;
      const r = await c.query<Row>(
        `update ar_objects set name = $2, owner_kind = $3, owner_id = $4, group_id = $5, properties = $6, custom = $7,
           materials_data = $8, files = $9, modified_at = now(), modified_by = $10
         where id = $1 returning *`,
        [
          id,
          patch.name ?? o.name,
          owner.kind,
          owner.id,
          patch.group === undefined ? o.group : patch.group,
          patch.properties ? mergeRemovingNulls(o.properties, patch.properties) : o.properties,
          patch.custom ? mergeRemovingNulls(o.custom, patch.custom) : o.custom,
          patch.materialsData ? mergeRemovingNulls<ColorPreset>(o.materialsData, patch.materialsData) : o.materialsData,
          files,
          by,
        ],
      );
      return toObject(r.rows[0]);
    });
  }

  async recordFiles(id: string, patch: NonNullable<ArObjectPatch['files']>): Promise<void> {
    await withTransaction(this.pool, async (c) => {
      const cur = await c.query<Row>('select * from ar_objects where id = $1 for update', [id]);
      if (!cur.rows[0]) return;
      await c.query('update ar_objects set files = $2 where id = $1', [id, mergeFiles(toObject(cur.rows[0]).files, patch)]);
    });
  }

  async setAutofit(id: string, colorId: string, state: AutofitState): Promise<void> {
    await this.pool.query(`update ar_objects set autofit = jsonb_set(autofit, array[$2::text], $3::jsonb, true) where id = $1`, [id, colorId, JSON.stringify(state)]);
  }

  async delete(id: string): Promise<void> {
    await this.pool.query('delete from ar_objects where id = $1', [id]);
  }

  async addBugReport(report: Omit<BugReport, 'id' | 'created'>): Promise<BugReport> {
    const r = await this.pool.query<{ id: string; created_at: Date }>(
      'insert into ar_bug_reports (id, object_id, message, context, reporter) values ($1, $2, $3, $4, $5) returning id, created_at',
      [randomUUID(), report.objectId, report.message, report.context, report.reporter],
    );
    return { ...report, id: r.rows[0].id, created: r.rows[0].created_at.toISOString() };
  }

  async listBugReports(limit: number, before?: string): Promise<BugReport[]> {
    const r = await this.pool.query<{ id: string; object_id: string | null; message: string; context: Record<string, unknown>; reporter: string | null; created_at: Date }>(
      `select * from ar_bug_reports ${before ? 'where created_at < $2' : ''} order by created_at desc, id limit $1`,
      before ? [Math.min(Math.max(limit, 1), 500), before] : [Math.min(Math.max(limit, 1), 500)],
    );
    return r.rows.map((x) => ({ id: x.id, objectId: x.object_id, message: x.message, context: x.context, reporter: x.reporter, created: x.created_at.toISOString() }));
  }
}
