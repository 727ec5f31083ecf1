-- Sanity checks run after loading the fixture: the Supabase objects and defaults the
-- postgrest-js fixture relies on. One row per check: ok (t/f), check, detail.
with checks(ok, name, detail) as (
  select exists(select 1 from pg_roles where rolname = r), 'role ' || r, ''
    from unnest(array['anon','authenticated','service_role','authenticator']) r
  union all
  select pg_has_role('authenticator', r, 'member'), 'authenticator member of ' || r, ''
    from unnest(array['anon','authenticated','service_role']) r
  union all
  select exists(select 1 from pg_extension e join pg_namespace n on n.oid = e.extnamespace
                where e.extname = x and n.nspname = 'extensions'),
         'extension ' || x || ' in schema extensions',
         coalesce((select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = x), 'absent')
    from unnest(array['pgcrypto','uuid-ossp','postgis']) x
  union all
  select has_schema_privilege(r, s, 'USAGE'), r || ' USAGE on schema ' || s, ''
    from unnest(array['anon','authenticated','service_role']) r,
         unnest(array['public','extensions']) s
  union all
  -- personal: the fixture itself grants anon and authenticated only
  select has_schema_privilege(r, 'personal', 'USAGE'), r || ' USAGE on schema personal', 'granted by the fixture'
    from unnest(array['anon','authenticated']) r
  union all
  select has_table_privilege(r, t, p), r || ' ' || p || ' on ' || t, 'Supabase default privileges on public'
    from unnest(array['anon','authenticated','service_role']) r,
         unnest(array['public.users','public.messages','public.updatable_view']) t,
         unnest(array['SELECT','INSERT','UPDATE','DELETE']) p
  union all
  select has_table_privilege(r, 'personal.users', p), r || ' ' || p || ' on personal.users', 'granted by the fixture'
    from unnest(array['anon','authenticated']) r,
         unnest(array['SELECT','INSERT','UPDATE','DELETE']) p
  union all
  select has_sequence_privilege(r, 'public.messages_id_seq', 'USAGE'), r || ' USAGE on public.messages_id_seq', ''
    from unnest(array['anon','authenticated']) r
  union all
  select has_function_privilege(r, 'public.offline_user(text)', 'EXECUTE'), r || ' EXECUTE public.offline_user(text)', ''
    from unnest(array['anon','authenticated']) r
  union all
  select exists(select 1 from pg_db_role_setting s join pg_roles r on r.oid = s.setrole
                where r.rolname = 'authenticator' and s.setconfig @> array[c]),
         'authenticator setting ' || c, 'PostgREST in-database config'
    from unnest(array['pgrst.db_plan_enabled=true','pgrst.db_aggregates_enabled=true',
                      'pgrst.db_tx_end=commit-allow-override']) c
  union all
  select (select count(*) from public.users) = 5, 'seed: public.users has 5 rows', (select count(*)::text from public.users)
  union all
  select (select count(*) from personal.users) = 5, 'seed: personal.users has 5 rows', (select count(*)::text from personal.users)
  union all
  select (select count(*) from public.messages) = 4, 'seed: public.messages has 4 rows', (select count(*)::text from public.messages)
)
select case when ok then 'ok' else 'FAIL' end as result, name, detail from checks order by ok, name;
