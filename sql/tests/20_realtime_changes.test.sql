-- postgres_changes' helpers: values as to_jsonb gives them, filter values read as their
-- column's type, and the refusals Supabase's subscription check words; private to the owner.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(10);
CREATE TEMP TABLE notes (id int PRIMARY KEY, tags text[], level int, due date, done boolean);

SELECT is(private.realtime_to_jsonb('{a,"b c"}', 'text[]'::regtype), '["a", "b c"]'::jsonb, 'arrays become JSON arrays');
SELECT is(private.realtime_to_jsonb('0044-03-15 BC', 'date'::regtype), '"0044-03-15 BC"'::jsonb, 'BC dates as to_jsonb writes them');
SELECT is(private.realtime_filter_value('notes'::regclass, 'level', 'eq', '02'), '2'::jsonb, 'a filter value is read as its column''s type');
SELECT is(private.realtime_filter_value('notes'::regclass, 'level', 'in', '{1,3}'), '[1, 3]'::jsonb, '`in` values are an array');
SELECT is(private.realtime_filter_value('notes'::regclass, 'done', 'is', 'TRUE'), 'true'::jsonb, '`is` takes true, false, null, unknown');
SELECT throws_ok($$SELECT private.realtime_filter_value('notes'::regclass, 'nope', 'eq', '1')$$,
  'P0001', 'invalid column for filter nope', 'an unknown column is refused as Supabase words it');
SELECT throws_ok($$SELECT private.realtime_filter_value('notes'::regclass, 'level', 'eq', 'x')$$,
  '22P02', 'invalid input syntax for type integer: "x"', 'a value of the wrong type gives the cast error');
SELECT throws_ok($$SELECT private.realtime_filter_value('notes'::regclass, 'level', 'is', 'true')$$,
  'P0001', 'is true filter requires a boolean column, got integer', '`is true` needs a boolean column');
SELECT throws_ok($$SELECT private.realtime_filter_value('notes'::regclass, 'level', 'in', '{' || (SELECT string_agg(n::text, ',') FROM generate_series(1, 101) n) || '}')$$,
  'P0001', 'too many values for `in` filter. Maximum 100', 'at most 100 `in` values');
SELECT ok(NOT has_function_privilege('authenticated', 'private.realtime_to_jsonb(text, oid)', 'EXECUTE'),
  'clients cannot call the helpers');

SELECT * FROM finish();
ROLLBACK;
