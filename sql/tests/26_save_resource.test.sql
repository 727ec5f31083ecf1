-- save_resource: a content creator saves a resource with its OAs in one call; the OAs are
-- replaced on the next save; a teacher cannot, and a creator cannot change another's.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(7);
SELECT tests.create_cast();

SELECT tests.as_user(tests.creator());
SELECT lives_ok($$SELECT save_resource(NULL, 'Guía de fracciones', 'Ejercicios', 'guia', '7B', 'matematica',
  '{"type": "doc", "content": []}', 'borrador', ARRAY['7B|matematica|MA07OA05', '7B|matematica|MA07OA05'])$$,
  'a content creator creates a resource with its OAs');
SELECT is((SELECT array_agg(o.objective_id) FROM resource_learning_objectives o
             JOIN content_creator_resources r ON r.id = o.resource_id WHERE r.title = 'Guía de fracciones'),
  ARRAY['7B|matematica|MA07OA05'], 'each OA once');
SELECT lives_ok($$SELECT save_resource((SELECT id FROM content_creator_resources WHERE title = 'Guía de fracciones'),
  'Guía de fracciones', 'Ejercicios graduados', 'guia', '7B', 'matematica', NULL, 'publicado', '{}')$$,
  'and changes it, publishing it without OAs');
SELECT is((SELECT (description, status::text, published_at IS NOT NULL,
                   (SELECT count(*) FROM resource_learning_objectives o WHERE o.resource_id = r.id))::text
             FROM content_creator_resources r WHERE r.title = 'Guía de fracciones'),
  '("Ejercicios graduados",publicado,t,0)', 'the change, the publication stamp and the OAs replaced');
SELECT throws_ok($$SELECT save_resource(NULL, ' ', '', 'guia', NULL, NULL, NULL, 'borrador')$$,
  '23514', NULL, 'a blank title is refused');

SELECT tests.as_user(tests.teacher_a());
SELECT throws_ok($$SELECT save_resource(NULL, 'Mío', '', 'guia', NULL, NULL, NULL, 'borrador')$$,
  '42501', NULL, 'a teacher cannot create resources');
SELECT throws_ok($$SELECT save_resource((SELECT id FROM content_creator_resources WHERE title = 'Guía de fracciones'),
  'Cambiada', '', 'guia', NULL, NULL, NULL, 'borrador')$$,
  'P0002', NULL, 'nor change one');

SELECT * FROM finish();
ROLLBACK;
