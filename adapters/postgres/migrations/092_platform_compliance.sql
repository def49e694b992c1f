-- Privacy webhooks: each redaction run (shop/redact, customers/redact) with what it removed, shown to
-- the merchant; the webhook id is recorded with it, in the same transaction, once the work committed.
create table if not exists platform_compliance_runs (
  platform text not null,
  webhook_id text not null,
  shop text not null,
  topic text not null,
  rows integer not null,
  files integer not null,
  ran_at timestamptz not null default now(),
  primary key (platform, webhook_id)
);
create index if not exists platform_compliance_runs_shop on platform_compliance_runs (platform, shop, topic, ran_at desc);
-- Customer data requests: delivered once the merchant sent the export to the customer.
alter table platform_data_exports add column if not exists delivered_at timestamptz;
create index if not exists platform_data_exports_customer on platform_data_exports (platform, shop, customer_id);
