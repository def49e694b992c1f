-- AR objects recorded their creator as `key:<first 11 characters of the key>`, which several keys
-- may share (`fr_live_` plus 3 random characters), and canModify compared it. Creators are now
-- `key:<credential id>`. Labels whose prefix belongs to exactly one key move to that key's id; a
-- prefix shared by several keys cannot be resolved and stays as it is: an old label never equals a
-- new one, so it grants nobody write access (the owner, group and admins keep theirs).
update ar_objects o
   set created_by = 'key:' || k.id::text
  from api_keys k
 where o.created_by = 'key:' || k.prefix
   and (select count(*) from api_keys k2 where k2.prefix = k.prefix) = 1;

update ar_objects o
   set modified_by = 'key:' || k.id::text
  from api_keys k
 where o.modified_by = 'key:' || k.prefix
   and (select count(*) from api_keys k2 where k2.prefix = k.prefix) = 1;
