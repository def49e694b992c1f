-- Bot-verification tokens already used (single use across every process), until they expire.
create table if not exists used_challenges (
  id text primary key,
  expires_at timestamptz not null
);
create index if not exists used_challenges_expiry on used_challenges (expires_at);
