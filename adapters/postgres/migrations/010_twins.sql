-- Digital twins: one row per twin id (SHA-256 of face, body source and resolved pose), cached for
-- the twin lifetime; the render's pixels and body buffers are internal rows of `files`.

create table twins (
  id text primary key check (id ~ '^[a-f0-9]{64}$'),
  mode text not null check (mode in ('direct', 'photo', 'measurements', 'clothing_size')),
  pose text,
  gender text check (gender in ('male', 'female')),
  profile jsonb,
  render jsonb not null,
  image_file_id uuid not null,
  buffers_file_id uuid not null,
  owner_hash text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index twins_expiry_idx on twins (expires_at);
