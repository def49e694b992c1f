-- A shop's storefront settings in the platform app (Shopify): how long its shoppers' photos and what
-- is made from them (try-on inputs and results, fit profiles) are kept, enforced by the purge.
create table if not exists platform_shop_settings (
  platform text not null,
  shop text not null,
  photo_retention_hours integer not null default 24 check (photo_retention_hours between 1 and 720),
  updated_at timestamptz not null default now(),
  primary key (platform, shop)
);
