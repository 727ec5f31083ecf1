-- class_sessions: Programada → Realizada | Cancelada, Cancelada → Programada, nothing else;
-- filling the calendar from the schedule skips holidays, winter break and suspended days.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(32);
SELECT tests.create_cast();
INSERT INTO courses (id, teacher_id, school_rbd, level_code, letter, subject_code) VALUES
  ('c0000000-0000-4000-8000-0000000000a1', tests.teacher_a(), 8485, '3B', 'A', 'matematica'),
  ('c0000000-0000-4000-8000-0000000000b1', tests.teacher_b(), 1, '8B', 'A', 'matematica');
INSERT INTO schedule_blocks (id, teacher_id, course_id, weekday, start_time, pedagogical_hours) VALUES
  ('5b000000-0000-4000-8000-0000000000a1', tests.teacher_a(), 'c0000000-0000-4000-8000-0000000000a1', 3, '08:00', 2),
  ('5b000000-0000-4000-8000-0000000000b1', tests.teacher_b(), 'c0000000-0000-4000-8000-0000000000b1', 3, '08:00', 2);

SELECT tests.as_user(tests.teacher_a());
SELECT lives_ok($$INSERT INTO class_sessions (id, course_id, session_date, start_time, pedagogical_hours)
                  VALUES ('5e000000-0000-4000-8000-000000000001', 'c0000000-0000-4000-8000-0000000000a1', '2025-05-14', '08:00', 2)$$,
  'a teacher schedules a class');
SELECT is((SELECT status::text FROM class_sessions WHERE id = '5e000000-0000-4000-8000-000000000001'), 'Programada',
  'a new class is Programada');
SELECT throws_ok($$INSERT INTO class_sessions (course_id, session_date, start_time, pedagogical_hours, status)
                   VALUES ('c0000000-0000-4000-8000-0000000000a1', '2025-05-15', '08:00', 2, 'Realizada')$$,
  '23514', NULL, 'a class cannot be created already Realizada');
SELECT throws_ok($$INSERT INTO class_sessions (course_id, session_date, start_time, pedagogical_hours)
                   VALUES ('c0000000-0000-4000-8000-0000000000a1', '2025-05-14', '09:00', 1)$$,
  '23P01', NULL, 'her classes cannot overlap');
SELECT throws_ok($$INSERT INTO class_sessions (course_id, session_date, start_time, pedagogical_hours)
                   VALUES ('c0000000-0000-4000-8000-0000000000a1', '2025-05-18', '08:00', 2)$$,
  '23514', NULL, 'no classes on Sunday');
SELECT throws_ok($$INSERT INTO class_sessions (course_id, session_date, start_time, pedagogical_hours)
                   VALUES ('c0000000-0000-4000-8000-0000000000a1', '2026-03-11', '08:00', 2)$$,
  '23514', 'La fecha 2026-03-11 no está en el año escolar 2025 del curso', 'a class is in its course''s school year');
SELECT throws_ok($$INSERT INTO class_sessions (course_id, schedule_block_id, session_date, start_time, pedagogical_hours)
                   VALUES ('c0000000-0000-4000-8000-0000000000a1', '5b000000-0000-4000-8000-0000000000b1', '2025-05-15', '08:00', 2)$$,
  '23503', NULL, 'a class cannot claim another course''s block');

-- the state machine
SELECT throws_ok($$UPDATE class_sessions SET status = 'Cancelada' WHERE id = '5e000000-0000-4000-8000-000000000001'$$,
  '23514', NULL, 'cancelling needs a reason');
SELECT lives_ok($$UPDATE class_sessions SET status = 'Cancelada', cancellation_reason = 'Paro docente' WHERE id = '5e000000-0000-4000-8000-000000000001'$$,
  'Programada → Cancelada');
SELECT lives_ok($$INSERT INTO class_sessions (id, course_id, session_date, start_time, pedagogical_hours)
                  VALUES ('5e000000-0000-4000-8000-000000000002', 'c0000000-0000-4000-8000-0000000000a1', '2025-05-14', '08:00', 2)$$,
  'a cancelled class frees its time');
SELECT throws_ok($$UPDATE class_sessions SET status = 'Programada' WHERE id = '5e000000-0000-4000-8000-000000000001'$$,
  '23P01', NULL, 'so re-scheduling it into the taken time fails');
SELECT lives_ok($$DELETE FROM class_sessions WHERE id = '5e000000-0000-4000-8000-000000000002'$$, 'a class can be deleted');
SELECT throws_ok($$UPDATE class_sessions SET status = 'Realizada' WHERE id = '5e000000-0000-4000-8000-000000000001'$$,
  '23514', 'Una clase Cancelada no puede pasar a Realizada', 'Cancelada → Realizada is not allowed');
SELECT lives_ok($$UPDATE class_sessions SET status = 'Programada' WHERE id = '5e000000-0000-4000-8000-000000000001'$$,
  'Cancelada → Programada');
SELECT is((SELECT cancellation_reason FROM class_sessions WHERE id = '5e000000-0000-4000-8000-000000000001'), NULL,
  're-scheduling clears the reason');
SELECT lives_ok($$UPDATE class_sessions SET status = 'Realizada', notes = 'Salió muy bien' WHERE id = '5e000000-0000-4000-8000-000000000001'$$,
  'Programada → Realizada');
SELECT throws_ok($$UPDATE class_sessions SET status = 'Programada' WHERE id = '5e000000-0000-4000-8000-000000000001'$$,
  '23514', NULL, 'Realizada is final (not back to Programada)');
SELECT throws_ok($$UPDATE class_sessions SET status = 'Cancelada', cancellation_reason = 'x' WHERE id = '5e000000-0000-4000-8000-000000000001'$$,
  '23514', NULL, 'Realizada is final (not Cancelada)');
SELECT throws_ok($$UPDATE class_sessions SET session_date = '2025-05-21' WHERE id = '5e000000-0000-4000-8000-000000000001'$$,
  '23514', NULL, 'a class that took place cannot be moved');
SELECT lives_ok($$UPDATE class_sessions SET notes = 'Repasar fracciones' WHERE id = '5e000000-0000-4000-8000-000000000001'$$,
  'its notes can still be edited');
INSERT INTO courses (id, school_rbd, level_code, letter, subject_code, academic_year)
VALUES ('c0000000-0000-4000-8000-0000000000a9', 8485, '4B', 'A', 'matematica', 2100);
INSERT INTO class_sessions (id, course_id, session_date, start_time, pedagogical_hours)
VALUES ('5e000000-0000-4000-8000-000000000003', 'c0000000-0000-4000-8000-0000000000a9', '2100-03-02', '08:00', 1);
SELECT throws_ok($$UPDATE class_sessions SET status = 'Realizada' WHERE id = '5e000000-0000-4000-8000-000000000003'$$,
  '23514', 'Una clase futura (2100-03-02) no puede estar Realizada', 'a class in the future cannot be Realizada yet');

SELECT tests.as_user(tests.teacher_b());
SELECT is_empty('SELECT 1 FROM class_sessions', 'another teacher reads none of her classes');
SELECT is_empty($$UPDATE class_sessions SET notes = 'x' RETURNING 1$$, 'nor changes them');
SELECT is_empty($$DELETE FROM class_sessions RETURNING 1$$, 'nor deletes them');
SELECT throws_ok($$INSERT INTO class_sessions (course_id, session_date, start_time, pedagogical_hours)
                   VALUES ('c0000000-0000-4000-8000-0000000000a1', '2025-05-15', '08:00', 2)$$,
  '23503', NULL, 'nor schedules classes in her course');

-- filling May 2025 from the weekly schedule (Wednesdays 08:00): 7, 14, 21 and 28 May. The
-- 21st is a national holiday (Glorias Navales) and the 14th is taken by the class above.
SELECT tests.as_user(tests.teacher_a());
SELECT is(schedule_classes('2025-05-01', '2025-05-31'), 2, 'schedule_classes creates the missing Wednesdays');
SELECT results_eq($$SELECT session_date FROM class_sessions WHERE session_date BETWEEN '2025-05-01' AND '2025-05-31' ORDER BY 1$$,
  $$VALUES ('2025-05-07'::date), ('2025-05-14'::date), ('2025-05-28'::date)$$,
  'skipping the 21 May holiday and the existing class');
SELECT is(schedule_classes('2025-06-23', '2025-07-11'), 1, 'in the Metropolitana winter break (23 Jun – 4 Jul) there are no classes');
SELECT is(schedule_classes('2025-05-01', '2025-05-31'), 0, 'running it again creates nothing');

SELECT tests.as_user(tests.directivo());
SELECT is((SELECT count(*)::int FROM class_sessions), 5, 'the directivo reads her school''s classes (not the other teacher''s)');

SELECT tests.as_anon();
SELECT is_empty('SELECT 1 FROM class_sessions', 'anon reads no classes');
SELECT throws_ok($$SELECT schedule_classes('2025-05-01', '2025-05-31')$$, '42501', NULL, 'anon cannot fill a calendar');

SELECT * FROM finish();
ROLLBACK;
