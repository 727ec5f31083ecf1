-- schedule_blocks: 45-minute pedagogical hours, no overlaps, only on one's own courses.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(17);
SELECT tests.create_cast();
INSERT INTO courses (id, teacher_id, school_rbd, level_code, letter, subject_code) VALUES
  ('c0000000-0000-4000-8000-0000000000a1', tests.teacher_a(), 8485, '3B', 'A', 'matematica'),
  ('c0000000-0000-4000-8000-0000000000a2', tests.teacher_a(), 8485, '3B', 'B', 'matematica'),
  ('c0000000-0000-4000-8000-0000000000b1', tests.teacher_b(), 1, '8B', 'A', 'matematica');

SELECT tests.as_user(tests.teacher_a());
SELECT lives_ok($$INSERT INTO schedule_blocks (id, course_id, weekday, start_time, pedagogical_hours, room)
                  VALUES ('5b000000-0000-4000-8000-0000000000a1', 'c0000000-0000-4000-8000-0000000000a1', 1, '08:00', 2, 'Sala 12')$$,
  'a teacher adds a block of two pedagogical hours');
SELECT results_eq($$SELECT teacher_id, end_time FROM schedule_blocks$$,
  $$VALUES (tests.teacher_a(), '09:30'::time)$$, 'it is hers and ends 90 minutes later');
SELECT lives_ok($$INSERT INTO schedule_blocks (course_id, weekday, start_time, pedagogical_hours)
                  VALUES ('c0000000-0000-4000-8000-0000000000a2', 1, '09:30', 1)$$,
  'a block may start when the previous ends');
SELECT throws_ok($$INSERT INTO schedule_blocks (course_id, weekday, start_time, pedagogical_hours)
                   VALUES ('c0000000-0000-4000-8000-0000000000a2', 1, '09:00', 1)$$,
  '23P01', NULL, 'her blocks cannot overlap');
SELECT lives_ok($$INSERT INTO schedule_blocks (course_id, weekday, start_time, pedagogical_hours)
                  VALUES ('c0000000-0000-4000-8000-0000000000a2', 2, '08:00', 2)$$,
  'the same hour another day is fine');
SELECT throws_ok($$INSERT INTO schedule_blocks (course_id, weekday, start_time, pedagogical_hours)
                   VALUES ('c0000000-0000-4000-8000-0000000000a1', 7, '08:00', 2)$$,
  '23514', NULL, 'no classes on Sunday');
SELECT throws_ok($$INSERT INTO schedule_blocks (course_id, weekday, start_time, pedagogical_hours)
                   VALUES ('c0000000-0000-4000-8000-0000000000a1', 3, '08:00', 5)$$,
  '23514', NULL, 'at most four pedagogical hours in a block');
SELECT throws_ok($$INSERT INTO schedule_blocks (course_id, weekday, start_time, pedagogical_hours)
                   VALUES ('c0000000-0000-4000-8000-0000000000a1', 3, '22:30', 2)$$,
  '23514', NULL, 'blocks end by 23:00');
SELECT throws_ok($$INSERT INTO schedule_blocks (course_id, weekday, start_time, pedagogical_hours, end_time)
                   VALUES ('c0000000-0000-4000-8000-0000000000a1', 3, '08:00', 2, '12:00')$$,
  '428C9', NULL, 'the end time is computed, never sent');
SELECT throws_ok($$INSERT INTO schedule_blocks (course_id, weekday, start_time, pedagogical_hours)
                   VALUES ('c0000000-0000-4000-8000-0000000000b1', 4, '08:00', 2)$$,
  '23503', NULL, 'a teacher cannot put another teacher''s course in her schedule');

SELECT tests.as_user(tests.teacher_b());
SELECT is_empty('SELECT 1 FROM schedule_blocks', 'another teacher reads none of her blocks');
SELECT is_empty($$UPDATE schedule_blocks SET room = 'X' RETURNING 1$$, 'nor changes them');
SELECT is_empty($$DELETE FROM schedule_blocks RETURNING 1$$, 'nor deletes them');
SELECT throws_ok($$INSERT INTO schedule_blocks (teacher_id, course_id, weekday, start_time, pedagogical_hours)
                   VALUES (tests.teacher_a(), 'c0000000-0000-4000-8000-0000000000a1', 5, '08:00', 2)$$,
  '42501', NULL, 'nor adds blocks to her schedule');

SELECT tests.as_user(tests.directivo());
SELECT is((SELECT count(*)::int FROM schedule_blocks), 3, 'the directivo reads the schedule of her school''s courses');

SELECT tests.as_anon();
SELECT is_empty('SELECT 1 FROM schedule_blocks', 'anon reads no schedule');

SELECT tests.as_service();
SELECT is((SELECT count(*)::int FROM schedule_blocks), 3, 'service_role reads every block');

SELECT * FROM finish();
ROLLBACK;
