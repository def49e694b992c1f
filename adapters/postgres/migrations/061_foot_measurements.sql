-- Foot measurements: public client ids of the foot-scan SDK, and the scans they send (kept until expires_at).

create table foot_clients (
  id text primary key,
  name text not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);

create table foot_scans (
  id uuid primary key,
  client_id text not null references foot_clients (id),
  feet jsonb not null,
  device jsonb,
  sizes jsonb not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index foot_scans_created_idx on foot_scans (created_at desc);
create index foot_scans_expiry_idx on foot_scans (expires_at);
