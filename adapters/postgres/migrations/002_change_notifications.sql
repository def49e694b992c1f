-- Notifications that let every process drop cached key records and job reads as soon as they change,
-- whoever changed them (API, worker, or an operator with psql).

create function fitroom_notify_key_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('fitroom_key_changed', coalesce(old.key_hash, new.key_hash));
  return null;
end $$;

-- Usage counter updates are not a change of the credential: they do not evict.
create trigger api_keys_changed after update of is_active, expires_at, max_usage, account_id, kind, key_hash, monthly_quota or delete on api_keys
  for each row execute function fitroom_notify_key_change();

create function fitroom_notify_job_change() returns trigger language plpgsql as $$
begin
  perform pg_notify('fitroom_job_changed', new.id::text);
  return null;
end $$;

create trigger jobs_changed after update on jobs
  for each row execute function fitroom_notify_job_change();
