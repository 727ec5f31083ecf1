-- admin_alerts (admins only) and security_audit_log (insert-only for users, read by admins,
-- never changed).
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(33);
SELECT tests.create_cast();

SELECT tests.as_service();
SELECT lives_ok($$INSERT INTO admin_alerts (id, severity, title, message, source) VALUES
  ('a1000000-0000-4000-8000-000000000001', 'critical', 'Base de datos lenta', 'p95 > 2 s', 'monitoreo'),
  ('a1000000-0000-4000-8000-000000000002', 'error', 'Fallo de IA', 'timeout', 'functions'),
  ('a1000000-0000-4000-8000-000000000003', 'warning', 'Disco al 80 %', '', 'monitoreo'),
  ('a1000000-0000-4000-8000-000000000004', 'error', 'Correo rebotado', '', 'auth')$$,
  'the platform raises alerts with service_role');

SELECT tests.as_user(tests.teacher_a());
SELECT is_empty('SELECT 1 FROM admin_alerts', 'a teacher reads no alerts');
SELECT throws_ok($$INSERT INTO admin_alerts (severity, title) VALUES ('info', 'Hola')$$, '42501', NULL, 'nor raises them');
SELECT is_empty($$UPDATE admin_alerts SET is_resolved = true RETURNING 1$$, 'nor resolves them');
SELECT tests.as_user(tests.creator());
SELECT is_empty('SELECT 1 FROM admin_alerts', 'a content creator reads no alerts');
SELECT tests.as_anon();
SELECT is_empty('SELECT 1 FROM admin_alerts', 'anon reads no alerts');

SELECT tests.as_user(tests.admin());
SELECT is((SELECT count(*)::int FROM admin_alerts WHERE NOT is_resolved AND severity IN ('error', 'critical')), 3,
  'an admin counts the unresolved error and critical alerts');
SELECT lives_ok($$UPDATE admin_alerts SET is_resolved = true WHERE id = 'a1000000-0000-4000-8000-000000000004'$$, 'an admin resolves one');
SELECT results_eq($$SELECT resolved_by, resolved_at IS NOT NULL FROM admin_alerts WHERE id = 'a1000000-0000-4000-8000-000000000004'$$,
  $$VALUES (tests.admin(), true)$$, 'the database records who resolved it and when');
SELECT is((SELECT count(*)::int FROM admin_alerts WHERE NOT is_resolved AND severity IN ('error', 'critical')), 2, 'the badge count drops');
SELECT lives_ok($$UPDATE admin_alerts SET is_resolved = true, resolved_by = tests.teacher_a(), resolved_at = '2000-01-01'
                   WHERE id = 'a1000000-0000-4000-8000-000000000003'$$, 'an admin resolves another, sending a forged resolver');
SELECT results_eq($$SELECT resolved_by, resolved_at > '2020-01-01' FROM admin_alerts WHERE id = 'a1000000-0000-4000-8000-000000000003'$$,
  $$VALUES (tests.admin(), true)$$, 'the forged resolver and time are ignored');
SELECT lives_ok($$UPDATE admin_alerts SET is_resolved = false WHERE id = 'a1000000-0000-4000-8000-000000000003'$$, 'an alert can be reopened');
SELECT results_eq($$SELECT resolved_by, resolved_at FROM admin_alerts WHERE id = 'a1000000-0000-4000-8000-000000000003'$$,
  $$VALUES (NULL::uuid, NULL::timestamptz)$$, 'reopening clears the resolution');
SELECT lives_ok($$INSERT INTO admin_alerts (severity, title) VALUES ('info', 'Mantención programada')$$, 'an admin raises an alert');
SELECT throws_ok($$DELETE FROM admin_alerts$$, '42501', NULL, 'alerts are never deleted through the API');
SELECT throws_ok($$INSERT INTO admin_alerts (severity, title) VALUES ('fatal', 'x')$$, '22P02', NULL, 'severity is info, warning, error or critical');

-- security audit log
SELECT tests.as_user(tests.teacher_a());
SELECT lives_ok($$INSERT INTO security_audit_log (action, resource_type, new_values, user_agent)
                  VALUES ('logger_error', 'system', '{"message": "Error inesperado", "password": "hunter2", "context": {"userEmail": "ana@profe.cl", "accessToken": "eyJ"}, "items": [{"phone": "+56 9 1234 5678", "ok": 1}]}', 'Mozilla/5.0')$$,
  'a teacher logs a security event (insert without reading back)');
SELECT is_empty('SELECT 1 FROM security_audit_log', 'but cannot read the log, not even her own entry');
SELECT throws_ok($$INSERT INTO security_audit_log (action) VALUES ('error_sin_prefijo')$$, '23514', NULL,
  'actions start with logger_');
SELECT throws_ok($$INSERT INTO security_audit_log (action, user_id) VALUES ('logger_warn', tests.teacher_b())$$, '42501', NULL,
  'entries cannot be written in someone else''s name');
SELECT throws_ok($$UPDATE security_audit_log SET action = 'logger_x'$$, '42501', NULL, 'entries cannot be changed');
SELECT throws_ok($$DELETE FROM security_audit_log$$, '42501', NULL, 'nor deleted');

SELECT tests.as_anon();
SELECT throws_ok($$INSERT INTO security_audit_log (action) VALUES ('logger_error')$$, '42501', NULL, 'anon cannot write the log');
SELECT throws_ok('SELECT 1 FROM security_audit_log', '42501', NULL, 'nor read it');

SELECT tests.as_user(tests.creator());
SELECT is_empty('SELECT 1 FROM security_audit_log', 'a content creator cannot read the log');

SELECT tests.as_user(tests.admin());
SELECT results_eq($$SELECT user_id, action, resource_type, user_agent FROM security_audit_log$$,
  $$VALUES (tests.teacher_a(), 'logger_error', 'system', 'Mozilla/5.0')$$, 'an admin reads the log');
SELECT is((SELECT new_values FROM security_audit_log),
  '{"message": "Error inesperado", "password": "[REDACTED]", "context": {"userEmail": "[REDACTED]", "accessToken": "[REDACTED]"}, "items": [{"phone": "[REDACTED]", "ok": 1}]}'::jsonb,
  'sensitive fields are redacted by the database, at any depth');
SELECT ok((SELECT created_at > now() - interval '1 minute' FROM security_audit_log), 'the time is the database''s');
SELECT throws_ok($$UPDATE security_audit_log SET action = 'logger_x'$$, '42501', NULL, 'not even an admin changes an entry');
SELECT throws_ok($$DELETE FROM security_audit_log$$, '42501', NULL, 'nor deletes one');

SELECT tests.as_service();
SELECT throws_ok($$DELETE FROM security_audit_log$$, '42501', NULL, 'nor does service_role');
SELECT is((SELECT count(*)::int FROM security_audit_log), 1, 'service_role reads the log');

SELECT * FROM finish();
ROLLBACK;
