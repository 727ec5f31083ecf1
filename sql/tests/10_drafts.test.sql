-- drafts: private to their teacher.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(12);
SELECT tests.create_cast();
INSERT INTO courses (id, teacher_id, level_code, letter, subject_code) VALUES
  ('c0000000-0000-4000-8000-0000000000b1', tests.teacher_b(), '8B', 'A', 'matematica');

SELECT tests.as_user(tests.teacher_a());
SELECT lives_ok($$INSERT INTO drafts (id) VALUES ('d0000000-0000-4000-8000-0000000000a1')$$, 'a teacher starts a draft');
SELECT results_eq($$SELECT teacher_id, title, content_length FROM drafts$$,
  $$VALUES (tests.teacher_a(), 'Borrador sin título', 0)$$, 'an empty draft of hers');
SELECT lives_ok($$UPDATE drafts SET content = '{"type":"doc","content":[{"type":"heading","content":[{"type":"text","text":"Guía 1"}]}]}', title = 'Guía de fracciones'$$,
  'she writes in it');
SELECT is((SELECT content_length FROM drafts), 6, 'its length follows the text');
SELECT throws_ok($$UPDATE drafts SET content = '"texto plano"'$$, '23514', NULL, 'content must be an editor document');
SELECT throws_ok($$INSERT INTO drafts (course_id) VALUES ('c0000000-0000-4000-8000-0000000000b1')$$, '23503', NULL,
  'a draft cannot hang off another teacher''s course');
SELECT throws_ok($$INSERT INTO drafts (teacher_id) VALUES (tests.teacher_b())$$, '42501', NULL,
  'nor be created for another teacher');

SELECT tests.as_user(tests.teacher_b());
SELECT is_empty('SELECT 1 FROM drafts', 'another teacher reads none of her drafts');
SELECT is_empty($$UPDATE drafts SET title = 'X' RETURNING 1$$, 'nor changes them');
SELECT is_empty($$DELETE FROM drafts RETURNING 1$$, 'nor deletes them');

SELECT tests.as_user(tests.admin());
SELECT is_empty('SELECT 1 FROM drafts', 'not even an admin reads drafts');

SELECT tests.as_anon();
SELECT is_empty('SELECT 1 FROM drafts', 'anon reads no drafts');

SELECT * FROM finish();
ROLLBACK;
