-- The planner's two functions: a simple plan created whole (or not at all), and a class's
-- zones reordered in one statement, both as the caller under RLS.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(16);
SELECT tests.create_cast();
INSERT INTO courses (id, teacher_id, level_code, letter, subject_code) VALUES
  ('c0000000-0000-4000-8000-0000000000a1', tests.teacher_a(), '7B', 'A', 'matematica');
INSERT INTO class_sessions (id, teacher_id, course_id, session_date, start_time, pedagogical_hours) VALUES
  ('5e000000-0000-4000-8000-0000000000a1', tests.teacher_a(), 'c0000000-0000-4000-8000-0000000000a1', '2025-05-19', '08:00', 2);
CREATE TEMP TABLE made (plan_id uuid) ON COMMIT DROP;
GRANT ALL ON made TO authenticated;

SELECT tests.as_user(tests.teacher_a());
SELECT lives_ok($$INSERT INTO made SELECT create_simple_plan('c0000000-0000-4000-8000-0000000000a1', ' Números enteros ',
                    (SELECT array_agg(id) FROM (SELECT id FROM learning_objectives WHERE level_code = '7B' AND subject_code = 'matematica' AND kind = 'OA' ORDER BY id LIMIT 2) o),
                    '5e000000-0000-4000-8000-0000000000a1', 2::smallint)$$,
  'a teacher creates a simple plan for her class');
SELECT is((SELECT title FROM plans WHERE id = (SELECT plan_id FROM made)), 'Números enteros', 'with its title trimmed');
SELECT is((SELECT count(*)::int FROM plan_learning_objectives WHERE plan_id = (SELECT plan_id FROM made)), 2, 'its two OAs');
SELECT is((SELECT class_session_id FROM plan_classes WHERE plan_id = (SELECT plan_id FROM made)), '5e000000-0000-4000-8000-0000000000a1'::uuid,
  'its class linked to the calendar');
SELECT results_eq($$SELECT z.zone_type::text, z.title FROM plan_zones z JOIN plan_classes c ON c.id = z.plan_class_id
                    WHERE c.plan_id = (SELECT plan_id FROM made) ORDER BY z.position$$,
  $$VALUES ('objetivo', 'Objetivo de la clase'), ('inicio', 'Inicio'), ('desarrollo', 'Desarrollo'), ('cierre', 'Cierre'),
           ('evaluacion', 'Evaluación formativa'), ('recursos', 'Recursos'), ('adecuaciones', 'Adecuaciones (PIE/DUA)'),
           ('evaluacion', 'Indicadores de evaluación')$$,
  'and the eight standard zones in order');
SELECT throws_ok($$SELECT create_simple_plan('c0000000-0000-4000-8000-0000000000a1', 'Larga', class_blocks => 9::smallint)$$,
  '23514', NULL, 'a class of nine blocks is refused');
SELECT throws_ok($$SELECT create_simple_plan('c0000000-0000-4000-8000-0000000000a1', 'Con un OA ajeno', ARRAY['no-existe'])$$,
  '23503', NULL, 'an unknown OA refuses the whole plan');
SELECT is((SELECT count(*)::int FROM plans), 1, 'and leaves nothing behind');


-- Reordering: desarrollo first, then the rest as they were.
SELECT lives_ok($$SELECT reorder_plan_zones(c.id, (SELECT array_agg(z.id ORDER BY z.zone_type <> 'desarrollo', z.position) FROM plan_zones z WHERE z.plan_class_id = c.id))
                    FROM plan_classes c WHERE c.plan_id = (SELECT plan_id FROM made)$$,
  'she puts desarrollo first in one call');
SELECT is((SELECT zone_type::text FROM plan_zones WHERE position = 1), 'desarrollo', 'and it is first');
SELECT throws_ok($$SELECT reorder_plan_zones(c.id, (SELECT array_agg(z.id) FROM (SELECT id FROM plan_zones WHERE plan_class_id = c.id LIMIT 3) z))
                    FROM plan_classes c WHERE c.plan_id = (SELECT plan_id FROM made)$$,
  '22023', NULL, 'a list without every zone of the class is refused');

-- A plan for a date the calendar has no class on: the class is made with it.
SELECT lives_ok($$SELECT create_simple_plan('c0000000-0000-4000-8000-0000000000a1', 'Un jueves', class_blocks => 2::smallint,
                    class_date => '2025-05-22', class_start => '10:00')$$,
  'a plan for a date makes its class');
SELECT results_eq($$SELECT s.session_date, s.start_time, s.pedagogical_hours::int FROM plan_classes c JOIN class_sessions s ON s.id = c.class_session_id
                    JOIN plans p ON p.id = c.plan_id WHERE p.title = 'Un jueves'$$,
  $$VALUES ('2025-05-22'::date, '10:00'::time, 2)$$, 'on that date and hour, as long as the plan');
SELECT throws_ok($$SELECT create_simple_plan('c0000000-0000-4000-8000-0000000000a1', 'Encima', class_date => '2025-05-22', class_start => '10:45')$$,
  '23P01', NULL, 'a date and hour that overlap another class refuse the plan too');
SELECT is((SELECT count(*)::int FROM plans WHERE title = 'Encima'), 0, 'and no class or plan is left');

SELECT tests.as_user(tests.teacher_b());
SELECT throws_ok($$SELECT create_simple_plan('c0000000-0000-4000-8000-0000000000a1', 'Ajeno')$$,
  '23503', NULL, 'another teacher cannot plan her course');

SELECT * FROM finish();
ROLLBACK;
