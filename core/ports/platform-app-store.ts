import { token } from '../plugin.ts';

/** A redaction run (shop/redact, customers/redact) and what it removed. */
export interface ComplianceRun {
  topic: string;
  ranAt: Date;
  rows: number;
  files: number;
}

/** A customer data request and its export file, open until the merchant marks it delivered. */
export interface DataRequestRecord {
  id: string;
  shop: string;
  customerId: string;
  fileId: string;
  requestedAt: Date;
  deliveredAt: Date | null;
}

/** A shop's plan as the platform's billing last reported it. */
export interface BillingRecord {
  platform: string;
  shop: string;
  plan: 'free' | 'paid';
  subscriptionId: string | null;
  /** The platform's subscription status (Shopify: PENDING, ACTIVE, DECLINED, EXPIRED, FROZEN, CANCELLED), FREE without one. */
  status: string;
  usageLineItemId: string | null;
  balanceUsed: number;
  cappedAmount: number | null;
  currency: string | null;
  test: boolean;
  /** When the paid plan became active (jobs before are not charged). */
  since: Date | null;
}

export interface UsageCharge {
  jobId: string;
  kind: 'tryon' | 'model3d';
  amount: number;
  status: 'pending' | 'recorded' | 'capped' | 'failed';
  usageRecordId: string | null;
  error: string | null;
}

/**
 * PlatformAppStore: what a platform app keeps besides installs and sessions (postgres adapter,
 * migrations 092-093): delivered webhook ids with the redaction runs they did, customer data requests,
 * the shop's billing plan and one usage charge per vendor job.
 */
export interface PlatformAppStore {
  /** Whether a webhook id was handled to the end before (its work committed). */
  delivered(platform: string, webhookId: string): Promise<boolean>;
  /** Records a webhook id as handled, with its redaction run if any, in one transaction. */
  recordDelivery(platform: string, webhookId: string, run?: { shop: string; topic: string; rows: number; files: number }): Promise<void>;
  lastRuns(platform: string, shop: string): Promise<ComplianceRun[]>;

  dataRequests(platform: string, shop: string): Promise<DataRequestRecord[]>;
  dataRequest(platform: string, shop: string, id: string): Promise<DataRequestRecord | null>;
  markDelivered(platform: string, shop: string, id: string): Promise<DataRequestRecord | null>;
  /** Removes a customer's data requests; returns their export file ids (to delete). */
  forgetDataRequests(platform: string, shop: string, customerId?: string): Promise<string[]>;

  billing(platform: string, shop: string): Promise<BillingRecord | null>;
  saveBilling(rec: BillingRecord): Promise<void>;
  /** Shops whose plan is paid and active (the usage-charge task's round). */
  paidShops(platform: string): Promise<string[]>;
  /** Completed jobs of an account since a time that ran a vendor engine and have no final charge yet. */
  unchargedVendorJobs(platform: string, shop: string, accountId: string, since: Date): Promise<{ jobId: string; kind: UsageCharge['kind'] }[]>;
  /** The charge of a job: created pending once (the primary key), returned as it is afterwards. */
  claimCharge(platform: string, shop: string, c: { jobId: string; kind: UsageCharge['kind']; amount: number }): Promise<UsageCharge>;
  finishCharge(platform: string, shop: string, jobId: string, patch: { status: UsageCharge['status']; usageRecordId?: string | null; error?: string | null }): Promise<void>;
  charges(platform: string, shop: string): Promise<UsageCharge[]>;
  /** shop/redact: the shop's billing rows and charges. */
  forgetShop(platform: string, shop: string): Promise<number>;
}

export const PLATFORM_APP_STORE = token<PlatformAppStore>('PlatformAppStore');
