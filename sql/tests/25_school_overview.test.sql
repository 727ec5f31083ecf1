-- school_overview: the directivo of a school sees each of its courses with teacher, plans and
-- classes; other schools' courses are not in it, and nobody else may call it.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(7);
SELECT tests.create_cast();
INSERT INTO profiles (user_id, first_name, last_name, how_found_us, school_rbd)
VALUES (tests.teacher_a(), 'Ana', 'Muñoz', 'Un colega', 8485);
INSERT INTO courses (id, teacher_id, school_rbd, level_code, letter, subject_code) VALUES
  ('c0000000-0000-4000-8000-0000000000a1', tests.teacher_a(), 8485, '3B', 'A', 'matematica'),
  ('c0000000-0000-4000-8000-0000000000a2', tests.teacher_b(), 8485, '8B', 'B', 'matematica'),
  ('c0000000-0000-4000-8000-0000000000b1', tests.teacher_b(), 1, '8B', 'A', 'matematica');
INSERT INTO class_sessions (id, teacher_id, course_id, session_date, start_time, pedagogical_hours) VALUES
  ('5e000000-0000-4000-8000-0000000000a1', tests.teacher_a(), 'c0000000-0000-4000-8000-0000000000a1', '2025-05-12', '08:00', 2),
  ('5e000000-0000-4000-8000-0000000000a2', tests.teacher_a(), 'c0000000-0000-4000-8000-0000000000a1', '2025-05-13', '08:00', 2),
  ('5e000000-0000-4000-8000-0000000000a3', tests.teacher_a(), 'c0000000-0000-4000-8000-0000000000a1', '2025-05-14', '08:00', 2);
UPDATE class_sessions SET status = 'Realizada' WHERE id = '5e000000-0000-4000-8000-0000000000a2';
UPDATE class_sessions SET status = 'Cancelada', cancellation_reason = 'Paro' WHERE id = '5e000000-0000-4000-8000-0000000000a3';
SELECT tests.as_user(tests.teacher_a());
INSERT INTO plans (id, course_id, title) VALUES ('91000000-0000-4000-8000-0000000000a1', 'c0000000-0000-4000-8000-0000000000a1', 'Sumas');
UPDATE plan_classes SET class_session_id = '5e000000-0000-4000-8000-0000000000a2' WHERE plan_id = '91000000-0000-4000-8000-0000000000a1';

SELECT tests.as_user(tests.directivo());
SELECT is((SELECT count(*)::int FROM school_overview(8485)), 2, 'the directivo sees both courses of her school, not others');
SELECT is((SELECT (teacher_name, plan_count, classes_total, classes_done, classes_cancelled, classes_planned)::text
             FROM school_overview(8485) WHERE course_id = 'c0000000-0000-4000-8000-0000000000a1'),
  '("Ana Muñoz",1,3,1,1,1)', 'with the teacher''s name, plans and classes done, cancelled and planned');
SELECT is((SELECT (teacher_name IS NULL, plan_count, classes_total)::text
             FROM school_overview(8485) WHERE course_id = 'c0000000-0000-4000-8000-0000000000a2'),
  '(t,0,0)', 'a teacher without a profile has no name');
SELECT throws_ok($$SELECT * FROM school_overview(1)$$, '42501', NULL, 'another school''s overview is refused');

SELECT tests.as_user(tests.teacher_a());
SELECT throws_ok($$SELECT * FROM school_overview(8485)$$, '42501', NULL, 'a teacher of the school cannot see it');
SELECT tests.as_user(tests.admin());
SELECT throws_ok($$SELECT * FROM school_overview(8485)$$, '42501', NULL, 'nor can an admin');
SELECT tests.as_anon();
SELECT throws_ok($$SELECT * FROM school_overview(8485)$$, '42501', NULL, 'nor a visitor');

SELECT * FROM finish();
ROLLBACK;
