-- school_days: each teacher's day shape for the weekly grid, valid by construction and
-- private to its teacher.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(12);
SELECT tests.create_cast();

SELECT tests.as_user(tests.teacher_a());
SELECT lives_ok($$INSERT INTO school_days DEFAULT VALUES$$, 'a teacher saves the usual day');
SELECT is((SELECT (day_start, pedagogical_hours, jsonb_array_length(breaks))::text FROM school_days),
  '(08:00:00,8,3)', 'with its defaults: 08:00, eight hours, three breaks');
SELECT lives_ok($$UPDATE school_days SET day_start = '07:45', pedagogical_hours = 10,
                    breaks = '[{"after_hour": 3, "minutes": 20, "label": "Recreo"}]'$$,
  'she changes start, length and breaks');
SELECT throws_ok($$UPDATE school_days SET breaks = '[{"after_hour": 10, "minutes": 20, "label": "Recreo"}]'$$,
  '23514', NULL, 'a break after the last hour is refused');
SELECT throws_ok($$UPDATE school_days SET breaks = '[{"after_hour": 2, "minutes": 20, "label": "A"}, {"after_hour": 2, "minutes": 10, "label": "B"}]'$$,
  '23514', NULL, 'two breaks after the same hour are refused');
SELECT throws_ok($$UPDATE school_days SET breaks = '[{"after_hour": 2, "minutes": 120, "label": "Largo"}]'$$,
  '23514', NULL, 'a break of two hours is refused');
SELECT throws_ok($$UPDATE school_days SET breaks = '[{"after_hour": 2, "minutes": 15, "label": " "}]'$$,
  '23514', NULL, 'a break needs a label');
SELECT throws_ok($$UPDATE school_days SET breaks = '{"after_hour": 2}'$$,
  '23514', NULL, 'breaks are a list');
SELECT throws_ok($$UPDATE school_days SET day_start = '06:30'$$, '23514', NULL, 'the day starts at 07:00 or later');
SELECT throws_ok($$UPDATE school_days SET day_start = '14:00', pedagogical_hours = 14$$,
  '23514', NULL, 'the day ends by 23:00');

SELECT tests.as_user(tests.teacher_b());
SELECT is_empty('SELECT 1 FROM school_days', 'another teacher reads none of it');
SELECT throws_ok(format($$INSERT INTO school_days (teacher_id) VALUES (%L)$$, tests.teacher_a()),
  '42501', NULL, 'nor writes it');

SELECT * FROM finish();
ROLLBACK;
