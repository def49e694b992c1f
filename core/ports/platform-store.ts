import { token } from '../plugin.ts';

/** A shop that installed Fitroom through a commerce platform (Shopify, Medusa). */
export interface PlatformInstall {
  platform: string;
  /** The platform's shop id (Shopify: `name.myshopify.com`). */
  shop: string;
  /** The Fitroom account the shop's work belongs to. */
  accountId: string;
  /** The API key record created for the shop (never shown to the merchant). */
  keyId: string | null;
  status: 'installed' | 'uninstalled' | 'needs_reauth';
  installedAt: Date;
  uninstalledAt: Date | null;
}

/**
 * PlatformStore: what connectors to commerce platforms keep (postgres adapter): installations, the
 * platform's own sessions (opaque JSON), processed webhook ids (idempotency) and the customers a
 * shop's shoppers were seen as (for data requests and redaction).
 */
export interface PlatformStore {
  getInstall(platform: string, shop: string): Promise<PlatformInstall | null>;
  saveInstall(rec: PlatformInstall): Promise<void>;
  deleteInstall(platform: string, shop: string): Promise<void>;
  /** `meta`: the key that sealed the row's tokens and when its access token expires (migration 091). */
  putSession(platform: string, id: string, shop: string, data: unknown, meta?: { keyId: string | null; expiresAt: Date | null }): Promise<void>;
  getSession(platform: string, id: string): Promise<unknown | null>;
  deleteSessions(platform: string, ids: string[]): Promise<void>;
  sessionsByShop(platform: string, shop: string): Promise<unknown[]>;
  /** Sessions not sealed with `keyId` (plain rows from before 091, or an older key): to seal again. */
  sessionsToSeal(platform: string, keyId: string): Promise<{ id: string; shop: string; data: unknown }[]>;
  /** Records an event id; false when it was seen before (a redelivery). */
  firstDelivery(platform: string, eventId: string): Promise<boolean>;
  rememberCustomer(platform: string, shop: string, customerId: string): Promise<void>;
  customers(platform: string, shop: string): Promise<string[]>;
  forgetCustomers(platform: string, shop: string, customerIds?: string[]): Promise<void>;
  addMedia(m: Omit<PlatformMedia, 'createdAt' | 'updatedAt' | 'mediaId' | 'error' | 'status'>): Promise<void>;
  /** Media rows in a state; `claim` moves generating rows whose job is terminal to attaching, once. */
  media(filter: { platform: string; shop?: string; status?: PlatformMedia['status'][] }): Promise<PlatformMedia[]>;
  claimForAttach(id: string): Promise<boolean>;
  updateMedia(id: string, patch: Partial<Pick<PlatformMedia, 'status' | 'mediaId' | 'error'>>): Promise<void>;
  recordDataExport(e: { platform: string; id: string; shop: string; customerId: string; fileId: string }): Promise<void>;
  dataExports(platform: string, shop: string): Promise<{ id: string; customerId: string; fileId: string; createdAt: Date }[]>;
  /** The shop's storefront settings (the defaults when it never saved any). */
  shopSettings(platform: string, shop: string): Promise<PlatformShopSettings>;
  saveShopSettings(platform: string, shop: string, s: PlatformShopSettings): Promise<void>;
  /** Installed shops with their photo retention, for the purge. */
  retentionByShop(platform: string): Promise<{ shop: string; photoRetentionHours: number }[]>;
}

/** A shop's storefront settings. */
export interface PlatformShopSettings {
  /** Hours a shopper's photos and what is made from them are kept (1 to 720). */
  photoRetentionHours: number;
}

/** Short by default: a shopper's photo is needed for minutes, kept a day for a second try. */
export const DEFAULT_SHOP_SETTINGS: PlatformShopSettings = { photoRetentionHours: 24 };

/** A product's generated 3D model on its way to the platform's product media. */
export interface PlatformMedia {
  id: string;
  platform: string;
  shop: string;
  productId: string;
  jobId: string;
  status: 'generating' | 'attaching' | 'ready' | 'failed';
  mediaId: string | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const PLATFORM_STORE = token<PlatformStore>('PlatformStore');
