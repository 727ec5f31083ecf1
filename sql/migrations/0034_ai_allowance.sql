-- Estrellas Cielo outside the Demo 2025 programme. Signed-in users who are not demo users
-- spend a monthly allowance (months of Chile's calendar); anonymous visitors of the public
-- pages (Supabase anonymous sign-ins) generate for free, a few times a day per visitor and
-- per address. Admins set the numbers in public.ai_allowance; record_ai_usage() enforces the
-- allowance atomically, private.claim_visitor_generation() the visitors' limits.

CREATE TABLE public.ai_allowance (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  monthly_stars integer CHECK (monthly_stars BETWEEN 0 AND 1000000),
  visitor_daily_generations integer NOT NULL DEFAULT 3
    CHECK (visitor_daily_generations BETWEEN 0 AND 1000),
  address_daily_generations integer NOT NULL DEFAULT 10
    CHECK (address_daily_generations BETWEEN 0 AND 100000),
  updated_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE public.ai_allowance IS 'AI generation outside the demo (one row): the monthly Estrellas Cielo of signed-in users who are not demo users, and the daily free generations of anonymous visitors. Admins update it; signed-in users read it.';
COMMENT ON COLUMN public.ai_allowance.id IS 'Always true: the table has one row.';
COMMENT ON COLUMN public.ai_allowance.monthly_stars IS 'Stars a signed-in user outside the demo may spend per calendar month (Chile); NULL for no limit, 0 for no AI outside the demo.';
COMMENT ON COLUMN public.ai_allowance.visitor_daily_generations IS 'Free generations per anonymous visitor per day (Chile).';
COMMENT ON COLUMN public.ai_allowance.address_daily_generations IS 'Free generations of anonymous visitors per client address per day (Chile).';
COMMENT ON COLUMN public.ai_allowance.updated_at IS 'Last change (set by the database).';
INSERT INTO public.ai_allowance (monthly_stars) VALUES (200);
CREATE TRIGGER ai_allowance_touch BEFORE UPDATE ON public.ai_allowance
  FOR EACH ROW EXECUTE FUNCTION private.touch_updated_at();

ALTER TABLE public.ai_allowance ENABLE ROW LEVEL SECURITY;
CREATE POLICY ai_allowance_read ON public.ai_allowance FOR SELECT TO authenticated USING (true);
CREATE POLICY ai_allowance_admin_update ON public.ai_allowance FOR UPDATE TO authenticated
  USING ((SELECT public.is_admin())) WITH CHECK ((SELECT public.is_admin()));
REVOKE ALL ON public.ai_allowance FROM anon;
REVOKE INSERT, DELETE, TRUNCATE ON public.ai_allowance FROM authenticated;

CREATE TABLE private.ai_monthly_usage (
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  month date NOT NULL CHECK (month = date_trunc('month', month)::date),
  used_stars integer NOT NULL DEFAULT 0 CHECK (used_stars >= 0),
  PRIMARY KEY (user_id, month)
);
COMMENT ON TABLE private.ai_monthly_usage IS 'Stars each signed-in user outside the demo spent per month, raised by record_ai_usage() (its row is the lock that keeps concurrent generations within the allowance).';
COMMENT ON COLUMN private.ai_monthly_usage.user_id IS 'The user.';
COMMENT ON COLUMN private.ai_monthly_usage.month IS 'First day of the month (Chile).';
COMMENT ON COLUMN private.ai_monthly_usage.used_stars IS 'Stars spent that month.';
REVOKE ALL ON private.ai_monthly_usage FROM PUBLIC;

CREATE TABLE private.ai_visitor_usage (
  day date NOT NULL,
  scope text NOT NULL CHECK (scope IN ('visitor', 'address')),
  key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 100),
  generations integer NOT NULL CHECK (generations >= 0),
  PRIMARY KEY (day, scope, key)
);
COMMENT ON TABLE private.ai_visitor_usage IS 'Free generations of anonymous visitors per day, per visitor (user id) and per client address; rows of past days are removed as new ones come.';
COMMENT ON COLUMN private.ai_visitor_usage.day IS 'Day (Chile).';
COMMENT ON COLUMN private.ai_visitor_usage.scope IS '"visitor" (key: the anonymous user id) or "address" (key: the client address).';
COMMENT ON COLUMN private.ai_visitor_usage.key IS 'The visitor or the address.';
COMMENT ON COLUMN private.ai_visitor_usage.generations IS 'Generations started that day.';
REVOKE ALL ON private.ai_visitor_usage FROM PUBLIC;

-- Takes one of today's free generations for an anonymous visitor at an address: both counts
-- are raised, or neither. Returns NULL when taken, else the limit that refused it
-- ('visitor' or 'address'). Called by the gateway's generation functions only.
CREATE FUNCTION private.claim_visitor_generation(visitor uuid, address text) RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = ''
AS $$
DECLARE
  limits public.ai_allowance;
  today date := private.chile_today();
  claimed integer;
BEGIN
  SELECT * INTO limits FROM public.ai_allowance;
  DELETE FROM private.ai_visitor_usage u WHERE u.day < today - 1;

  IF coalesce(limits.visitor_daily_generations, 0) < 1 THEN
    RETURN 'visitor';
  END IF;
  INSERT INTO private.ai_visitor_usage AS u (day, scope, key, generations)
  VALUES (today, 'visitor', visitor::text, 1)
  ON CONFLICT (day, scope, key) DO UPDATE SET generations = u.generations + 1
    WHERE u.generations < limits.visitor_daily_generations
  RETURNING u.generations INTO claimed;
  IF claimed IS NULL THEN
    RETURN 'visitor';
  END IF;

  claimed := NULL;
  IF coalesce(limits.address_daily_generations, 0) >= 1 THEN
    INSERT INTO private.ai_visitor_usage AS u (day, scope, key, generations)
    VALUES (today, 'address', left(address, 100), 1)
    ON CONFLICT (day, scope, key) DO UPDATE SET generations = u.generations + 1
      WHERE u.generations < limits.address_daily_generations
    RETURNING u.generations INTO claimed;
  END IF;
  IF claimed IS NULL THEN
    UPDATE private.ai_visitor_usage u SET generations = u.generations - 1
     WHERE u.day = today AND u.scope = 'visitor' AND u.key = visitor::text;
    RETURN 'address';
  END IF;
  RETURN NULL;
END
$$;
COMMENT ON FUNCTION private.claim_visitor_generation(uuid, text) IS 'Takes one of today''s free generations for an anonymous visitor at a client address; NULL when taken, else the limit reached (visitor or address).';

-- record_ai_usage as before for demo users; signed-in users outside the demo now spend their
-- monthly allowance (refused with PT402 once it is spent, charged at most what remains);
-- anonymous visitors are recorded without a charge.
CREATE OR REPLACE FUNCTION public.record_ai_usage(
  user_id uuid,
  request_id text,
  feature text,
  prompt_tokens integer,
  completion_tokens integer,
  model text DEFAULT NULL,
  plan_id uuid DEFAULT NULL
) RETURNS public.ai_usage_ledger
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = ''
AS $$
DECLARE
  existing public.ai_usage_ledger;
  demo public.demo_users_2025;
  cost integer := (record_ai_usage.prompt_tokens + record_ai_usage.completion_tokens + 514) / 515;
  charge integer := 0;
  anonymous boolean;
  allowance integer;
  this_month date := date_trunc('month', private.chile_today())::date;
  used integer;
  entry public.ai_usage_ledger;
BEGIN
  SELECT * INTO existing FROM public.ai_usage_ledger l WHERE l.request_id = record_ai_usage.request_id;
  IF FOUND THEN
    IF existing.user_id <> record_ai_usage.user_id THEN
      RAISE EXCEPTION 'request_id % ya fue usado por otro usuario', record_ai_usage.request_id
        USING ERRCODE = '23505';
    END IF;
    RETURN existing;
  END IF;

  SELECT * INTO demo FROM public.demo_users_2025 d WHERE d.user_id = record_ai_usage.user_id FOR UPDATE;
  IF FOUND THEN
    IF NOT demo.is_active OR private.chile_today() > demo.demo_end_date THEN
      RAISE EXCEPTION 'La demo de Estrellas Cielo no está activa'
        USING ERRCODE = 'PT403', HINT = 'La demo terminó o fue suspendida.';
    END IF;
    IF demo.used_stars >= demo.total_stars THEN
      RAISE EXCEPTION 'Estrellas Cielo agotadas'
        USING ERRCODE = 'PT402',
              DETAIL = 'No se puede generar más contenido con IA hasta que se renueve el período de demostración.';
    END IF;
    charge := least(cost, demo.total_stars - demo.used_stars);
    UPDATE public.demo_users_2025 d SET used_stars = d.used_stars + charge
     WHERE d.user_id = record_ai_usage.user_id;
  ELSE
    SELECT u.is_anonymous INTO anonymous FROM auth.users u WHERE u.id = record_ai_usage.user_id;
    SELECT a.monthly_stars INTO allowance FROM public.ai_allowance a;
    IF NOT coalesce(anonymous, false) AND allowance IS NOT NULL THEN
      INSERT INTO private.ai_monthly_usage (user_id, month)
      VALUES (record_ai_usage.user_id, this_month)
      ON CONFLICT DO NOTHING;
      SELECT m.used_stars INTO used FROM private.ai_monthly_usage m
       WHERE m.user_id = record_ai_usage.user_id AND m.month = this_month
         FOR UPDATE;
      IF used >= allowance THEN
        RAISE EXCEPTION 'Estrellas Cielo del mes agotadas'
          USING ERRCODE = 'PT402',
                DETAIL = 'Las Estrellas Cielo se renuevan el primer día de cada mes.';
      END IF;
      charge := least(cost, allowance - used);
      UPDATE private.ai_monthly_usage m SET used_stars = m.used_stars + charge
       WHERE m.user_id = record_ai_usage.user_id AND m.month = this_month;
    END IF;
  END IF;

  INSERT INTO public.ai_usage_ledger
    (user_id, request_id, feature, model, prompt_tokens, completion_tokens, stars_charged, plan_id)
  VALUES (record_ai_usage.user_id, record_ai_usage.request_id, record_ai_usage.feature,
          record_ai_usage.model, record_ai_usage.prompt_tokens, record_ai_usage.completion_tokens,
          charge, record_ai_usage.plan_id)
  RETURNING * INTO entry;
  RETURN entry;
END
$$;
COMMENT ON FUNCTION public.record_ai_usage(uuid, text, text, integer, integer, text, uuid) IS 'Records an AI generation for a user and spends its Estrellas Cielo: from the demo balance for demo users (refused with PT403 when the demo is inactive or expired), from the monthly allowance (public.ai_allowance) for other signed-in users, nothing for anonymous visitors; capped at what remains, refused with PT402 when nothing does. Idempotent per request_id. service_role only.';
COMMENT ON COLUMN public.ai_usage_ledger.stars_charged IS 'Stars taken: from the demo balance or the monthly allowance, the cost capped at what remained; 0 for anonymous visitors and without a monthly limit.';

-- The caller's allowance this month (signed-in users outside the demo; demo users read
-- demo_stars). remaining_stars is NULL when there is no monthly limit.
CREATE VIEW public.ai_allowance_status AS
SELECT me.user_id,
       date_trunc('month', private.chile_today())::date AS month,
       a.monthly_stars,
       coalesce(m.used_stars, 0) AS used_stars,
       greatest(a.monthly_stars - coalesce(m.used_stars, 0), 0) AS remaining_stars
  FROM (SELECT auth.uid() AS user_id) AS me
  CROSS JOIN public.ai_allowance a
  LEFT JOIN private.ai_monthly_usage m
    ON m.user_id = me.user_id AND m.month = date_trunc('month', private.chile_today())::date
 WHERE me.user_id IS NOT NULL;
COMMENT ON VIEW public.ai_allowance_status IS 'The caller''s monthly Estrellas Cielo outside the demo: one row per signed-in caller.';
COMMENT ON COLUMN public.ai_allowance_status.user_id IS 'The caller.';
COMMENT ON COLUMN public.ai_allowance_status.month IS 'First day of the current month (Chile).';
COMMENT ON COLUMN public.ai_allowance_status.monthly_stars IS 'Stars allowed per month; NULL for no limit.';
COMMENT ON COLUMN public.ai_allowance_status.used_stars IS 'Stars spent this month.';
COMMENT ON COLUMN public.ai_allowance_status.remaining_stars IS 'Stars left this month; NULL for no limit.';
REVOKE ALL ON public.ai_allowance_status FROM anon;
GRANT SELECT ON public.ai_allowance_status TO authenticated;
REVOKE EXECUTE ON FUNCTION private.claim_visitor_generation(uuid, text) FROM PUBLIC;
