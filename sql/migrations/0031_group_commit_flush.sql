-- The flush that ends a group-committed batch of rest/v1 writes (gateway/src/db/batches.rs).
-- Each write of such a batch commits without waiting for its WAL flush; then the API pool's
-- connection sets this sequence in a transaction of its own. Setting a sequence writes a WAL
-- record and takes a transaction id, so that transaction's commit waits (as
-- synchronous_commit says) until the WAL is flushed past it, and with it past every commit
-- before it. (A transaction that writes no WAL, such as one that only calls
-- txid_current(), commits without waiting, whatever synchronous_commit says.) Nothing reads
-- the sequence's value.
CREATE SEQUENCE cielo.group_commit_flush;
COMMENT ON SEQUENCE cielo.group_commit_flush IS
  'Set by the gateway to end a group-committed batch of writes with a WAL flush.';
-- Only authenticator itself: the API roles it switches into (anon, authenticated,
-- service_role) are not its members, so requests running as them get nothing here.
GRANT USAGE ON SCHEMA cielo TO authenticator;
GRANT UPDATE ON SEQUENCE cielo.group_commit_flush TO authenticator;
