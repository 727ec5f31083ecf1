-- school_events: personal events are private; school-wide ones are written by the school's
-- directivo and read by its teachers; suspended days get no classes.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(18);
SELECT tests.create_cast();
INSERT INTO profiles (user_id, first_name, school_rbd) VALUES (tests.teacher_a(), 'Ana', 8485), (tests.teacher_b(), 'Beto', 1);
INSERT INTO courses (id, teacher_id, school_rbd, level_code, letter, subject_code) VALUES
  ('c0000000-0000-4000-8000-0000000000a1', tests.teacher_a(), 8485, '3B', 'A', 'matematica');
INSERT INTO schedule_blocks (teacher_id, course_id, weekday, start_time, pedagogical_hours) VALUES
  (tests.teacher_a(), 'c0000000-0000-4000-8000-0000000000a1', 5, '10:00', 2);

SELECT tests.as_user(tests.teacher_a());
SELECT lives_ok($$INSERT INTO school_events (id, course_id, title, kind, starts_on, ends_on)
                  VALUES ('e0000000-0000-4000-8000-0000000000a1', 'c0000000-0000-4000-8000-0000000000a1', 'Prueba de fracciones', 'evaluacion', '2025-05-16', '2025-05-16')$$,
  'a teacher adds a personal event for her course');
SELECT throws_ok($$INSERT INTO school_events (school_rbd, title, starts_on, ends_on) VALUES (8485, 'Día del profesor', '2025-10-16', '2025-10-16')$$,
  '42501', NULL, 'a teacher cannot add events for the whole school');
SELECT throws_ok($$INSERT INTO school_events (title, starts_on, ends_on) VALUES ('Al revés', '2025-05-16', '2025-05-15')$$,
  '23514', NULL, 'an event does not end before it starts');
SELECT throws_ok($$INSERT INTO school_events (title, starts_on, ends_on, start_time) VALUES ('Sin fin', '2025-05-16', '2025-05-16', '10:00')$$,
  '23514', NULL, 'a timed event has both times');

SELECT tests.as_user(tests.directivo());
SELECT lives_ok($$INSERT INTO school_events (id, school_rbd, title, kind, starts_on, ends_on, suspends_classes)
                  VALUES ('e0000000-0000-4000-8000-0000000000d1', 8485, 'Jornada de reflexión', 'jornada', '2025-05-23', '2025-05-23', true)$$,
  'the directivo adds a school event that suspends classes');
SELECT throws_ok($$INSERT INTO school_events (school_rbd, title, starts_on, ends_on) VALUES (1, 'Ajeno', '2025-05-23', '2025-05-23')$$,
  '42501', NULL, 'but not for another school');
SELECT is_empty($$SELECT 1 FROM school_events WHERE id = 'e0000000-0000-4000-8000-0000000000a1'$$,
  'nor does she read teachers'' personal events');

SELECT tests.as_user(tests.teacher_a());
SELECT results_eq('SELECT title FROM school_events ORDER BY starts_on', $$VALUES ('Prueba de fracciones'), ('Jornada de reflexión')$$,
  'a teacher of the school reads its events and her own');
SELECT is_empty($$UPDATE school_events SET title = 'X' WHERE id = 'e0000000-0000-4000-8000-0000000000d1' RETURNING 1$$,
  'but cannot change school events');
SELECT is_empty($$DELETE FROM school_events WHERE id = 'e0000000-0000-4000-8000-0000000000d1' RETURNING 1$$,
  'nor delete them');
-- Fridays in May 2025: 2, 9, 16, 23, 30. The 23rd is suspended by the school.
SELECT is(schedule_classes('2025-05-01', '2025-05-31'), 4, 'schedule_classes skips the suspended day');
SELECT is_empty($$SELECT 1 FROM class_sessions WHERE session_date = '2025-05-23'$$, 'no class on the jornada');

SELECT tests.as_user(tests.teacher_b());
SELECT is_empty('SELECT 1 FROM school_events', 'a teacher of another school reads none of it');
SELECT is_empty($$UPDATE school_events SET title = 'X' RETURNING 1$$, 'nor changes any');
SELECT throws_ok($$INSERT INTO school_events (course_id, title, starts_on, ends_on) VALUES ('c0000000-0000-4000-8000-0000000000a1', 'Ajeno', '2025-05-16', '2025-05-16')$$,
  '23503', NULL, 'nor attaches events to her course');

SELECT tests.as_user(tests.admin());
SELECT is((SELECT count(*)::int FROM school_events), 2, 'an admin reads every event');

SELECT tests.as_user(tests.directivo());
SELECT lives_ok($$UPDATE school_events SET ends_on = '2025-05-24' WHERE id = 'e0000000-0000-4000-8000-0000000000d1'$$,
  'the directivo edits her school''s event');

SELECT tests.as_anon();
SELECT is_empty('SELECT 1 FROM school_events', 'anon reads no events');

SELECT * FROM finish();
ROLLBACK;
