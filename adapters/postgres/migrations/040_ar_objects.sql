-- AR host: uploaded objects (metadata, colour presets, autofit state per colour, blob keys)
-- and bug reports sent from the viewer pages.

create table ar_objects (
  id text primary key check (id ~ '^[0-9a-f]{24}$'),
  name text not null,
  owner_kind text not null check (owner_kind in ('user', 'session', 'library')),
  owner_id text not null,
  group_id text,
  created_at timestamptz not null default now(),
  created_by text not null,
  modified_at timestamptz not null default now(),
  modified_by text not null,
  properties jsonb not null default '{}'::jsonb,
  custom jsonb not null default '{}'::jsonb,
  materials_data jsonb not null default '{}'::jsonb,
  autofit jsonb not null default '{}'::jsonb,
  files jsonb not null default '{"colors": {}, "textures": {}}'::jsonb
);
create index ar_objects_name_idx on ar_objects (name);
create index ar_objects_owner_idx on ar_objects (owner_kind, owner_id, created_at desc);
create index ar_objects_group_idx on ar_objects (group_id, created_at desc) where group_id is not null;
create index ar_objects_created_idx on ar_objects (created_at desc);

create table ar_bug_reports (
  id uuid primary key,
  object_id text,
  message text not null,
  context jsonb not null default '{}'::jsonb,
  reporter text,
  created_at timestamptz not null default now()
);
create index ar_bug_reports_created_idx on ar_bug_reports (created_at desc, id);
