-- The answer of every charged generation, kept by its request id, so that a client retrying
-- a request (the same idempotency key) gets the answer it paid for instead of a second run of
-- the model. Written with the ledger entry, in the same transaction; removed with it.
CREATE TABLE private.ai_answers (
  request_id text PRIMARY KEY
    REFERENCES public.ai_usage_ledger (request_id) ON DELETE CASCADE,
  answer jsonb NOT NULL CHECK (jsonb_typeof(answer) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE private.ai_answers IS 'The answer of each charged AI generation, returned again when its request id is replayed. Server-side only.';
COMMENT ON COLUMN private.ai_answers.request_id IS 'The ledger entry (idempotency key) the answer belongs to.';
COMMENT ON COLUMN private.ai_answers.answer IS 'The JSON body the client was answered with.';
COMMENT ON COLUMN private.ai_answers.created_at IS 'When it was stored.';
REVOKE ALL ON private.ai_answers FROM PUBLIC;
