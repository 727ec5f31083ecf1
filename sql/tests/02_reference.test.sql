-- Reference data (regions, schools, calendar, curriculum): read-only for signed-in users,
-- invisible to anon, writable only by service_role.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(31);
SELECT tests.create_cast();

-- anon sees nothing
SELECT tests.as_anon();
SELECT is_empty('SELECT 1 FROM schools', 'anon reads no schools');
SELECT is_empty('SELECT 1 FROM regions', 'anon reads no regions');
SELECT is_empty('SELECT 1 FROM holidays', 'anon reads no holidays');
SELECT is_empty('SELECT 1 FROM school_calendars', 'anon reads no school calendars');
SELECT is_empty('SELECT 1 FROM levels', 'anon reads no levels');
SELECT is_empty('SELECT 1 FROM subjects', 'anon reads no subjects');
SELECT is_empty('SELECT 1 FROM level_subjects', 'anon reads no level_subjects');
SELECT is_empty('SELECT 1 FROM learning_objectives', 'anon reads no learning objectives');
SELECT throws_ok($$INSERT INTO schools ("RBD", dgv_rbd, "NOM_RBD", region_code, provincia_code, provincia, comuna_code, comuna, dependencia, estado)
                   VALUES (999999, '1', 'FALSA', 13, 131, 'Santiago', 13101, 'Santiago', 'Municipal', 'Vigente')$$,
  '42501', NULL, 'anon cannot add a school');

-- a teacher reads everything, changes nothing
SELECT tests.as_user(tests.teacher_a());
SELECT is((SELECT "NOM_RBD" FROM schools WHERE "RBD" = 8485), 'LICEO INSTITUTO NACIONAL', 'a teacher finds a school by RBD');
SELECT is((SELECT count(*)::int FROM schools), 12898, 'a teacher reads the whole directory');
SELECT is((SELECT count(*)::int FROM regions), 16, 'a teacher reads the regions');
SELECT is((SELECT count(*)::int FROM holidays), 20, 'a teacher reads the holidays');
SELECT is((SELECT count(*)::int FROM school_calendars), 16, 'a teacher reads the regional calendars');
SELECT is((SELECT count(*)::int FROM levels), 12, 'a teacher reads the levels');
SELECT ok((SELECT count(*) FROM subjects) > 100, 'a teacher reads the subjects');
SELECT ok((SELECT count(*) FROM level_subjects) > 300, 'a teacher reads which subject is taught where');
SELECT is((SELECT count(*)::int FROM learning_objectives), 3429, 'a teacher reads every objective');
SELECT throws_ok($$UPDATE schools SET "NOM_RBD" = 'HACKEADO' WHERE "RBD" = 8485$$, '42501', NULL,
  'a teacher cannot rename a school');
SELECT throws_ok($$DELETE FROM holidays$$, '42501', NULL, 'a teacher cannot delete holidays');
SELECT throws_ok($$INSERT INTO learning_objectives (id, level_code, subject_code, plan, code, kind, statement, full_text, position)
                   VALUES ('1B|matematica|X', '1B', 'matematica', 'comun', 'X', 'OA', 'x', 'x', 999999)$$,
  '42501', NULL, 'a teacher cannot add objectives');
SELECT throws_ok($$UPDATE school_calendars SET winter_break_end = '2025-12-31'$$, '42501', NULL,
  'a teacher cannot move the winter break');
SELECT throws_ok($$INSERT INTO level_subjects VALUES ('1B', 'filosofia', 'comun')$$, '42501', NULL,
  'a teacher cannot change which subject is taught where');

-- admins and content creators do not edit official data either
SELECT tests.as_user(tests.admin());
SELECT throws_ok($$UPDATE learning_objectives SET statement = 'x'$$, '42501', NULL,
  'an admin cannot rewrite official objectives');
SELECT tests.as_user(tests.creator());
SELECT throws_ok($$DELETE FROM subjects WHERE code = 'religion'$$, '42501', NULL,
  'a content creator cannot delete subjects');

-- service_role maintains it
SELECT tests.as_service();
SELECT is((SELECT count(*)::int FROM schools), 12898, 'service_role reads the directory');
SELECT lives_ok($$UPDATE schools SET estado = 'Receso' WHERE "RBD" = 8485$$, 'service_role can correct a school');

-- the data's own rules
SELECT tests.reset_role();
SELECT throws_ok($$INSERT INTO schools ("RBD", dgv_rbd, "NOM_RBD", region_code, provincia_code, provincia, comuna_code, comuna, dependencia, estado)
                   VALUES (999998, '1', 'X', 17, 131, 'Santiago', 13101, 'Santiago', 'Municipal', 'Vigente')$$,
  '23503', NULL, 'a school needs an existing region');
SELECT throws_ok($$INSERT INTO schools ("RBD", dgv_rbd, "NOM_RBD", region_code, provincia_code, provincia, comuna_code, comuna, dependencia, estado)
                   VALUES (999998, '1', 'X', 13, 131, 'Santiago', 13101, 'Santiago', 'Privado', 'Vigente')$$,
  '23514', NULL, 'dependencia is one of Mineduc''s five');
SELECT throws_ok($$INSERT INTO schools ("RBD", dgv_rbd, "NOM_RBD", region_code, provincia_code, provincia, comuna_code, comuna, dependencia, estado, latitude)
                   VALUES (999998, '1', 'X', 13, 131, 'Santiago', 13101, 'Santiago', 'Municipal', 'Vigente', -33.4)$$,
  '23514', NULL, 'a coordinate comes with its pair');
SELECT throws_ok($$INSERT INTO learning_objectives (id, level_code, subject_code, plan, code, kind, statement, full_text, position)
                   VALUES ('1B|filosofia|X', '1B', 'filosofia', 'comun', 'X', 'OA', 'x', 'x', 999999)$$,
  '23503', NULL, 'an objective''s subject must be taught at its level');

SELECT * FROM finish();
ROLLBACK;
