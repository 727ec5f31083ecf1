-- Internal state of the gateway itself, never exposed through the API.

CREATE SCHEMA IF NOT EXISTS cielo;
COMMENT ON SCHEMA cielo IS 'Gateway internals (migrations, dev inbox); not exposed through the API.';
REVOKE ALL ON SCHEMA cielo FROM PUBLIC;

-- The development inbox: e-mails auth/v1 would have sent, kept here when no SMTP server is
-- configured (like Inbucket/Mailpit in Supabase local development).
CREATE TABLE cielo.dev_mail (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  recipient text NOT NULL CHECK (recipient <> ''),
  sender text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL DEFAULT '',
  html_body text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE cielo.dev_mail IS 'Mail captured by the development inbox (no SMTP_HOST).';
CREATE INDEX dev_mail_recipient_idx ON cielo.dev_mail (lower(recipient), created_at DESC);
