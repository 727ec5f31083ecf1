-- admin_users: admins list and search the accounts with their profile, roles and demo; nobody
-- else can.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(9);
SELECT tests.create_cast();
INSERT INTO profiles (user_id, first_name, last_name, how_found_us, school_rbd)
VALUES (tests.teacher_a(), 'Ána', 'Muñoz', 'Un colega', 8485);
INSERT INTO demo_users_2025 (user_id, total_stars, used_stars, demo_end_date, max_courses)
VALUES (tests.teacher_a(), 500, 120, '2025-12-31', 4);

SELECT tests.as_user(tests.admin());
SELECT ok((SELECT count(*) >= 5 FROM admin_users()), 'an admin lists every account');
SELECT is((SELECT array_agg(email ORDER BY email) FROM admin_users('ana munoz')), ARRAY['ana@profe.cl'],
  'searched by words of the name, accents optional');
SELECT is((SELECT school_name FROM admin_users('liceo instituto nacional') WHERE email = 'ana@profe.cl'),
  'LICEO INSTITUTO NACIONAL', 'and by school, which it names');
SELECT is((SELECT (demo_total_stars, demo_used_stars, demo_max_courses)::text FROM admin_users('ana@profe.cl')),
  '(500,120,4)', 'with the Demo 2025 row');
SELECT is((SELECT (roles, directivo_rbd)::text FROM admin_users('directora')),
  '({directivo},8485)', 'with roles and the school a directivo leads');
SELECT is((SELECT count(*)::int FROM admin_users('', 2)), 2, 'as many rows as asked for');

SELECT tests.as_user(tests.teacher_a());
SELECT throws_ok($$SELECT * FROM admin_users()$$, '42501', NULL, 'a teacher cannot list accounts');
SELECT tests.as_anon();
SELECT throws_ok($$SELECT * FROM admin_users()$$, '42501', NULL, 'nor can a visitor');
SELECT tests.as_service();
SELECT ok((SELECT count(*) >= 5 FROM admin_users()), 'the service role can');

SELECT * FROM finish();
ROLLBACK;
