-- Twins are scoped: a twin id works only for the account that made it (any key or token of the
-- account), or for the credential when it has no account (`account:<id>` or the owner hash). Existing
-- twins take the account of a job their owner submitted, else their owner hash.
alter table twins add column scope text;
update twins t
   set scope = coalesce((select 'account:' || j.account_id from jobs j where j.owner_hash = t.owner_hash and j.account_id is not null limit 1), t.owner_hash);
alter table twins alter column scope set not null;
