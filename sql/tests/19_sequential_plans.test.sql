-- Plan. Secuencial: a unit created whole (classes titled, dated from the calendar, with their
-- zones) or not at all, and a generated unit written into it in one transaction, as the
-- caller under RLS.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(20);
SELECT tests.create_cast();
INSERT INTO courses (id, teacher_id, level_code, letter, subject_code) VALUES
  ('c0000000-0000-4000-8000-0000000000a1', tests.teacher_a(), '7B', 'A', 'matematica'),
  ('c0000000-0000-4000-8000-0000000000a2', tests.teacher_a(), '7B', 'B', 'matematica');
INSERT INTO class_sessions (id, teacher_id, course_id, session_date, start_time, pedagogical_hours) VALUES
  ('5e000000-0000-4000-8000-0000000000a1', tests.teacher_a(), 'c0000000-0000-4000-8000-0000000000a1', '2025-05-19', '08:00', 2),
  ('5e000000-0000-4000-8000-0000000000a2', tests.teacher_a(), 'c0000000-0000-4000-8000-0000000000a1', '2025-05-22', '08:00', 2),
  ('5e000000-0000-4000-8000-0000000000b1', tests.teacher_a(), 'c0000000-0000-4000-8000-0000000000a2', '2025-05-20', '08:00', 2);
CREATE TEMP TABLE made (plan_id uuid) ON COMMIT DROP;
GRANT ALL ON made TO authenticated;

SELECT tests.as_user(tests.teacher_a());
SELECT lives_ok($$INSERT INTO made SELECT create_sequential_plan('c0000000-0000-4000-8000-0000000000a1', ' Números enteros ', 3::smallint,
                    (SELECT array_agg(id) FROM (SELECT id FROM learning_objectives WHERE level_code = '7B' AND subject_code = 'matematica' AND kind = 'OA' ORDER BY position LIMIT 2) o),
                    ARRAY['5e000000-0000-4000-8000-0000000000a1', '5e000000-0000-4000-8000-0000000000a2']::uuid[], 2::smallint, 'Unidad 1: Números')$$,
  'a teacher creates a unit of three classes over two dates of her calendar');
SELECT results_eq($$SELECT kind::text, title, unit_name, class_count::int FROM plans WHERE id = (SELECT plan_id FROM made)$$,
  $$VALUES ('secuencial', 'Números enteros', 'Unidad 1: Números', 3)$$, 'a sequential plan, its title trimmed');
SELECT is((SELECT count(*)::int FROM plan_learning_objectives WHERE plan_id = (SELECT plan_id FROM made)), 2, 'with its two OAs');
SELECT results_eq($$SELECT position::int, title, class_session_id FROM plan_classes WHERE plan_id = (SELECT plan_id FROM made) ORDER BY position$$,
  $$VALUES (1, 'Clase 1', '5e000000-0000-4000-8000-0000000000a1'::uuid), (2, 'Clase 2', '5e000000-0000-4000-8000-0000000000a2'::uuid), (3, 'Clase 3', NULL::uuid)$$,
  'each class titled and dated in order, the last without a date');
SELECT results_eq($$SELECT count(*)::int, string_agg(DISTINCT z.zone_type::text, ',' ORDER BY z.zone_type::text) FROM plan_zones z
                    JOIN plan_classes c ON c.id = z.plan_class_id WHERE c.plan_id = (SELECT plan_id FROM made)$$,
  $$VALUES (15, 'cierre,desarrollo,evaluacion,inicio,objetivo')$$, 'and five zones in each class');
SELECT throws_ok($$SELECT create_sequential_plan('c0000000-0000-4000-8000-0000000000a1', 'Una sola', 1::smallint)$$,
  '23514', NULL, 'a unit of one class is refused');
SELECT throws_ok($$SELECT create_sequential_plan('c0000000-0000-4000-8000-0000000000a1', 'Repetida', 2::smallint, '{}',
                    ARRAY['5e000000-0000-4000-8000-0000000000a1', '5e000000-0000-4000-8000-0000000000a1']::uuid[])$$,
  '22023', NULL, 'the same date twice is refused');
SELECT throws_ok($$SELECT create_sequential_plan('c0000000-0000-4000-8000-0000000000a1', 'Ya planificada', 2::smallint, '{}',
                    ARRAY['5e000000-0000-4000-8000-0000000000a1']::uuid[])$$,
  '23505', NULL, 'a date another plan already covers is refused');
SELECT throws_ok($$SELECT create_sequential_plan('c0000000-0000-4000-8000-0000000000a1', 'Otro curso', 2::smallint, '{}',
                    ARRAY['5e000000-0000-4000-8000-0000000000b1']::uuid[])$$,
  '23503', NULL, 'a date of another course is refused');
SELECT is((SELECT count(*)::int FROM plans), 1, 'and the refusals leave nothing behind');

-- A generated unit written in.
SELECT is(apply_unit_generation((SELECT plan_id FROM made), $$[
    {"position": 1, "title": "Clase 1: Activación e introducción", "zones": [
      {"zone_type": "objetivo", "title": "Objetivo de la clase", "content": {"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Activar"}]}]}},
      {"zone_type": "notas", "title": "Notas", "content": {"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Nueva"}]}]}}]},
    {"position": 3, "title": "Clase 3: Síntesis y evaluación", "zones": [
      {"zone_type": "cierre", "title": "Cierre", "content": {"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Sintetizar"}]}]}}]}
  ]$$::jsonb), 3, 'a generated unit is written in: three zones');
SELECT results_eq($$SELECT c.position::int, c.title, z.zone_type::text, z.position::int, z.version FROM plan_zones z JOIN plan_classes c ON c.id = z.plan_class_id
                    WHERE c.plan_id = (SELECT plan_id FROM made) AND z.content_length > 0 ORDER BY c.position, z.position$$,
  $$VALUES (1, 'Clase 1: Activación e introducción', 'objetivo', 1, 2), (1, 'Clase 1: Activación e introducción', 'notas', 6, 1),
           (3, 'Clase 3: Síntesis y evaluación', 'cierre', 4, 2)$$,
  'each class titled, its zone of each kind filled (a new kind added at the end), versions raised');
SELECT throws_ok($$SELECT apply_unit_generation((SELECT plan_id FROM made), $j$[
    {"position": 2, "title": "Clase 2", "zones": [{"zone_type": "inicio", "content": {"type": "doc", "content": []}}]},
    {"position": 9, "title": "Clase 9", "zones": []}]$j$::jsonb)$$,
  '22023', NULL, 'a class the unit does not have refuses the whole generation');
SELECT is((SELECT title FROM plan_classes WHERE plan_id = (SELECT plan_id FROM made) AND position = 2), 'Clase 2', 'and nothing of it is kept');
SELECT throws_ok($$SELECT apply_unit_generation((SELECT plan_id FROM made), '[{"position": 1, "zones": [{"zone_type": "inicio", "content": {"type": "nope"}}]}]')$$,
  '23514', NULL, 'content that is not an editor document is refused');

-- Its OAs changed in one call: the new list replaces the old.
SELECT is(set_plan_objectives((SELECT plan_id FROM made),
            (SELECT array_agg(id) FROM (SELECT id FROM learning_objectives WHERE level_code = '7B' AND subject_code = 'matematica' AND kind = 'OA' ORDER BY position OFFSET 1 LIMIT 3) o)),
  3, 'a plan''s OAs are replaced by a new list');
SELECT is((SELECT count(*)::int FROM plan_learning_objectives l JOIN learning_objectives o ON o.id = l.objective_id
            WHERE l.plan_id = (SELECT plan_id FROM made) AND o.position = (SELECT min(position) FROM learning_objectives WHERE level_code = '7B' AND subject_code = 'matematica' AND kind = 'OA')),
  0, 'the OA left out is gone');
SELECT throws_ok($$SELECT set_plan_objectives((SELECT plan_id FROM made), '{}')$$, '22023', NULL, 'a plan keeps at least one OA');
SELECT throws_ok($$SELECT set_plan_objectives((SELECT plan_id FROM made), ARRAY['no-existe'])$$, '23503', NULL, 'an unknown OA refuses the change');

SELECT tests.as_user(tests.teacher_b());
SELECT throws_ok($$SELECT apply_unit_generation((SELECT plan_id FROM made), '[]')$$,
  'P0002', NULL, 'another teacher cannot write into her unit');

SELECT * FROM finish();
ROLLBACK;
