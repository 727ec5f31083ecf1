-- courses: a teacher's own; a demo user is capped at max_courses; a directivo reads her
-- school's courses.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(30);
SELECT tests.create_cast();
INSERT INTO profiles (user_id, first_name, last_name, school_rbd) VALUES
  (tests.teacher_a(), 'Ana', 'Pérez', 8485), (tests.teacher_b(), 'Beto', 'Soto', 1);

SELECT tests.as_user(tests.teacher_a());
SELECT lives_ok($$INSERT INTO courses (id, level_code, letter, subject_code, students_count)
                  VALUES ('c0000000-0000-4000-8000-0000000000a1', '3B', 'A', 'matematica', 32)$$,
  'a teacher creates a course');
SELECT results_eq($$SELECT teacher_id, school_rbd, academic_year FROM courses$$,
  $$VALUES (tests.teacher_a(), 8485, 2025::smallint)$$,
  'it is hers, at her profile''s school, in 2025');
SELECT lives_ok($$INSERT INTO courses (id, level_code, letter, subject_code, school_rbd)
                  VALUES ('c0000000-0000-4000-8000-0000000000a2', '1M', 'B', 'lengua_y_literatura', 1)$$,
  'she also teaches at another school');
SELECT throws_ok($$INSERT INTO courses (level_code, letter, subject_code) VALUES ('3B', 'A', 'matematica')$$, '23505', NULL,
  'the same course cannot be created twice');
SELECT throws_ok($$INSERT INTO courses (level_code, letter, subject_code) VALUES ('1B', 'A', 'filosofia')$$, '23503', NULL,
  'the subject must be taught at the level');
SELECT throws_ok($$INSERT INTO courses (level_code, letter, subject_code) VALUES ('9B', 'A', 'matematica')$$, '23503', NULL,
  'the level must exist');
SELECT throws_ok($$INSERT INTO courses (level_code, letter, subject_code) VALUES ('3B', 'AB', 'matematica')$$, '23514', NULL,
  'the letter is one capital letter');
SELECT throws_ok($$INSERT INTO courses (level_code, letter, subject_code, students_count) VALUES ('3B', 'C', 'matematica', 0)$$, '23514', NULL,
  'a course has at least one student when counted');
SELECT throws_ok($$INSERT INTO courses (teacher_id, level_code, letter, subject_code) VALUES (tests.teacher_b(), '3B', 'D', 'matematica')$$,
  '42501', NULL, 'a teacher cannot create a course for another teacher');
SELECT is((SELECT count(*)::int FROM courses WHERE teacher_id = tests.teacher_a()), 2,
  'the onboarding check sees her courses');

SELECT tests.as_user(tests.teacher_b());
SELECT is_empty('SELECT 1 FROM courses', 'another teacher reads none of her courses');
SELECT is_empty($$SELECT 1 FROM courses WHERE id = 'c0000000-0000-4000-8000-0000000000a1'$$, 'not even by id');
SELECT is_empty($$UPDATE courses SET letter = 'Z' RETURNING 1$$, 'nor changes them');
SELECT is_empty($$DELETE FROM courses RETURNING 1$$, 'nor deletes them');
SELECT lives_ok($$INSERT INTO courses (id, level_code, letter, subject_code) VALUES ('c0000000-0000-4000-8000-0000000000b1', '8B', 'A', 'historia_geografia_y_ciencias_sociales')$$,
  'he creates his own');

SELECT tests.as_user(tests.teacher_a());
SELECT throws_ok($$UPDATE courses SET teacher_id = tests.teacher_b() WHERE id = 'c0000000-0000-4000-8000-0000000000a1'$$, '42501', NULL,
  'a teacher cannot hand a course to someone else');
SELECT lives_ok($$UPDATE courses SET students_count = 30, color = '#16a34a' WHERE id = 'c0000000-0000-4000-8000-0000000000a1'$$,
  'a teacher edits her course');
SELECT throws_ok($$UPDATE courses SET color = 'red' WHERE id = 'c0000000-0000-4000-8000-0000000000a1'$$, '23514', NULL,
  'colours are #rrggbb');

SELECT tests.as_user(tests.directivo());
SELECT results_eq('SELECT id FROM courses', $$VALUES ('c0000000-0000-4000-8000-0000000000a1'::uuid)$$,
  'a directivo reads the courses of her school only');
SELECT is_empty($$UPDATE courses SET letter = 'Z' RETURNING 1$$, 'but does not change them');

SELECT tests.as_user(tests.admin());
SELECT is_empty('SELECT 1 FROM courses', 'an admin does not read teachers'' courses');

SELECT tests.as_anon();
SELECT is_empty('SELECT 1 FROM courses', 'anon reads no courses');
SELECT throws_ok($$INSERT INTO courses (teacher_id, level_code, letter, subject_code) VALUES (tests.teacher_a(), '3B', 'E', 'matematica')$$,
  '42501', NULL, 'anon cannot create courses');

-- demo users: at most max_courses
SELECT tests.reset_role();
INSERT INTO demo_users_2025 (user_id, demo_end_date, max_courses) VALUES (tests.teacher_b(), '2030-12-31', 2);
SELECT tests.as_user(tests.teacher_b());
SELECT lives_ok($$INSERT INTO courses (level_code, letter, subject_code) VALUES ('8B', 'B', 'matematica')$$,
  'a demo user creates courses up to max_courses');
SELECT throws_ok($$INSERT INTO courses (level_code, letter, subject_code) VALUES ('8B', 'C', 'matematica')$$,
  '23514', 'Alcanzaste el máximo de 2 cursos de la demo', 'but not one more');
SELECT throws_ok($$INSERT INTO courses (level_code, letter, subject_code) VALUES ('7B', 'A', 'matematica'), ('7B', 'B', 'matematica')$$,
  '23514', NULL, 'nor several in one statement');
SELECT lives_ok($$DELETE FROM courses WHERE letter = 'B'$$, 'deleting a course frees a place');
SELECT lives_ok($$INSERT INTO courses (level_code, letter, subject_code) VALUES ('8B', 'C', 'matematica')$$,
  'which can be used again');

SELECT tests.as_service();
SELECT throws_ok($$INSERT INTO courses (teacher_id, level_code, letter, subject_code) VALUES (tests.teacher_b(), '8B', 'D', 'matematica')$$,
  '23514', NULL, 'the cap holds even for service_role');
SELECT is((SELECT count(*)::int FROM courses), 4, 'service_role reads every course');

SELECT * FROM finish();
ROLLBACK;
