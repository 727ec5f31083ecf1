-- promote_draft: a draft becomes a plan whole, or stays a draft; only its owner's.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(9);
SELECT tests.create_cast();
INSERT INTO courses (id, teacher_id, level_code, letter, subject_code) VALUES
  ('c0000000-0000-4000-8000-0000000000a1', tests.teacher_a(), '7B', 'A', 'matematica');
INSERT INTO drafts (id, teacher_id, title, content) VALUES
  ('d0000000-0000-4000-8000-0000000000a1', tests.teacher_a(), 'Ideas para fracciones',
   '{"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Usar una pizza."}]}]}');
CREATE TEMP TABLE made (plan_id uuid) ON COMMIT DROP;
GRANT ALL ON made TO authenticated;

SELECT tests.as_user(tests.teacher_a());
UPDATE drafts SET title = 'Ideas para fracciones (v2)' WHERE id = 'd0000000-0000-4000-8000-0000000000a1';
SELECT is((SELECT version FROM drafts), 1, 'a new title leaves the text''s version alone');
UPDATE drafts SET title = 'Ideas para fracciones', content = '{"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Usar una pizza."}]}, {"type": "paragraph"}]}'
 WHERE id = 'd0000000-0000-4000-8000-0000000000a1';
SELECT is((SELECT version FROM drafts), 2, 'new text raises it');

SELECT tests.as_user(tests.teacher_b());
SELECT throws_ok($$SELECT promote_draft('d0000000-0000-4000-8000-0000000000a1', 'c0000000-0000-4000-8000-0000000000a1')$$,
  'P0001', 'Ese borrador no existe o no es tuyo', 'another teacher cannot promote her draft');

SELECT tests.as_user(tests.teacher_a());
SELECT throws_ok($$SELECT promote_draft('d0000000-0000-4000-8000-0000000000a1', 'c0000000-0000-4000-8000-0000000000a1', ARRAY['no-existe'])$$,
  '23503', NULL, 'an unknown OA refuses it');
SELECT is((SELECT count(*)::int FROM drafts), 1, 'and the draft stays');
SELECT lives_ok($$INSERT INTO made SELECT promote_draft('d0000000-0000-4000-8000-0000000000a1', 'c0000000-0000-4000-8000-0000000000a1')$$,
  'the teacher turns her draft into a plan');
SELECT results_eq($$SELECT z.position::int, z.title, z.content_length FROM plan_zones z JOIN plan_classes c ON c.id = z.plan_class_id
                    WHERE c.plan_id = (SELECT plan_id FROM made) ORDER BY z.position LIMIT 2$$,
  $$VALUES (1, 'Planificación', 15), (2, 'Objetivo de la clase', 0)$$,
  'its text is the first zone, before the standard ones');
SELECT is((SELECT title FROM plans WHERE id = (SELECT plan_id FROM made)), 'Ideas para fracciones', 'the plan keeps its title');
SELECT is_empty('SELECT 1 FROM drafts', 'and the draft is gone');

SELECT * FROM finish();
ROLLBACK;
