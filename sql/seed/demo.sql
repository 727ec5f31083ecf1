-- The demo `make run` opens with (SEED_DEMO=true, the default of `cielo serve`): a demo
-- teacher at the Liceo Instituto Nacional (RBD 8485) with Estrellas Cielo and a filled week, an
-- admin and a content creator. Never applied to test databases.
--
-- The gateway runs this file once per database (recorded in cielo.seeds), as the superuser, in
-- one transaction, after setting `cielo.demo_password`. Users are written the way GoTrue writes
-- an e-mail sign-up that confirmed its address (auth.users + auth.identities, bcrypt `$2a$10$`
-- hash from pgcrypto, empty strings in the token columns), so they sign in through auth/v1.
--
-- The week shown is Monday 19 to Friday 23 May 2025: Wednesday 21 is a national holiday
-- (Glorias Navales), so schedule_classes() leaves it empty; classes are Realizada on Monday and
-- Tuesday (one Cancelada) and Programada from Thursday.

-- Users -----------------------------------------------------------------------------------------

CREATE TEMP TABLE demo_users (id uuid, email text, first_name text, last_name text) ON COMMIT DROP;
INSERT INTO demo_users VALUES
  ('de000000-0000-4000-8000-000000000001', 'docente.demo@cielo.test', 'Valentina', 'Rojas'),
  ('de000000-0000-4000-8000-000000000002', 'admin.demo@cielo.test', 'Camila', 'Soto'),
  ('de000000-0000-4000-8000-000000000003', 'contenido.demo@cielo.test', 'Matías', 'Fuentes');

INSERT INTO auth.users (
  instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, invited_at,
  confirmation_token, confirmation_sent_at, recovery_token, recovery_sent_at,
  email_change_token_new, email_change, email_change_sent_at, last_sign_in_at,
  raw_app_meta_data, raw_user_meta_data, is_super_admin, created_at, updated_at,
  phone, phone_confirmed_at, phone_change, phone_change_token, email_change_token_current,
  email_change_confirm_status, reauthentication_token, is_sso_user, is_anonymous)
SELECT '00000000-0000-0000-0000-000000000000', id, 'authenticated', 'authenticated', email,
       extensions.crypt(current_setting('cielo.demo_password'), extensions.gen_salt('bf', 10)),
       now(), NULL, '', now(), '', NULL, '', '', NULL, NULL,
       '{"provider": "email", "providers": ["email"]}',
       jsonb_build_object('sub', id::text, 'email', email, 'email_verified', true,
                          'phone_verified', false, 'first_name', first_name, 'last_name', last_name),
       NULL, now(), now(), NULL, NULL, '', '', '', 0, '', false, false
  FROM demo_users;

INSERT INTO auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
SELECT id::text, id,
       jsonb_build_object('sub', id::text, 'email', email, 'email_verified', true, 'phone_verified', false),
       'email', now(), now(), now()
  FROM demo_users;

INSERT INTO public.profiles (user_id, first_name, last_name, how_found_us, school_rbd)
SELECT id, first_name, last_name, 'Un colega me lo recomendó', 8485 FROM demo_users;
UPDATE public.profiles
   SET encrypted_phone = translate(encode(extensions.pgp_sym_encrypt(
         '+56912345678', private.phone_key(), 'cipher-algo=aes256'), 'base64'), E'\n', '')
 WHERE user_id = 'de000000-0000-4000-8000-000000000001';

INSERT INTO public.user_roles (user_id, role, granted_by) VALUES
  ('de000000-0000-4000-8000-000000000002', 'admin', NULL),
  ('de000000-0000-4000-8000-000000000003', 'content_creator', NULL);

-- The teacher is in the Demo 2025 programme until two months from today, so the demo never
-- opens expired; admins can move the date.
INSERT INTO public.demo_users_2025 (user_id, total_stars, used_stars, demo_end_date, max_courses)
VALUES ('de000000-0000-4000-8000-000000000001', 500, 0, private.chile_today() + 60, 5);

-- Courses and weekly schedule ------------------------------------------------------------------

INSERT INTO public.courses (id, teacher_id, school_rbd, level_code, letter, subject_code, students_count, color) VALUES
  ('dc000000-0000-4000-8000-000000000071', 'de000000-0000-4000-8000-000000000001', 8485, '7B', 'A', 'matematica', 38, '#2563eb'),
  ('dc000000-0000-4000-8000-000000000082', 'de000000-0000-4000-8000-000000000001', 8485, '8B', 'B', 'matematica', 36, '#16a34a'),
  ('dc000000-0000-4000-8000-000000000091', 'de000000-0000-4000-8000-000000000001', 8485, '1M', 'A', 'matematica', 40, '#9333ea'),
  ('dc000000-0000-4000-8000-000000000070', 'de000000-0000-4000-8000-000000000001', 8485, '7B', 'A', 'orientacion', 38, '#ea580c');

-- Blocks of 45-minute pedagogical hours: 08:00–09:30, 09:45–11:15, 11:30–13:00, 14:00–…
INSERT INTO public.schedule_blocks (teacher_id, course_id, weekday, start_time, pedagogical_hours, room)
SELECT 'de000000-0000-4000-8000-000000000001', course::uuid, weekday, start_time::time, hours, room
  FROM (VALUES
    ('dc000000-0000-4000-8000-000000000071', 1, '08:00', 2, 'Sala 21'),
    ('dc000000-0000-4000-8000-000000000082', 1, '09:45', 2, 'Sala 14'),
    ('dc000000-0000-4000-8000-000000000070', 1, '14:00', 1, 'Sala 21'),
    ('dc000000-0000-4000-8000-000000000091', 2, '08:00', 2, 'Sala 30'),
    ('dc000000-0000-4000-8000-000000000071', 2, '11:30', 2, 'Sala 21'),
    ('dc000000-0000-4000-8000-000000000082', 3, '09:45', 2, 'Sala 14'),
    ('dc000000-0000-4000-8000-000000000091', 3, '11:30', 2, 'Sala 30'),
    ('dc000000-0000-4000-8000-000000000071', 4, '08:00', 2, 'Sala 21'),
    ('dc000000-0000-4000-8000-000000000082', 4, '14:00', 1, 'Laboratorio'),
    ('dc000000-0000-4000-8000-000000000091', 5, '08:00', 2, 'Sala 30')
  ) AS block(course, weekday, start_time, hours, room);

-- The week, as the teacher would fill it: schedule_classes() runs for the caller in the claims.
SELECT set_config('request.jwt.claims',
  '{"sub": "de000000-0000-4000-8000-000000000001", "role": "authenticated"}', true);
DO $week$
BEGIN
  IF public.schedule_classes('2025-05-19', '2025-05-23') <> 8 THEN
    RAISE EXCEPTION 'the demo week should have 8 classes (Wednesday 21 May is a holiday)';
  END IF;
END
$week$;

UPDATE public.class_sessions SET status = 'Realizada', notes = 'Buena participación; repasar notación científica.'
 WHERE teacher_id = 'de000000-0000-4000-8000-000000000001' AND session_date = '2025-05-19';
UPDATE public.class_sessions SET status = 'Realizada'
 WHERE teacher_id = 'de000000-0000-4000-8000-000000000001' AND session_date = '2025-05-20'
   AND course_id = 'dc000000-0000-4000-8000-000000000091';
UPDATE public.class_sessions SET status = 'Cancelada', cancellation_reason = 'Simulacro de evacuación'
 WHERE teacher_id = 'de000000-0000-4000-8000-000000000001' AND session_date = '2025-05-20'
   AND course_id = 'dc000000-0000-4000-8000-000000000071';

-- Plans: one per class state, a sequential unit, and one still in the legacy format ----------------

CREATE FUNCTION pg_temp.doc(VARIADIC paragraphs text[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE
AS $$ SELECT private.text_to_rich_text(array_to_string(paragraphs, E'\n')) $$;

CREATE FUNCTION pg_temp.session_of(course uuid, day date) RETURNS uuid
LANGUAGE sql STABLE
AS $$ SELECT id FROM public.class_sessions WHERE course_id = course AND session_date = day $$;

INSERT INTO public.plans (id, teacher_id, course_id, kind, title, unit_name, class_count) VALUES
  ('d9000000-0000-4000-8000-000000000001', 'de000000-0000-4000-8000-000000000001', 'dc000000-0000-4000-8000-000000000071',
   'simple', 'Potencias de base 10', 'Unidad 1: Números', 1),
  ('d9000000-0000-4000-8000-000000000002', 'de000000-0000-4000-8000-000000000001', 'dc000000-0000-4000-8000-000000000071',
   'simple', 'Porcentajes en la vida diaria', 'Unidad 1: Números', 1),
  ('d9000000-0000-4000-8000-000000000003', 'de000000-0000-4000-8000-000000000001', 'dc000000-0000-4000-8000-000000000082',
   'secuencial', 'Ecuaciones e inecuaciones lineales', 'Unidad 2: Álgebra y funciones', 4),
  ('d9000000-0000-4000-8000-000000000004', 'de000000-0000-4000-8000-000000000001', 'dc000000-0000-4000-8000-000000000091',
   'simple', 'Productos notables', 'Unidad 2: Álgebra', 1),
  ('d9000000-0000-4000-8000-000000000005', 'de000000-0000-4000-8000-000000000001', 'dc000000-0000-4000-8000-000000000071',
   'simple', 'Repaso: operaciones con fracciones', 'Unidad 1: Números', 1);

INSERT INTO public.plan_learning_objectives (plan_id, objective_id, teacher_id) VALUES
  ('d9000000-0000-4000-8000-000000000001', '7B|matematica|MA07OA05', 'de000000-0000-4000-8000-000000000001'),
  ('d9000000-0000-4000-8000-000000000002', '7B|matematica|MA07OA04', 'de000000-0000-4000-8000-000000000001'),
  ('d9000000-0000-4000-8000-000000000003', '8B|matematica|MA08OA08', 'de000000-0000-4000-8000-000000000001'),
  ('d9000000-0000-4000-8000-000000000003', '8B|matematica|MA08OA09', 'de000000-0000-4000-8000-000000000001'),
  ('d9000000-0000-4000-8000-000000000004', '1M|matematica|MA1MOA03', 'de000000-0000-4000-8000-000000000001'),
  ('d9000000-0000-4000-8000-000000000005', '7B|matematica|MA07OA02', 'de000000-0000-4000-8000-000000000001');

UPDATE public.plan_classes SET class_session_id = pg_temp.session_of('dc000000-0000-4000-8000-000000000071', '2025-05-19')
 WHERE plan_id = 'd9000000-0000-4000-8000-000000000001';
UPDATE public.plan_classes SET class_session_id = pg_temp.session_of('dc000000-0000-4000-8000-000000000071', '2025-05-20')
 WHERE plan_id = 'd9000000-0000-4000-8000-000000000002';
UPDATE public.plan_classes SET class_session_id = pg_temp.session_of('dc000000-0000-4000-8000-000000000091', '2025-05-23')
 WHERE plan_id = 'd9000000-0000-4000-8000-000000000004';
UPDATE public.plan_classes
   SET title = CASE position
                 WHEN 1 THEN 'Clase 1: planteamiento de ecuaciones'
                 WHEN 2 THEN 'Clase 2: resolución de ecuaciones'
                 WHEN 3 THEN 'Clase 3: inecuaciones en la recta numérica'
                 ELSE 'Clase 4: problemas de la vida diaria' END,
       class_session_id = CASE position
                 WHEN 1 THEN pg_temp.session_of('dc000000-0000-4000-8000-000000000082', '2025-05-19')
                 WHEN 2 THEN pg_temp.session_of('dc000000-0000-4000-8000-000000000082', '2025-05-22') END
 WHERE plan_id = 'd9000000-0000-4000-8000-000000000003';

INSERT INTO public.plan_zones (plan_class_id, teacher_id, zone_type, position, content)
SELECT c.id, c.teacher_id, z.zone_type::public.zone_type, z.position, z.content
  FROM public.plan_classes c
  JOIN (VALUES
    ('d9000000-0000-4000-8000-000000000001', 1, 'objetivo', 1, pg_temp.doc(
       'Utilizar potencias de base 10 con exponente natural para expresar números grandes (OA 5).')),
    ('d9000000-0000-4000-8000-000000000001', 1, 'inicio', 2, pg_temp.doc(
       'Pregunta inicial: ¿cuántos granos de arena caben en una cancha de fútbol?',
       'Lluvia de ideas sobre cómo escribir números muy grandes.')),
    ('d9000000-0000-4000-8000-000000000001', 1, 'desarrollo', 3, pg_temp.doc(
       'Construyen una tabla con 10, 100, 1 000… y la escriben como potencias de 10.',
       'En parejas expresan distancias del sistema solar con potencias de base 10.')),
    ('d9000000-0000-4000-8000-000000000001', 1, 'cierre', 4, pg_temp.doc(
       'Ticket de salida: escribir 3 500 000 usando una potencia de 10.')),
    ('d9000000-0000-4000-8000-000000000001', 1, 'evaluacion', 5, pg_temp.doc(
       'Evaluación formativa con el ticket de salida; retroalimentación la clase siguiente.')),
    ('d9000000-0000-4000-8000-000000000002', 1, 'objetivo', 1, pg_temp.doc(
       'Mostrar que comprenden el concepto de porcentaje en boletas y ofertas (OA 4).')),
    ('d9000000-0000-4000-8000-000000000002', 1, 'desarrollo', 2, pg_temp.doc(
       'Calculan descuentos de un catálogo de supermercado y comparan ofertas.')),
    ('d9000000-0000-4000-8000-000000000003', 1, 'objetivo', 1, pg_temp.doc(
       'Modelar situaciones de la vida diaria con ecuaciones lineales (OA 8).')),
    ('d9000000-0000-4000-8000-000000000003', 1, 'inicio', 2, pg_temp.doc(
       'Balanza con bolsitas de igual peso: ¿cuánto pesa cada bolsita?')),
    ('d9000000-0000-4000-8000-000000000003', 1, 'desarrollo', 3, pg_temp.doc(
       'Traducen enunciados al lenguaje algebraico y plantean ecuaciones de la forma ax = b.')),
    ('d9000000-0000-4000-8000-000000000003', 1, 'cierre', 4, pg_temp.doc(
       'Cada grupo presenta una ecuación que modela su problema.')),
    ('d9000000-0000-4000-8000-000000000003', 2, 'objetivo', 1, pg_temp.doc(
       'Resolver ecuaciones lineales de la forma ax + b = c con coeficientes racionales.')),
    ('d9000000-0000-4000-8000-000000000003', 2, 'desarrollo', 2, pg_temp.doc(
       'Resuelven con la balanza y luego de forma simbólica; comprueban la solución.')),
    ('d9000000-0000-4000-8000-000000000004', 1, 'objetivo', 1, pg_temp.doc(
       'Desarrollar los productos notables de manera concreta, pictórica y simbólica (OA 3).')),
    ('d9000000-0000-4000-8000-000000000004', 1, 'inicio', 2, pg_temp.doc(
       'Área de un cuadrado de lado (a + b) con material recortable.')),
    ('d9000000-0000-4000-8000-000000000004', 1, 'desarrollo', 3, pg_temp.doc(
       'Deducen el cuadrado de binomio y la suma por su diferencia a partir de áreas.')),
    ('d9000000-0000-4000-8000-000000000004', 1, 'cierre', 4, pg_temp.doc(
       'Síntesis en el cuaderno con ejemplos numéricos.'))
  ) AS z(plan_id, class_position, zone_type, position, content)
    ON c.plan_id = z.plan_id::uuid AND c.position = z.class_position;

-- A plan written before zones existed: the app migrates it (migrate_legacy_plan_class).
UPDATE public.plan_classes
   SET content_format = 'legacy',
       legacy_content = '{"objetivo": "Explicar la multiplicación y la división de fracciones positivas.", "inicio": "<p>Recordar fracciones equivalentes con una pizza dibujada en la pizarra.</p>", "desarrollo": "<p>Guía de ejercicios en parejas.</p><p>Revisión en plenario.</p>", "cierre": "Ticket de salida con dos ejercicios."}'
 WHERE plan_id = 'd9000000-0000-4000-8000-000000000005';

INSERT INTO public.drafts (teacher_id, course_id, title, content) VALUES
  ('de000000-0000-4000-8000-000000000001', 'dc000000-0000-4000-8000-000000000071', 'Guía de ejercicios: potencias',
   pg_temp.doc('Guía de ejercicios', '1. Escribe 1 000 000 como potencia de 10.', '2. ¿Cuántos ceros tiene 10⁹?'));

-- Calendar events: a test of the teacher's and a school-wide meeting ------------------------------

INSERT INTO public.school_events (created_by, course_id, title, kind, starts_on, ends_on) VALUES
  ('de000000-0000-4000-8000-000000000001', 'dc000000-0000-4000-8000-000000000071', 'Prueba de potencias', 'evaluacion', '2025-05-26', '2025-05-26');
INSERT INTO public.school_events (created_by, school_rbd, title, kind, starts_on, ends_on, start_time, end_time) VALUES
  ('de000000-0000-4000-8000-000000000002', 8485, 'Consejo de profesores', 'reunion', '2025-05-22', '2025-05-22', '16:00', '17:30');

-- AI usage: 120 of the 500 stars spent (24 %) ---------------------------------------------------------

SELECT public.record_ai_usage('de000000-0000-4000-8000-000000000001', 'demo-seed-1', 'plan_simple', 12000, 8600, 'demo', 'd9000000-0000-4000-8000-000000000001');
SELECT public.record_ai_usage('de000000-0000-4000-8000-000000000001', 'demo-seed-2', 'plan_secuencial', 15000, 10750, 'demo', 'd9000000-0000-4000-8000-000000000003');
SELECT public.record_ai_usage('de000000-0000-4000-8000-000000000001', 'demo-seed-3', 'zona', 9000, 6450, 'demo', 'd9000000-0000-4000-8000-000000000004');

-- Platform: announcements, alerts, audit entries, content creator's resources -----------------------

INSERT INTO public.announcements (title, body, audience, is_pinned, published_at, created_by) VALUES
  ('¡Bienvenidos a Cielo!', 'Planifica tus clases con el currículum nacional y apoyo de IA.', 'publico', true, now(), 'de000000-0000-4000-8000-000000000002'),
  ('Nueva planificación secuencial', 'Ahora puedes planificar una unidad completa y editar cada clase.', 'docentes', false, now(), 'de000000-0000-4000-8000-000000000002'),
  ('Tus Estrellas Cielo', 'Durante la Demo 2025 cada estrella equivale a unas 515 palabras generadas.', 'demo', false, now(), 'de000000-0000-4000-8000-000000000002');

INSERT INTO public.admin_alerts (severity, title, message, source, metadata) VALUES
  ('critical', 'Tiempo de respuesta alto en rest/v1', 'El p95 superó 2 s durante 5 minutos.', 'monitoreo', '{"p95_ms": 2140}'),
  ('error', 'Fallo al generar planificación', 'La función de IA respondió 502 tres veces seguidas.', 'functions', '{"status": 502}'),
  ('warning', 'Disco de la base de datos al 80 %', '', 'monitoreo', '{}'),
  ('info', 'Respaldo diario completado', '', 'respaldos', '{}');
SELECT set_config('request.jwt.claims', '{"sub": "de000000-0000-4000-8000-000000000002", "role": "authenticated"}', true);
UPDATE public.admin_alerts SET is_resolved = true WHERE severity = 'info';

INSERT INTO public.security_audit_log (user_id, action, resource_type, new_values, user_agent) VALUES
  ('de000000-0000-4000-8000-000000000001', 'logger_warn', 'system', '{"message": "Carga de página lenta", "duration_ms": 3400}', 'Mozilla/5.0 (demo)'),
  ('de000000-0000-4000-8000-000000000001', 'logger_error', 'system', '{"message": "Error de conexión", "action": "guardar la planificación"}', 'Mozilla/5.0 (demo)');

INSERT INTO public.content_creator_resources (id, created_by, title, description, kind, level_code, subject_code, content, status) VALUES
  ('d7000000-0000-4000-8000-000000000001', 'de000000-0000-4000-8000-000000000003', 'Guía: potencias de base 10',
   'Ejercicios graduados con notación científica.', 'guia', '7B', 'matematica',
   pg_temp.doc('Potencias de base 10', 'Completa la tabla y escribe cada número como potencia de 10.'), 'publicado'),
  ('d7000000-0000-4000-8000-000000000002', 'de000000-0000-4000-8000-000000000003', 'Rúbrica: resolución de problemas',
   'Rúbrica de cuatro niveles para problemas con ecuaciones.', 'rubrica', '8B', 'matematica',
   pg_temp.doc('Rúbrica en preparación.'), 'borrador');
INSERT INTO public.resource_learning_objectives (resource_id, objective_id) VALUES
  ('d7000000-0000-4000-8000-000000000001', '7B|matematica|MA07OA05');
INSERT INTO public.learning_objective_indicators (objective_id, position, text, created_by) VALUES
  ('7B|matematica|MA07OA05', 1, 'Expresan números naturales grandes como potencias de base 10.', 'de000000-0000-4000-8000-000000000003'),
  ('7B|matematica|MA07OA05', 2, 'Comparan números escritos en notación científica.', 'de000000-0000-4000-8000-000000000003');

SELECT set_config('request.jwt.claims', '', true);
