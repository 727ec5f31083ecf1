-- search_schools: a teacher finds her school by RBD or by words of its name and comuna.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(10);
SELECT tests.create_cast();

SELECT tests.as_user(tests.teacher_a());
SELECT is((SELECT "NOM_RBD" FROM search_schools('8485') LIMIT 1), 'LICEO INSTITUTO NACIONAL',
  'an RBD finds its school first');
SELECT is((SELECT "RBD" FROM search_schools('8485-9') LIMIT 1), 8485, 'with its check digit too');
SELECT ok((SELECT bool_and("RBD"::text LIKE '84%') AND count(*) = 10 FROM search_schools('84')),
  'the first digits of an RBD list RBDs starting with them, 10 by default');
SELECT is((SELECT "RBD" FROM search_schools('84') LIMIT 1), 84, 'the exact RBD first');
SELECT ok((SELECT count(*) > 0 AND bool_and(comuna = 'Ñuñoa') FROM search_schools('liceo nunoa', 50)),
  'words of the name and the comuna, without accents or ñ');
SELECT ok((SELECT bool_and("NOM_RBD" ILIKE '%instituto nacional%') FROM search_schools('Instituto Nacional')),
  'any case');
SELECT is((SELECT count(*)::int FROM search_schools('x')), 0, 'one letter finds nothing yet');
SELECT is((SELECT count(*)::int FROM search_schools('liceo', 500)), 50, 'at most 50 rows');
SELECT is((SELECT count(*)::int FROM search_schools('zzzz qqqq')), 0, 'no match, no rows');

SELECT tests.as_anon();
SELECT throws_ok($$SELECT * FROM search_schools('8485')$$, '42501', NULL, 'visitors without an account cannot search');

SELECT * FROM finish();
ROLLBACK;
