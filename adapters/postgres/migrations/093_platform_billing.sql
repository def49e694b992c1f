-- Billing through Shopify's Billing API: a shop's plan and subscription as Shopify last reported it,
-- and one usage charge per vendor job (the primary key keeps it at most one, whatever retries).
create table if not exists platform_billing (
  platform text not null,
  shop text not null,
  plan text not null check (plan in ('free', 'paid')),
  subscription_id text,
  status text not null,
  usage_line_item_id text,
  balance_used numeric(12, 2) not null default 0,
  capped_amount numeric(12, 2),
  currency text,
  test boolean not null default false,
  since timestamptz,
  updated_at timestamptz not null default now(),
  primary key (platform, shop)
);
create table if not exists platform_usage_charges (
  platform text not null,
  shop text not null,
  job_id uuid not null,
  kind text not null check (kind in ('tryon', 'model3d')),
  amount numeric(12, 2) not null,
  status text not null check (status in ('pending', 'recorded', 'capped', 'failed')),
  usage_record_id text,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (platform, shop, job_id)
);
