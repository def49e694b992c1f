import type { Pool } from './db.ts';
import { DEFAULT_SHOP_SETTINGS, type PlatformInstall, type PlatformMedia, type PlatformShopSettings, type PlatformStore } from '../../core/ports/platform-store.ts';

interface InstallRow {
  platform: string;
  shop: string;
  account_id: string;
  key_id: string | null;
  status: PlatformInstall['status'];
  installed_at: Date;
  uninstalled_at: Date | null;
}

export class PostgresPlatformStore implements PlatformStore {
  private readonly pool: Pool;
  constructor(pool: Pool) {
    this.pool = pool;
  }

  async getInstall(platform: string, shop: string) {
    const r = await this.pool.query<InstallRow>('select * from platform_installs where platform = $1 and shop = $2', [platform, shop]);
    const x = r.rows[0];
    return x ? { platform: x.platform, shop: x.shop, accountId: x.account_id, keyId: x.key_id, status: x.status, installedAt: x.installed_at, uninstalledAt: x.uninstalled_at } : null;
  }

  async saveInstall(i: PlatformInstall) {
    await this.pool.query(
      `insert into platform_installs (platform, shop, account_id, key_id, status, installed_at, uninstalled_at) values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (platform, shop) do update set account_id = $3, key_id = $4, status = $5, installed_at = $6, uninstalled_at = $7`,
      [i.platform, i.shop, i.accountId, i.keyId, i.status, i.installedAt, i.uninstalledAt],
    );
  }

  /** Everything kept for a shop (shop/redact). */
  async deleteInstall(platform: string, shop: string) {
    // everything kept per shop, the admin's usage counters (PlatformUsage) included
    for (const table of ['platform_installs', 'platform_sessions', 'platform_customers', 'platform_media', 'platform_data_exports', 'platform_shop_settings', 'platform_usage']) {
      await this.pool.query(`delete from ${table} where platform = $1 and shop = $2`, [platform, shop]);
    }
  }

  async putSession(platform: string, id: string, shop: string, data: unknown, meta?: { keyId: string | null; expiresAt: Date | null }) {
    await this.pool.query(
      `insert into platform_sessions (platform, id, shop, data, key_id, expires_at) values ($1, $2, $3, $4, $5, $6)
       on conflict (platform, id) do update set shop = $3, data = $4, key_id = $5, expires_at = $6, updated_at = now()`,
      [platform, id, shop, JSON.stringify(data), meta?.keyId ?? null, meta?.expiresAt ?? null],
    );
  }

  async sessionsToSeal(platform: string, keyId: string) {
    const r = await this.pool.query<{ id: string; shop: string; data: unknown }>('select id, shop, data from platform_sessions where platform = $1 and key_id is distinct from $2', [platform, keyId]);
    return r.rows;
  }

  async getSession(platform: string, id: string) {
    const r = await this.pool.query<{ data: unknown }>('select data from platform_sessions where platform = $1 and id = $2', [platform, id]);
    return r.rows[0]?.data ?? null;
  }

  async deleteSessions(platform: string, ids: string[]) {
    await this.pool.query('delete from platform_sessions where platform = $1 and id = any($2::text[])', [platform, ids]);
  }

  async sessionsByShop(platform: string, shop: string) {
    const r = await this.pool.query<{ data: unknown }>('select data from platform_sessions where platform = $1 and shop = $2', [platform, shop]);
    return r.rows.map((x) => x.data);
  }

  async firstDelivery(platform: string, eventId: string) {
    const r = await this.pool.query('insert into platform_events (platform, event_id) values ($1, $2) on conflict do nothing', [platform, eventId]);
    return r.rowCount === 1;
  }

  async rememberCustomer(platform: string, shop: string, customerId: string) {
    await this.pool.query('insert into platform_customers (platform, shop, customer_id) values ($1, $2, $3) on conflict do nothing', [platform, shop, customerId]);
  }

  async customers(platform: string, shop: string) {
    const r = await this.pool.query<{ customer_id: string }>('select customer_id from platform_customers where platform = $1 and shop = $2 order by customer_id', [platform, shop]);
    return r.rows.map((x) => x.customer_id);
  }

  async forgetCustomers(platform: string, shop: string, customerIds?: string[]) {
    if (customerIds) await this.pool.query('delete from platform_customers where platform = $1 and shop = $2 and customer_id = any($3::text[])', [platform, shop, customerIds]);
    else await this.pool.query('delete from platform_customers where platform = $1 and shop = $2', [platform, shop]);
  }

  async addMedia(m: Omit<PlatformMedia, 'createdAt' | 'updatedAt' | 'mediaId' | 'error' | 'status'>) {
    await this.pool.query(`insert into platform_media (id, platform, shop, product_id, job_id, status) values ($1, $2, $3, $4, $5, 'generating')`, [m.id, m.platform, m.shop, m.productId, m.jobId]);
  }

  async media(f: { platform: string; shop?: string; status?: PlatformMedia['status'][] }) {
    const r = await this.pool.query<{ id: string; platform: string; shop: string; product_id: string; job_id: string; status: PlatformMedia['status']; media_id: string | null; error: string | null; created_at: Date; updated_at: Date }>(
      `select * from platform_media where platform = $1 and ($2::text is null or shop = $2) and ($3::text[] is null or status = any($3::text[])) order by created_at desc limit 500`,
      [f.platform, f.shop ?? null, f.status ?? null],
    );
    return r.rows.map((x) => ({ id: x.id, platform: x.platform, shop: x.shop, productId: x.product_id, jobId: x.job_id, status: x.status, mediaId: x.media_id, error: x.error, createdAt: x.created_at, updatedAt: x.updated_at }));
  }

  async claimForAttach(id: string) {
    const r = await this.pool.query(`update platform_media set status = 'attaching', updated_at = now() where id = $1 and status = 'generating'`, [id]);
    return r.rowCount === 1;
  }

  async updateMedia(id: string, patch: Partial<Pick<PlatformMedia, 'status' | 'mediaId' | 'error'>>) {
    await this.pool.query(
      `update platform_media set status = coalesce($2, status), media_id = coalesce($3, media_id), error = coalesce($4, error), updated_at = now() where id = $1`,
      [id, patch.status ?? null, patch.mediaId ?? null, patch.error ?? null],
    );
  }

  async recordDataExport(e: { platform: string; id: string; shop: string; customerId: string; fileId: string }) {
    await this.pool.query('insert into platform_data_exports (id, platform, shop, customer_id, file_id) values ($1, $2, $3, $4, $5) on conflict do nothing', [e.id, e.platform, e.shop, e.customerId, e.fileId]);
  }

  async dataExports(platform: string, shop: string) {
    const r = await this.pool.query<{ id: string; customer_id: string; file_id: string; created_at: Date }>('select id, customer_id, file_id, created_at from platform_data_exports where platform = $1 and shop = $2 order by created_at desc', [platform, shop]);
    return r.rows.map((x) => ({ id: x.id, customerId: x.customer_id, fileId: x.file_id, createdAt: x.created_at }));
  }

  async shopSettings(platform: string, shop: string): Promise<PlatformShopSettings> {
    const r = await this.pool.query<{ photo_retention_hours: number }>('select photo_retention_hours from platform_shop_settings where platform = $1 and shop = $2', [platform, shop]);
    return r.rows[0] ? { photoRetentionHours: r.rows[0].photo_retention_hours } : { ...DEFAULT_SHOP_SETTINGS };
  }

  async saveShopSettings(platform: string, shop: string, s: PlatformShopSettings) {
    await this.pool.query(
      `insert into platform_shop_settings (platform, shop, photo_retention_hours) values ($1, $2, $3)
       on conflict (platform, shop) do update set photo_retention_hours = $3, updated_at = now()`,
      [platform, shop, s.photoRetentionHours],
    );
  }

  async retentionByShop(platform: string) {
    const r = await this.pool.query<{ shop: string; hours: number }>(
      `select i.shop, coalesce(s.photo_retention_hours, $2) as hours from platform_installs i
       left join platform_shop_settings s on s.platform = i.platform and s.shop = i.shop where i.platform = $1`,
      [platform, DEFAULT_SHOP_SETTINGS.photoRetentionHours],
    );
    return r.rows.map((x) => ({ shop: x.shop, photoRetentionHours: x.hours }));
  }
}
