-- Commerce platform connectors (Shopify, Medusa): installations, platform sessions, processed
-- webhook ids and the customers seen per shop.
create table if not exists platform_installs (
  platform text not null,
  shop text not null,
  account_id text not null,
  key_id uuid,
  status text not null check (status in ('installed', 'uninstalled', 'needs_reauth')),
  installed_at timestamptz not null,
  uninstalled_at timestamptz,
  primary key (platform, shop)
);
create table if not exists platform_sessions (
  platform text not null,
  id text not null,
  shop text not null,
  data jsonb not null,
  updated_at timestamptz not null default now(),
  primary key (platform, id)
);
create index if not exists platform_sessions_shop on platform_sessions (platform, shop);
create table if not exists platform_events (
  platform text not null,
  event_id text not null,
  received_at timestamptz not null default now(),
  primary key (platform, event_id)
);
create table if not exists platform_customers (
  platform text not null,
  shop text not null,
  customer_id text not null,
  first_seen timestamptz not null default now(),
  primary key (platform, shop, customer_id)
);
-- 3D models generated for a shop's products: the shoe-3d job, then the platform media it becomes.
create table if not exists platform_media (
  id uuid primary key,
  platform text not null,
  shop text not null,
  product_id text not null,
  job_id uuid not null,
  status text not null check (status in ('generating', 'attaching', 'ready', 'failed')),
  media_id text,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists platform_media_pending on platform_media (status) where status in ('generating', 'attaching');
create index if not exists platform_media_shop on platform_media (platform, shop, created_at desc);
-- Answers to customers' data requests, kept as files the merchant downloads.
create table if not exists platform_data_exports (
  id text not null,
  platform text not null,
  shop text not null,
  customer_id text not null,
  file_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (platform, id)
);
