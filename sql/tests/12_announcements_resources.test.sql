-- announcements (admins write; audiences read), content creators' resources and indicators.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(29);
SELECT tests.create_cast();
INSERT INTO demo_users_2025 (user_id, demo_end_date) VALUES (tests.teacher_b(), '2030-12-31');

SELECT tests.as_user(tests.admin());
SELECT lives_ok($$INSERT INTO announcements (id, title, body, audience, published_at, expires_at) VALUES
  ('a2000000-0000-4000-8000-000000000001', 'Bienvenidos a Cielo', 'Hola', 'publico', now() - interval '1 day', NULL),
  ('a2000000-0000-4000-8000-000000000002', 'Nueva función', 'Planificación secuencial', 'docentes', now() - interval '1 day', NULL),
  ('a2000000-0000-4000-8000-000000000003', 'Demo 2025', 'Quedan estrellas', 'demo', now() - interval '1 day', NULL),
  ('a2000000-0000-4000-8000-000000000004', 'Borrador', 'Sin publicar', 'docentes', NULL, NULL),
  ('a2000000-0000-4000-8000-000000000005', 'Vencido', 'Ya pasó', 'docentes', now() - interval '10 days', now() - interval '1 day'),
  ('a2000000-0000-4000-8000-000000000006', 'Solo admins', 'Interno', 'administradores', now() - interval '1 day', NULL)$$,
  'an admin writes announcements');
SELECT is((SELECT count(*)::int FROM announcements), 6, 'an admin reads all of them, drafts included');
SELECT throws_ok($$INSERT INTO announcements (title, published_at, expires_at) VALUES ('X', now(), now() - interval '1 day')$$,
  '23514', NULL, 'an announcement cannot expire before it is published');

SELECT tests.as_anon();
SELECT results_eq('SELECT title FROM announcements', $$VALUES ('Bienvenidos a Cielo')$$, 'anon reads public announcements only');
SELECT throws_ok($$INSERT INTO announcements (title) VALUES ('spam')$$, '42501', NULL, 'anon cannot write announcements');

SELECT tests.as_user(tests.teacher_a());
SELECT results_eq('SELECT title FROM announcements ORDER BY title', $$VALUES ('Bienvenidos a Cielo'), ('Nueva función')$$,
  'a teacher reads published, current announcements for teachers');
SELECT throws_ok($$INSERT INTO announcements (title) VALUES ('Mío')$$, '42501', NULL, 'a teacher cannot publish announcements');
SELECT is_empty($$UPDATE announcements SET title = 'X' RETURNING 1$$, 'nor edit them');
SELECT lives_ok($$INSERT INTO announcement_reads (announcement_id) VALUES ('a2000000-0000-4000-8000-000000000002')$$,
  'a teacher marks one as read');

SELECT tests.as_user(tests.teacher_b());
SELECT results_eq('SELECT title FROM announcements ORDER BY title', $$VALUES ('Bienvenidos a Cielo'), ('Demo 2025'), ('Nueva función')$$,
  'a demo user also reads the demo announcements');
SELECT is_empty('SELECT 1 FROM announcement_reads', 'and not what others have read');
SELECT throws_ok($$INSERT INTO announcement_reads (user_id, announcement_id) VALUES (tests.teacher_a(), 'a2000000-0000-4000-8000-000000000001')$$,
  '42501', NULL, 'nor mark announcements read for others');

-- resources
SELECT tests.as_user(tests.creator());
SELECT lives_ok($$INSERT INTO content_creator_resources (id, title, kind, level_code, subject_code) VALUES
  ('a3000000-0000-4000-8000-000000000001', 'Guía de fracciones', 'guia', '3B', 'matematica'),
  ('a3000000-0000-4000-8000-000000000002', 'Rúbrica de disertación', 'rubrica', '1M', 'lengua_y_literatura')$$,
  'a content creator creates resources');
SELECT lives_ok($$UPDATE content_creator_resources SET status = 'publicado' WHERE id = 'a3000000-0000-4000-8000-000000000001'$$,
  'and publishes one');
SELECT ok((SELECT published_at IS NOT NULL FROM content_creator_resources WHERE id = 'a3000000-0000-4000-8000-000000000001'),
  'publication is stamped by the database');
SELECT throws_ok($$UPDATE content_creator_resources SET storage_path = 'recursos/../../etc/passwd' WHERE id = 'a3000000-0000-4000-8000-000000000002'$$,
  '23514', NULL, 'attached file keys cannot climb out of their folder');
SELECT lives_ok($$INSERT INTO resource_learning_objectives VALUES ('a3000000-0000-4000-8000-000000000001', '3B|matematica|MA03OA09')$$,
  'a resource names the OA it supports');
SELECT lives_ok($$INSERT INTO learning_objective_indicators (objective_id, position, text)
                  VALUES ('3B|matematica|MA03OA09', 1, 'Representan fracciones con material concreto')$$,
  'a content creator writes indicators');

SELECT tests.as_user(tests.teacher_a());
SELECT results_eq('SELECT title FROM content_creator_resources', $$VALUES ('Guía de fracciones')$$,
  'a teacher reads published resources only');
SELECT is((SELECT count(*)::int FROM resource_learning_objectives), 1, 'with their OA');
SELECT is((SELECT count(*)::int FROM learning_objective_indicators), 1, 'and reads the indicators');
SELECT throws_ok($$INSERT INTO content_creator_resources (title, kind) VALUES ('Mío', 'guia')$$, '42501', NULL,
  'a teacher cannot create resources');
SELECT is_empty($$UPDATE content_creator_resources SET title = 'X' RETURNING 1$$, 'nor edit them');
SELECT throws_ok($$INSERT INTO learning_objective_indicators (objective_id, position, text) VALUES ('3B|matematica|MA03OA09', 2, 'x')$$,
  '42501', NULL, 'nor write indicators');

-- a second content creator edits only her own resources
SELECT tests.reset_role();
SELECT tests.grant_role(tests.directivo(), 'content_creator');
SELECT tests.as_user(tests.directivo());
SELECT is((SELECT count(*)::int FROM content_creator_resources), 2, 'content creators see every resource, drafts included');
SELECT is_empty($$UPDATE content_creator_resources SET title = 'Mía' RETURNING 1$$, 'but change only their own');

SELECT tests.as_user(tests.admin());
SELECT lives_ok($$UPDATE content_creator_resources SET status = 'archivado' WHERE id = 'a3000000-0000-4000-8000-000000000001'$$,
  'an admin can archive any resource');
SELECT is((SELECT published_at FROM content_creator_resources WHERE id = 'a3000000-0000-4000-8000-000000000001'), NULL,
  'an archived resource is no longer published');

SELECT tests.as_anon();
SELECT is_empty('SELECT 1 FROM content_creator_resources', 'anon reads no resources');

SELECT * FROM finish();
ROLLBACK;
