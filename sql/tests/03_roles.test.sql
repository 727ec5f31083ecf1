-- user_roles and the role checks: only admins grant roles; is_admin() and is_content_creator()
-- answer for the caller only.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(22);
SELECT tests.create_cast();

SELECT tests.as_anon();
SELECT is(is_admin(), false, 'anon is not an admin');
SELECT is(is_content_creator(), false, 'anon is not a content creator');
SELECT is_empty('SELECT 1 FROM user_roles', 'anon reads no roles');
SELECT throws_ok($$INSERT INTO user_roles (user_id, role) VALUES (tests.teacher_a(), 'admin')$$, '42501', NULL,
  'anon cannot grant roles');

SELECT tests.as_user(tests.teacher_a());
SELECT is(is_admin(), false, 'a teacher is not an admin');
SELECT is(is_content_creator(), false, 'a teacher is not a content creator');
SELECT is_empty('SELECT 1 FROM user_roles', 'a teacher has no roles and sees nobody else''s');
SELECT throws_ok($$INSERT INTO user_roles (user_id, role) VALUES (tests.teacher_a(), 'admin')$$, '42501', NULL,
  'a teacher cannot make herself admin');
SELECT is_empty($$DELETE FROM user_roles WHERE user_id = tests.admin() RETURNING 1$$,
  'a teacher cannot remove an admin');

SELECT tests.as_user(tests.creator());
SELECT is(is_content_creator(), true, 'a content creator is one');
SELECT is(is_admin(), false, 'a content creator is not an admin');
SELECT results_eq('SELECT role::text FROM user_roles', $$VALUES ('content_creator')$$,
  'a content creator reads only her own role');
SELECT throws_ok($$INSERT INTO user_roles (user_id, role) VALUES (tests.creator(), 'admin')$$, '42501', NULL,
  'a content creator cannot become admin');

SELECT tests.as_user(tests.admin());
SELECT is(is_admin(), true, 'an admin is one');
SELECT is(is_content_creator(), false, 'admin does not imply content creator');
SELECT is((SELECT count(*)::int FROM user_roles), 3, 'an admin reads every role');
SELECT lives_ok($$INSERT INTO user_roles (user_id, role) VALUES (tests.teacher_b(), 'content_creator')$$,
  'an admin grants a role');
SELECT is((SELECT granted_by FROM user_roles WHERE user_id = tests.teacher_b()), tests.admin(),
  'the grant records the admin');
SELECT throws_ok($$INSERT INTO user_roles (user_id, role) VALUES (tests.teacher_a(), 'directivo')$$, '23514', NULL,
  'a directivo role needs a school');
SELECT throws_ok($$INSERT INTO user_roles (user_id, role, school_rbd) VALUES (tests.teacher_a(), 'admin', 8485)$$, '23514', NULL,
  'only directivos have a school');

SELECT tests.as_user(tests.teacher_b());
SELECT is(is_content_creator(), true, 'the granted role takes effect');

SELECT tests.as_service();
SELECT is((SELECT count(*)::int FROM user_roles), 4, 'service_role reads every role');

SELECT * FROM finish();
ROLLBACK;
