-- demo_users_2025 and the demo_stars view: users read their own row, only admins change it,
-- used_stars never exceeds total_stars.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(24);
SELECT tests.create_cast();
INSERT INTO demo_users_2025 (user_id, total_stars, used_stars, demo_end_date, max_courses)
VALUES (tests.teacher_a(), 100, 85, private.chile_today() + 10, 2),
       (tests.teacher_b(), 50, 0, private.chile_today() - 1, 3);

SELECT tests.as_user(tests.teacher_a());
SELECT results_eq($$SELECT total_stars, used_stars, max_courses, is_active FROM demo_users_2025 WHERE user_id = tests.teacher_a()$$,
  $$VALUES (100, 85, 2::smallint, true)$$, 'a demo user reads her row');
SELECT is((SELECT count(*)::int FROM demo_users_2025), 1, 'and no one else''s');
SELECT is_empty($$UPDATE demo_users_2025 SET used_stars = 0 RETURNING 1$$, 'she cannot reset her used stars');
SELECT is_empty($$UPDATE demo_users_2025 SET total_stars = 100000 RETURNING 1$$, 'nor grant herself stars');
SELECT throws_ok($$INSERT INTO demo_users_2025 (user_id, demo_end_date) VALUES (tests.teacher_a(), '2030-01-01')$$, '42501', NULL,
  'nor enrol herself again');
SELECT is_empty($$DELETE FROM demo_users_2025 RETURNING 1$$, 'nor leave the demo');
SELECT results_eq(
  $$SELECT is_demo_user, is_expired, total_stars, used_stars, remaining_stars, usage_percentage, max_courses, is_active FROM demo_stars$$,
  $$VALUES (true, false, 100, 85, 15, 85.0, 2::smallint, true)$$,
  'demo_stars derives her remaining stars and usage (85 %: the warning band)');

SELECT tests.as_user(tests.teacher_b());
SELECT results_eq($$SELECT is_demo_user, is_expired, remaining_stars, usage_percentage FROM demo_stars$$,
  $$VALUES (true, true, 50, 0.0)$$, 'a demo past its end date is expired (compared by day, Chilean time)');

SELECT tests.as_user(tests.creator());
SELECT results_eq($$SELECT is_demo_user, is_expired, total_stars, remaining_stars, usage_percentage, demo_end_date, max_courses FROM demo_stars$$,
  $$VALUES (false, false, 0, 0, 0::numeric, NULL::date, NULL::smallint)$$,
  'someone outside the demo gets one row saying so');
SELECT is_empty('SELECT 1 FROM demo_users_2025', 'and reads no demo rows');

SELECT tests.as_anon();
SELECT is_empty('SELECT 1 FROM demo_users_2025', 'anon reads no demo rows');
SELECT throws_ok('SELECT * FROM demo_stars', '42501', NULL, 'anon cannot read demo_stars');

SELECT tests.as_user(tests.admin());
SELECT is((SELECT count(*)::int FROM demo_users_2025), 2, 'an admin reads every demo row');
SELECT lives_ok($$UPDATE demo_users_2025 SET total_stars = 200 WHERE user_id = tests.teacher_a()$$, 'an admin grants more stars');
SELECT throws_ok($$UPDATE demo_users_2025 SET used_stars = 201 WHERE user_id = tests.teacher_a()$$, '23514', NULL,
  'used_stars can never exceed total_stars');
SELECT throws_ok($$UPDATE demo_users_2025 SET total_stars = 50 WHERE user_id = tests.teacher_a()$$, '23514', NULL,
  'nor can total_stars drop below what was used');
SELECT throws_ok($$UPDATE demo_users_2025 SET used_stars = -1 WHERE user_id = tests.teacher_a()$$, '23514', NULL,
  'used_stars is never negative');
SELECT lives_ok($$INSERT INTO demo_users_2025 (user_id, demo_end_date) VALUES (tests.creator(), '2025-12-31')$$,
  'an admin enrols a user');
SELECT results_eq($$SELECT total_stars, used_stars, max_courses, is_active FROM demo_users_2025 WHERE user_id = tests.creator()$$,
  $$VALUES (500, 0, 3::smallint, true)$$, 'with the default quota');
SELECT throws_ok($$INSERT INTO demo_users_2025 (user_id, total_stars) VALUES (tests.directivo(), 10)$$, '23502', NULL,
  'a demo needs an end date');
SELECT lives_ok($$DELETE FROM demo_users_2025 WHERE user_id = tests.creator()$$, 'an admin removes a user from the demo');

SELECT tests.as_user(tests.teacher_a());
SELECT results_eq($$SELECT total_stars, remaining_stars, usage_percentage FROM demo_stars$$,
  $$VALUES (200, 115, 42.5)$$, 'the user sees the admin''s change');

SELECT tests.as_service();
SELECT is((SELECT count(*)::int FROM demo_users_2025), 2, 'service_role reads every demo row');
SELECT lives_ok($$UPDATE demo_users_2025 SET is_active = false WHERE user_id = tests.teacher_b()$$, 'service_role can suspend a demo');

SELECT * FROM finish();
ROLLBACK;
