-- Digitization batches (spec: up to 500 products, lower priority than real-time work, results kept
-- 7 days after completion, `batch.completed` once). Each item is an ordinary job with batch_id set.

create table batches (
  id uuid primary key,
  owner_hash text not null,
  account_id text,
  credential_id text not null,
  item_count integer not null,
  webhook_url text,
  base_url text not null,
  -- the batch.completed delivery, written in the transaction that completes the batch
  delivery_id uuid,
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  expires_at timestamptz
);
create index batches_open_idx on batches (created_at) where completed_at is null;
create index batches_expiry_idx on batches (expires_at) where expires_at is not null;

alter table jobs add column batch_id uuid references batches (id) on delete cascade;
alter table jobs add column batch_index integer;
create index jobs_batch_idx on jobs (batch_id, batch_index) where batch_id is not null;

-- When an item reaches a terminal status, a completion check is queued (one pending check per batch;
-- graphile-worker's job key merges them). The check itself completes the batch at most once.
create function fitroom_batch_item_finished() returns trigger language plpgsql as $$
begin
  perform graphile_worker.add_job('fitroom_batch_check', json_build_object('batchId', new.batch_id), job_key => 'fitroom_batch_check:' || new.batch_id::text, max_attempts => 5);
  return null;
end $$;

create trigger jobs_batch_item_finished after update of status on jobs
  for each row when (new.batch_id is not null and new.status in ('completed', 'failed', 'cancelled') and old.status is distinct from new.status)
  execute function fitroom_batch_item_finished();
