-- plans, plan_classes, plan_zones, plan_learning_objectives and the legacy migration.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(41);
SELECT tests.create_cast();
INSERT INTO courses (id, teacher_id, school_rbd, level_code, letter, subject_code) VALUES
  ('c0000000-0000-4000-8000-0000000000a1', tests.teacher_a(), 8485, '3B', 'A', 'matematica'),
  ('c0000000-0000-4000-8000-0000000000b1', tests.teacher_b(), 1, '8B', 'A', 'matematica');
INSERT INTO class_sessions (id, teacher_id, course_id, session_date, start_time, pedagogical_hours) VALUES
  ('5e000000-0000-4000-8000-0000000000a1', tests.teacher_a(), 'c0000000-0000-4000-8000-0000000000a1', '2025-05-14', '08:00', 2),
  ('5e000000-0000-4000-8000-0000000000b1', tests.teacher_b(), 'c0000000-0000-4000-8000-0000000000b1', '2025-05-14', '08:00', 2);

SELECT tests.as_user(tests.teacher_a());
SELECT lives_ok($$INSERT INTO plans (id, course_id, title) VALUES ('91000000-0000-4000-8000-0000000000a1', 'c0000000-0000-4000-8000-0000000000a1', 'Sumas y restas')$$,
  'a teacher creates a simple plan');
SELECT results_eq($$SELECT position FROM plan_classes WHERE plan_id = '91000000-0000-4000-8000-0000000000a1'$$,
  $$VALUES (1::smallint)$$, 'a simple plan has exactly one class');
SELECT lives_ok($$INSERT INTO plans (id, course_id, kind, title, unit_name, class_count)
                  VALUES ('92000000-0000-4000-8000-0000000000a1', 'c0000000-0000-4000-8000-0000000000a1', 'secuencial', 'Fracciones', 'Unidad 2', 4)$$,
  'a teacher creates a sequential plan of four classes');
SELECT results_eq($$SELECT position, teacher_id FROM plan_classes WHERE plan_id = '92000000-0000-4000-8000-0000000000a1' ORDER BY position$$,
  $$VALUES (1::smallint, tests.teacher_a()), (2::smallint, tests.teacher_a()), (3::smallint, tests.teacher_a()), (4::smallint, tests.teacher_a())$$,
  'it gets classes 1 to 4, all hers');
SELECT throws_ok($$INSERT INTO plans (course_id, kind, title, class_count) VALUES ('c0000000-0000-4000-8000-0000000000a1', 'simple', 'X', 3)$$,
  '23514', NULL, 'a simple plan has one class');
SELECT throws_ok($$INSERT INTO plans (course_id, kind, title, class_count) VALUES ('c0000000-0000-4000-8000-0000000000a1', 'secuencial', 'X', 1)$$,
  '23514', NULL, 'a sequential plan has at least two');
SELECT throws_ok($$INSERT INTO plans (course_id, kind, title, class_count) VALUES ('c0000000-0000-4000-8000-0000000000a1', 'secuencial', 'X', 41)$$,
  '23514', NULL, 'and at most forty');
SELECT throws_ok($$INSERT INTO plans (course_id, title) VALUES ('c0000000-0000-4000-8000-0000000000b1', 'Ajeno')$$,
  '23503', NULL, 'a teacher cannot plan another teacher''s course');
SELECT throws_ok($$INSERT INTO plan_classes (plan_id, teacher_id, position) VALUES ('92000000-0000-4000-8000-0000000000a1', tests.teacher_a(), 5)$$,
  '42501', NULL, 'classes are not added by hand');
SELECT throws_ok($$DELETE FROM plan_classes WHERE plan_id = '92000000-0000-4000-8000-0000000000a1'$$,
  '42501', NULL, 'nor removed by hand');
SELECT lives_ok($$UPDATE plan_classes SET title = 'Clase 2: comparar', class_session_id = '5e000000-0000-4000-8000-0000000000a1'
                   WHERE plan_id = '92000000-0000-4000-8000-0000000000a1' AND position = 2$$,
  'each class of the unit is edited on its own and linked to a class on the calendar');
SELECT throws_ok($$UPDATE plan_classes SET class_session_id = '5e000000-0000-4000-8000-0000000000b1'
                    WHERE plan_id = '92000000-0000-4000-8000-0000000000a1' AND position = 3$$,
  '23503', NULL, 'a class cannot be linked to another teacher''s calendar');
SELECT throws_ok($$UPDATE plan_classes SET content_format = 'legacy' WHERE plan_id = '92000000-0000-4000-8000-0000000000a1'$$,
  '42501', NULL, 'the content format is not the client''s to change');
SELECT lives_ok($$UPDATE plans SET class_count = 2 WHERE id = '92000000-0000-4000-8000-0000000000a1'$$,
  'shortening the unit');
SELECT results_eq($$SELECT position FROM plan_classes WHERE plan_id = '92000000-0000-4000-8000-0000000000a1' ORDER BY position$$,
  $$VALUES (1::smallint), (2::smallint)$$, 'removes the classes at the end');
SELECT lives_ok($$UPDATE plans SET class_count = 3 WHERE id = '92000000-0000-4000-8000-0000000000a1'$$, 'lengthening it');
SELECT is((SELECT count(*)::int FROM plan_classes WHERE plan_id = '92000000-0000-4000-8000-0000000000a1'), 3, 'adds classes');

-- zones
SELECT lives_ok($$INSERT INTO plan_zones (id, plan_class_id, zone_type, position, content)
                  SELECT '20000000-0000-4000-8000-0000000000a1', id, 'inicio', 1,
                         '{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"Activar "},{"type":"text","text":"conocimientos","marks":[{"type":"bold"}]}]}]}'
                    FROM plan_classes WHERE plan_id = '91000000-0000-4000-8000-0000000000a1'$$,
  'a teacher adds a zone with rich text');
SELECT results_eq($$SELECT content_length, version FROM plan_zones WHERE id = '20000000-0000-4000-8000-0000000000a1'$$,
  $$VALUES (21, 1)$$, 'its content length counts the text');
SELECT lives_ok($$UPDATE plan_zones SET content = '{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"Hola"}]}]}'
                   WHERE id = '20000000-0000-4000-8000-0000000000a1'$$, 'autosave updates the content');
SELECT results_eq($$SELECT content_length, version FROM plan_zones WHERE id = '20000000-0000-4000-8000-0000000000a1'$$,
  $$VALUES (4, 2)$$, 'and the version goes up');
SELECT throws_ok($$UPDATE plan_zones SET content = '{"type":"paragraph"}' WHERE id = '20000000-0000-4000-8000-0000000000a1'$$,
  '23514', NULL, 'content must be an editor document');
SELECT throws_ok($$INSERT INTO plan_zones (plan_class_id, zone_type, position)
                   SELECT id, 'cierre', 1 FROM plan_classes WHERE plan_id = '91000000-0000-4000-8000-0000000000a1'$$,
  '23505', NULL, 'two zones cannot share a position');
SELECT lives_ok($$INSERT INTO plan_learning_objectives (plan_id, objective_id) VALUES ('91000000-0000-4000-8000-0000000000a1', '3B|matematica|MA03OA09')$$,
  'a plan names the OA it works on');

SELECT tests.as_user(tests.teacher_b());
SELECT is_empty('SELECT 1 FROM plans', 'another teacher reads none of her plans');
SELECT is_empty('SELECT 1 FROM plan_classes', 'nor their classes');
SELECT is_empty('SELECT 1 FROM plan_zones', 'nor their zones');
SELECT is_empty('SELECT 1 FROM plan_learning_objectives', 'nor their objectives');
SELECT is_empty($$UPDATE plan_zones SET content = '{"type":"doc","content":[]}' RETURNING 1$$, 'nor overwrites a zone');
SELECT is_empty($$DELETE FROM plans RETURNING 1$$, 'nor deletes a plan');
SELECT throws_ok($$INSERT INTO plan_zones (plan_class_id, teacher_id, zone_type, position)
                   VALUES ((SELECT id FROM plan_classes LIMIT 1), tests.teacher_a(), 'cierre', 9)$$,
  '42501', NULL, 'nor adds zones to her classes');

SELECT tests.as_user(tests.directivo());
SELECT is((SELECT count(*)::int FROM plans), 2, 'the directivo reads the plans of her school');
SELECT is((SELECT count(*)::int FROM plan_zones), 1, 'and their zones');
SELECT is_empty($$UPDATE plans SET title = 'X' RETURNING 1$$, 'without changing them');

-- legacy content: migrated into zones, or into one base zone when it is not the known shape
SELECT tests.reset_role();
UPDATE plan_classes SET content_format = 'legacy',
       legacy_content = '{"objetivo": "Comparar fracciones", "desarrollo": "<p>Trabajo en parejas</p><p>Puesta en común</p>", "cierre": "Ticket de salida"}'
 WHERE plan_id = '92000000-0000-4000-8000-0000000000a1' AND position = 1;
UPDATE plan_classes SET content_format = 'legacy', legacy_content = '{"objetivo": "Medir", "tarea": ["página 12"]}'
 WHERE plan_id = '92000000-0000-4000-8000-0000000000a1' AND position = 3;

SELECT tests.as_user(tests.teacher_a());
SELECT throws_ok($$INSERT INTO plan_zones (plan_class_id, zone_type, position)
                   SELECT id, 'inicio', 1 FROM plan_classes WHERE plan_id = '92000000-0000-4000-8000-0000000000a1' AND position = 1$$,
  '23514', NULL, 'a legacy class takes no zones before migration');
SELECT is(migrate_legacy_plan_class((SELECT id FROM plan_classes WHERE plan_id = '92000000-0000-4000-8000-0000000000a1' AND position = 1)),
  'migrated', 'legacy content in the known shape is migrated');
SELECT results_eq($$SELECT z.zone_type::text, z.position::int, z.content_length FROM plan_zones z JOIN plan_classes c ON c.id = z.plan_class_id
                     WHERE c.plan_id = '92000000-0000-4000-8000-0000000000a1' AND c.position = 1 ORDER BY z.position$$,
  $$VALUES ('objetivo', 1, 19), ('desarrollo', 2, 33), ('cierre', 3, 16)$$,
  'one zone per section, in class order, HTML reduced to text');
SELECT is(migrate_legacy_plan_class((SELECT id FROM plan_classes WHERE plan_id = '92000000-0000-4000-8000-0000000000a1' AND position = 3)),
  'fallback', 'legacy content of an unknown shape falls back');
SELECT results_eq($$SELECT z.zone_type::text, c.content_format, c.legacy_migration FROM plan_zones z JOIN plan_classes c ON c.id = z.plan_class_id
                     WHERE c.plan_id = '92000000-0000-4000-8000-0000000000a1' AND c.position = 3$$,
  $$VALUES ('planificacion_base', 'zones', 'fallback')$$,
  'to a single base planning zone');

SELECT tests.as_user(tests.teacher_b());
SELECT throws_ok($$SELECT migrate_legacy_plan_class('00000000-0000-4000-8000-000000000000')$$, 'P0002', NULL,
  'another teacher cannot migrate (or probe) her classes');

SELECT tests.as_anon();
SELECT is_empty('SELECT 1 FROM plans', 'anon reads no plans');

SELECT * FROM finish();
ROLLBACK;
