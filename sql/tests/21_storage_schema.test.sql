-- storage/v1's schema: Supabase's tables and helpers, RLS on, deletes only through the API.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(14);

SELECT is(storage.foldername('a/b/c.png'), '{a,b}'::text[], 'foldername: the folders of a key');
SELECT is(storage.foldername('c.png'), '{}'::text[], 'foldername: none at the top');
SELECT is(storage.filename('a/b/c.png'), 'c.png', 'filename: the last segment');
SELECT is(storage.filename('a/b/'), '', 'filename: a folder key has an empty name');
SELECT is(storage.extension('a/b/c.tar.gz'), 'gz', 'extension: after the last dot');
SELECT is(storage.extension('dir/readme'), 'readme', 'extension: a name without a dot is its own extension');

INSERT INTO storage.buckets (id, name, public) VALUES ('planes', 'planes', false);
INSERT INTO storage.objects (bucket_id, name, metadata) VALUES
  ('planes', 'u1/clase.pdf', '{"size": 10}'), ('planes', 'u1/guia.pdf', '{"size": 5}');
SELECT is((SELECT path_tokens FROM storage.objects WHERE name = 'u1/clase.pdf'), '{u1,clase.pdf}'::text[], 'path_tokens are generated');
SELECT is((SELECT size FROM storage.get_size_by_bucket() WHERE bucket_id = 'planes'), 15::bigint, 'get_size_by_bucket sums metadata sizes');
SELECT throws_ok($$INSERT INTO storage.objects (bucket_id, name) VALUES ('planes', 'u1/guia.pdf')$$,
  '23505', NULL, 'one object per bucket and name');
SELECT throws_ok($$DELETE FROM storage.objects WHERE name = 'u1/guia.pdf'$$,
  '42501', 'Direct deletion from storage tables is not allowed. Use the Storage API instead.',
  'no delete outside the Storage API');
SELECT set_config('storage.allow_delete_query', 'true', true);
SELECT lives_ok($$DELETE FROM storage.objects WHERE name = 'u1/guia.pdf'$$, 'the API''s deletes go through');
SELECT throws_ok($$INSERT INTO storage.buckets (id, name) VALUES ('x', repeat('x', 101))$$,
  'P0001', 'bucket name "' || repeat('x', 101) || '" is too long (101 characters). Max is 100.', 'bucket names of at most 100 characters');

SELECT set_config('storage.operation', 'storage.object.upload', true);
SELECT ok(storage.allow_only_operation('object.upload') AND storage.allow_any_operation('{object.list,storage.object.upload}'),
  'operations compare without their storage. prefix');

SET LOCAL ROLE authenticated;
SELECT is((SELECT count(*) FROM storage.objects), 0::bigint, 'without a policy a user sees no object');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
