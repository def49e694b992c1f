-- Analytics attribution from usage tokens (X-Service-Usage-Account): counts per account, operation and UTC day.
create table if not exists usage_attribution (
  account_id text not null,
  operation_id text not null,
  day date not null,
  count bigint not null default 0,
  primary key (account_id, operation_id, day)
);
create index if not exists usage_attribution_day on usage_attribution (day desc);
