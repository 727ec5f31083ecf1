-- Estrellas Cielo outside the demo: signed-in users spend a monthly allowance (capped,
-- refused once spent, no limit when it is NULL), anonymous visitors generate for free within
-- daily limits per visitor and per address; admins set the numbers.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(21);
SELECT tests.create_cast();
INSERT INTO auth.users (instance_id, id, aud, role, is_anonymous, created_at, updated_at)
VALUES ('00000000-0000-0000-0000-000000000000', '0e000000-0000-4000-8000-00000000000e',
        'authenticated', 'authenticated', true, now(), now());

SELECT tests.as_user(tests.teacher_a());
SELECT results_eq($$SELECT monthly_stars, used_stars, remaining_stars FROM ai_allowance_status$$,
  $$VALUES (200, 0, 200)$$, 'a signed-in user outside the demo has 200 stars a month by default');
SELECT is((SELECT count(*)::int FROM ai_allowance), 1, 'and reads the allowance');
UPDATE ai_allowance SET monthly_stars = 1000;
SELECT is((SELECT monthly_stars FROM ai_allowance), 200, 'but cannot change it');
SELECT throws_ok($$INSERT INTO ai_allowance (id) VALUES (true)$$, '42501', NULL, 'nor add a row');

SELECT tests.as_user(tests.admin());
UPDATE ai_allowance SET monthly_stars = 8;
SELECT is((SELECT monthly_stars FROM ai_allowance), 8, 'an admin sets the monthly allowance');

SELECT tests.as_service();
SELECT results_eq($$SELECT stars_cost, stars_charged FROM record_ai_usage(tests.teacher_a(), 'm1', 'plan_simple', 3000, 0)$$,
  $$VALUES (6, 6)$$, 'a generation is charged to the allowance');
SELECT results_eq($$SELECT stars_cost, stars_charged FROM record_ai_usage(tests.teacher_a(), 'm2', 'plan_simple', 3000, 0)$$,
  $$VALUES (6, 2)$$, 'at most what remains of it');
SELECT throws_ok($$SELECT record_ai_usage(tests.teacher_a(), 'm3', 'zona', 1, 0)$$, 'PT402', 'Estrellas Cielo del mes agotadas',
  'once it is spent, generations are refused');
SELECT is((SELECT count(*)::int FROM ai_usage_ledger WHERE request_id = 'm3'), 0, 'and nothing is written');
SELECT results_eq($$SELECT stars_charged FROM record_ai_usage(tests.teacher_a(), 'm1', 'plan_simple', 3000, 0)$$,
  $$VALUES (6)$$, 'a replayed request id still returns its entry');
SELECT results_eq($$SELECT stars_charged FROM record_ai_usage(tests.teacher_b(), 'm4', 'zona', 515, 0)$$,
  $$VALUES (1)$$, 'each user has an allowance of her own');
SELECT results_eq($$SELECT stars_charged FROM record_ai_usage('0e000000-0000-4000-8000-00000000000e', 'm5', 'plan_simple', 3000, 0)$$,
  $$VALUES (0)$$, 'anonymous visitors are recorded without a charge');

SELECT tests.as_user(tests.teacher_a());
SELECT results_eq($$SELECT monthly_stars, used_stars, remaining_stars FROM ai_allowance_status$$,
  $$VALUES (8, 8, 0)$$, 'the user sees her allowance spent');

SELECT tests.reset_role();
UPDATE ai_allowance SET monthly_stars = NULL;
SELECT tests.as_service();
SELECT results_eq($$SELECT stars_cost, stars_charged FROM record_ai_usage(tests.teacher_a(), 'm6', 'plan_simple', 3000, 0)$$,
  $$VALUES (6, 0)$$, 'without a monthly limit generations are recorded without a charge');

SELECT tests.reset_role();
UPDATE ai_allowance SET visitor_daily_generations = 2, address_daily_generations = 3;
SELECT results_eq($$SELECT private.claim_visitor_generation('0e000000-0000-4000-8000-00000000000e', '10.0.0.1')
                    FROM generate_series(1, 3)$$,
  $$VALUES (NULL::text), (NULL), ('visitor')$$, 'a visitor has her daily free generations, then is refused');
SELECT results_eq($$SELECT private.claim_visitor_generation(gen_random_uuid(), '10.0.0.1')$$,
  $$VALUES (NULL::text)$$, 'another visitor at the same address takes what the address has left');
SELECT results_eq($$SELECT private.claim_visitor_generation(gen_random_uuid(), '10.0.0.1')$$,
  $$VALUES ('address'::text)$$, 'until the address has none');
SELECT is((SELECT sum(generations)::int FROM private.ai_visitor_usage WHERE scope = 'visitor'), 3,
  'a refusal by the address takes nothing from the visitor');
SELECT results_eq($$SELECT private.claim_visitor_generation(gen_random_uuid(), '10.0.0.2')$$,
  $$VALUES (NULL::text)$$, 'other addresses are not affected');

SELECT tests.as_user(tests.teacher_a());
SELECT throws_ok($$SELECT private.claim_visitor_generation(gen_random_uuid(), '10.0.0.3')$$, '42501', NULL,
  'only the server claims visitor generations');
SELECT tests.as_anon();
SELECT throws_ok('SELECT 1 FROM ai_allowance', '42501', NULL, 'anon reads no allowance');

SELECT * FROM finish();
ROLLBACK;
