-- Try-on result cache: one row per (result key, owner); the image is a row of `files` and the entry
-- expires with it. The key is the SHA-256 of identity, garment bytes, product and the options that
-- change the output.

create table tryon_results (
  key text not null check (key ~ '^[a-f0-9]{64}$'),
  owner_hash text not null,
  file_id uuid not null,
  digital_twin_id text check (digital_twin_id ~ '^[a-f0-9]{64}$'),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (key, owner_hash)
);
create index tryon_results_expiry_idx on tryon_results (expires_at);

-- The monthly AI quota counts jobs marked `aiQuota` in their input, per account or credential.
create index jobs_ai_quota_credential_idx on jobs (credential_id, created_at) where (input ->> 'aiQuota') = 'true';
create index jobs_ai_quota_account_idx on jobs (account_id, created_at) where (input ->> 'aiQuota') = 'true';
