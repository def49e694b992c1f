-- Kernel tables: credentials, jobs and their trace, files, webhook deliveries, settings,
-- worker heartbeats and rate-limit counters.

create table api_keys (
  id uuid primary key,
  name text not null,
  kind text not null check (kind in ('user', 'service', 'development')),
  key_hash text not null unique,
  prefix text not null,
  account_id text,
  is_active boolean not null default true,
  expires_at timestamptz,
  max_usage integer not null default 0,
  usage_count integer not null default 0,
  monthly_quota integer,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  rotated_from uuid
);

create table jobs (
  id uuid primary key,
  kind text not null,
  owner_hash text not null,
  account_id text,
  credential_id text not null,
  status text not null check (status in ('queued', 'validating', 'processing', 'uploading', 'completed', 'failed', 'cancelled')),
  progress integer,
  stage text,
  input jsonb not null,
  result jsonb,
  results jsonb,
  error text,
  error_code text,
  webhook_url text,
  base_url text not null,
  diagnostics jsonb not null default '{}'::jsonb,
  charged boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index jobs_owner_idx on jobs (owner_hash, created_at desc);
create index jobs_running_idx on jobs (status) where status in ('queued', 'validating', 'processing', 'uploading');

create table job_trace (
  job_id uuid not null references jobs (id) on delete cascade,
  seq integer not null,
  stage text not null,
  status text not null,
  attempt integer not null,
  started_at timestamptz not null,
  ended_at timestamptz,
  outcome text not null default 'running',
  detail jsonb,
  primary key (job_id, seq)
);

create table files (
  id uuid primary key,
  owner_hash text not null,
  blob_key text not null,
  content_type text not null,
  size bigint not null,
  filename text,
  internal boolean not null default false,
  expires_at timestamptz,
  created_at timestamptz not null default now()
);
create index files_expiry_idx on files (expires_at) where expires_at is not null;

create table webhook_deliveries (
  id uuid primary key,
  job_id uuid,
  event text not null,
  url text not null,
  body text not null,
  signature text not null,
  timestamp text not null,
  state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
  attempts jsonb not null default '[]'::jsonb,
  created_at timestamptz not null default now()
);
create index webhook_deliveries_job_idx on webhook_deliveries (job_id);

create table settings (
  name text primary key,
  value text not null
);

create table worker_heartbeats (
  worker_id text primary key,
  host text not null,
  pid integer not null,
  started_at timestamptz not null default now(),
  seen_at timestamptz not null default now()
);

create table rate_limits (
  key varchar(255) primary key,
  points integer not null default 0,
  expire bigint
);
