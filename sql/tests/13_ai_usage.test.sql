-- record_ai_usage(): 1 star per started 515 tokens, atomically charged, capped at the total,
-- idempotent, service_role only; the ledger is read by its user and admins.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(22);
SELECT tests.create_cast();
INSERT INTO demo_users_2025 (user_id, total_stars, used_stars, demo_end_date) VALUES
  (tests.teacher_a(), 10, 0, '2030-12-31'),
  (tests.teacher_b(), 10, 0, '2020-12-31');

SELECT tests.as_user(tests.teacher_a());
SELECT throws_ok($$SELECT record_ai_usage(tests.teacher_a(), 'r0', 'plan_simple', 100, 100)$$, '42501', NULL,
  'a user cannot record (or fake) her own usage');
SELECT throws_ok($$INSERT INTO ai_usage_ledger (user_id, request_id, feature, prompt_tokens, completion_tokens, stars_charged)
                   VALUES (tests.teacher_a(), 'r0', 'x', 0, 0, 0)$$, '42501', NULL, 'nor write the ledger directly');

SELECT tests.as_service();
SELECT results_eq($$SELECT total_tokens, stars_cost, stars_charged FROM record_ai_usage(tests.teacher_a(), 'r1', 'plan_simple', 1000, 1000, 'gpt', NULL)$$,
  $$VALUES (2000, 4, 4)$$, '2 000 tokens cost 4 stars (1 star per started 515 tokens)');
SELECT is((SELECT used_stars FROM demo_users_2025 WHERE user_id = tests.teacher_a()), 4, 'and are taken from the demo balance');
SELECT results_eq($$SELECT stars_charged FROM record_ai_usage(tests.teacher_a(), 'r1', 'plan_simple', 1000, 1000)$$,
  $$VALUES (4)$$, 'recording the same request again returns the first entry');
SELECT is((SELECT used_stars FROM demo_users_2025 WHERE user_id = tests.teacher_a()), 4, 'without charging twice');
SELECT results_eq($$SELECT stars_cost, stars_charged FROM record_ai_usage(tests.teacher_a(), 'r2', 'zona', 515, 0)$$,
  $$VALUES (1, 1)$$, 'exactly 515 tokens cost one star');
SELECT results_eq($$SELECT stars_cost, stars_charged FROM record_ai_usage(tests.teacher_a(), 'r3', 'plan_secuencial', 5000, 0)$$,
  $$VALUES (10, 5)$$, 'a generation worth more than what remains is charged what remains');
SELECT is((SELECT used_stars FROM demo_users_2025 WHERE user_id = tests.teacher_a()), 10, 'used stars reach the total and never pass it');
SELECT throws_ok($$SELECT record_ai_usage(tests.teacher_a(), 'r4', 'zona', 1, 0)$$, 'PT402', 'Estrellas Cielo agotadas',
  'with no stars left the usage is refused');
SELECT is((SELECT count(*)::int FROM ai_usage_ledger WHERE request_id = 'r4'), 0, 'and nothing is written');
SELECT throws_ok($$SELECT record_ai_usage(tests.teacher_b(), 'r5', 'zona', 1, 0)$$, 'PT403', NULL,
  'an expired demo cannot spend stars');
SELECT throws_ok($$SELECT record_ai_usage(tests.teacher_b(), 'r1', 'zona', 1, 0)$$, '23505', NULL,
  'a request id of one user cannot be replayed for another');
SELECT results_eq($$SELECT stars_cost, stars_charged FROM record_ai_usage(tests.creator(), 'r6', 'borrador', 3000, 0)$$,
  $$VALUES (6, 6)$$, 'users outside the demo spend their monthly allowance (15_ai_allowance)');
SELECT throws_ok($$SELECT record_ai_usage(tests.creator(), 'r7', 'BAD FEATURE', 1, 0)$$, '23514', NULL, 'features are snake_case names');
SELECT throws_ok($$SELECT record_ai_usage(tests.creator(), 'r8', 'zona', -1, 0)$$, '23514', NULL, 'token counts are not negative');
SELECT throws_ok($$UPDATE ai_usage_ledger SET stars_charged = 0$$, '42501', NULL, 'the ledger is append-only, even for service_role');

SELECT tests.as_user(tests.teacher_a());
SELECT results_eq($$SELECT request_id FROM ai_usage_ledger ORDER BY id$$, $$VALUES ('r1'), ('r2'), ('r3')$$,
  'a user reads her own ledger');
SELECT results_eq($$SELECT remaining_stars, usage_percentage FROM demo_stars$$, $$VALUES (0, 100.0)$$,
  'and sees her stars exhausted');

SELECT tests.as_user(tests.teacher_b());
SELECT is_empty('SELECT 1 FROM ai_usage_ledger', 'another user reads none of it');

SELECT tests.as_user(tests.admin());
SELECT is((SELECT count(*)::int FROM ai_usage_ledger), 4, 'an admin reads every entry');

SELECT tests.as_anon();
SELECT throws_ok('SELECT 1 FROM ai_usage_ledger', '42501', NULL, 'anon cannot read the ledger');

SELECT * FROM finish();
ROLLBACK;
