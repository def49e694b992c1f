-- What a shop's storefront and admin did, counted per calendar month (UTC): try-ons, size
-- recommendations, size charts saved. The admin's figures and onboarding checklist read them.
create table if not exists platform_usage (
  platform text not null,
  shop text not null,
  month date not null,
  metric text not null,
  count bigint not null default 0,
  primary key (platform, shop, month, metric)
);
