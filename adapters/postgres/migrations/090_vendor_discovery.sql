-- What the AI vendors said about their models at the last discovery run (one row a vendor), shared by
-- every process and kept across restarts; and the claim that lets one process ask the vendors per interval.

create table vendor_discovery (
  provider text primary key,
  discovered_at timestamptz not null,
  result jsonb not null
);

create table vendor_discovery_claim (
  id int primary key check (id = 1),
  claimed_at timestamptz not null
);
