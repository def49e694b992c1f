-- Shopify tokens at rest: which key sealed a session's tokens (null: a plain row from before this
-- migration, sealed by the app's start-up pass, see connectors/shopify/tokens.ts) and when its access
-- token expires (expiring offline tokens, refreshed before then).
alter table platform_sessions add column if not exists key_id text;
alter table platform_sessions add column if not exists expires_at timestamptz;
create index if not exists platform_sessions_unsealed on platform_sessions (platform, key_id);
