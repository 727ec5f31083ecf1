//! Request transactions of one worker, sent several to a connection when all of its
//! connections are busy. A transaction is queued, and at most `runners` tasks each take a
//! connection from the worker's pool and send what is queued in one write (a transaction
//! goes alone while a runner is free), each transaction still ending with its own `Sync`
//! so that its settings, locks and errors end with it ([`wire::Connection::pipelines`]).
//! Writes in a batch are group-committed (`DB_GROUP_COMMIT`): each commits without waiting
//! for its WAL flush ([`Commit::Early`]) and the batch's [`FLUSH`] waits for the flush
//! before anyone is answered. Only transactions that end with their statements are queued
//! here; a transaction no runner has taken within `DB_POOL_TIMEOUT` gets the pool's
//! time-out, and one whose request is cancelled after its batch left still runs.
//!
//! Why it works this way: docs/decisions/0001-pipelined-batches.md and
//! docs/decisions/0002-group-commit.md.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::{Duration, Instant};

use deadpool::managed::TimeoutType;
use tokio::sync::oneshot;

use super::api_pool::{ApiPool, ApiPoolError};
use super::wire::{self, Query, Row};

/// What a transaction gets if its runner ended without answering (it panicked).
const UNANSWERED: Reply = Ok(Err(wire::Error::Closed));

/// Most transactions sent in one write: a long read in a batch delays the ones after it.
pub const MAX_BATCH: usize = 8;
/// Most transactions sent in one write when one of them writes and group commit is off: each
/// write's flush holds up the transactions after it (docs/decisions/0001-pipelined-batches.md).
pub const MAX_BATCH_WITH_WRITES: usize = 2;

/// The transaction that ends a group-committed batch. Setting a sequence writes a WAL record
/// and takes a transaction id, so its commit waits (as the session's `synchronous_commit`
/// says) until the WAL is flushed past its commit record, and so past every commit before
/// it. (A transaction that writes no WAL, such as one that only takes a transaction id with
/// `txid_current()`, commits without waiting, whatever `synchronous_commit` says.) The
/// sequence is the gateway's own (`sql/migrations/0031_group_commit_flush.sql`); nothing
/// reads its value.
pub const FLUSH: &str = "SELECT pg_catalog.setval('cielo.group_commit_flush', 1, false)";

/// How a queued transaction commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commit {
    /// As the session's `synchronous_commit` says: a write waits for its own WAL flush.
    Flushed,
    /// Without waiting for the WAL flush (`synchronous_commit` off for this transaction
    /// alone): the batch's [`FLUSH`], after it, waits for it before anyone is answered.
    Early,
}

/// Whether a queued transaction may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Made read-only by its own settings (`transaction_read_only`).
    ReadOnly,
    ReadWrite,
}

/// One statement, owned, so that a queued transaction borrows nothing from its request's
/// task (which may be cancelled while the transaction is out).
#[derive(Debug, Clone)]
pub struct OwnedQuery {
    pub sql: Cow<'static, str>,
    pub params: Vec<String>,
}

impl OwnedQuery {
    /// Its SQL and parameters, borrowed.
    pub fn borrowed(&self) -> (&str, Vec<&str>) {
        let params = self.params.iter().map(String::as_str).collect();
        (self.sql.as_ref(), params)
    }
}

/// A queued transaction's statements, in order: each one's SQL and text parameters,
/// borrowed from what the transaction owns (a request's context, say) when its batch is
/// sent, so that nothing is copied to queue it. With [`Commit::Early`] they must set
/// `synchronous_commit` to `off` for the transaction, before anything that runs the
/// caller's code (which may set it otherwise for itself).
pub trait Statements {
    fn statements(&self, commit: Commit) -> Vec<(&str, Vec<&str>)>;
}

/// Sets `synchronous_commit` to `$1` for the transaction, or leaves it as it is for `''`
/// (one statement either way, so a transaction's statements are prepared alike however it
/// commits).
pub const SET_SYNCHRONOUS_COMMIT: &str = "SELECT pg_catalog.set_config('synchronous_commit', \
     coalesce(nullif($1, ''), pg_catalog.current_setting('synchronous_commit')), true)";

/// The statements after [`SET_SYNCHRONOUS_COMMIT`], `off` for [`Commit::Early`] (so the
/// statements' rows come after its row).
impl Statements for Vec<OwnedQuery> {
    fn statements(&self, commit: Commit) -> Vec<(&str, Vec<&str>)> {
        let value = match commit {
            Commit::Early => "off",
            Commit::Flushed => "",
        };
        std::iter::once((SET_SYNCHRONOUS_COMMIT, vec![value]))
            .chain(self.iter().map(OwnedQuery::borrowed))
            .collect()
    }
}

/// What a queued transaction gets back: each statement's rows or the database's error, or
/// the pool's error when no connection could be had.
pub type Reply = Result<Result<Vec<Vec<Row>>, wire::Error>, Rc<ApiPoolError>>;

struct Job {
    id: u64,
    queued_at: Instant,
    access: Access,
    statements: Box<dyn Statements>,
    reply: oneshot::Sender<Reply>,
}

impl Job {
    /// How it commits in a batch that is group-committed (`grouped`) or not.
    fn commit(&self, grouped: bool) -> Commit {
        if grouped && self.access == Access::ReadWrite {
            Commit::Early
        } else {
            Commit::Flushed
        }
    }
}

/// One worker's queue of request transactions and the runners that send them.
pub struct TransactionBatches {
    pool: ApiPool,
    queue: RefCell<VecDeque<Job>>,
    runners: Cell<usize>,
    max_runners: usize,
    /// Whether writes sent together are group-committed (docs/decisions/0002-group-commit.md);
    /// turned off if the flush cannot run.
    group_commit: Cell<bool>,
    /// The pool's wait for a connection (`DB_POOL_TIMEOUT`): also the longest a transaction
    /// stays queued.
    wait: Option<Duration>,
    next_id: Cell<u64>,
    /// Writes sent, and the transactions in them.
    batches_sent: Cell<u64>,
    transactions_sent: Cell<u64>,
}

impl std::fmt::Debug for TransactionBatches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransactionBatches")
            .field("queued", &self.queue.borrow().len())
            .field("runners", &self.runners.get())
            .field("max_runners", &self.max_runners)
            .finish()
    }
}

impl TransactionBatches {
    /// Batches for `pool`, sent by at most `max_runners` connections at a time; writes sent
    /// together are group-committed when `group_commit` says so.
    pub fn new(pool: ApiPool, max_runners: usize, group_commit: bool) -> Rc<Self> {
        Rc::new(Self {
            wait: pool.timeouts().wait,
            pool,
            queue: RefCell::new(VecDeque::new()),
            runners: Cell::new(0),
            max_runners: max_runners.max(1),
            group_commit: Cell::new(group_commit),
            next_id: Cell::new(0),
            batches_sent: Cell::new(0),
            transactions_sent: Cell::new(0),
        })
    }

    /// How many batches were sent, and how many transactions they held in all.
    pub fn sent(&self) -> (u64, u64) {
        (self.batches_sent.get(), self.transactions_sent.get())
    }

    /// Runs `statements` as one implicit transaction and returns its outcome; `access` says
    /// whether it may write (a read-only one is made so by its own settings). Must be
    /// called on the worker's `LocalSet`, where the runners are spawned. A transaction no
    /// runner has taken within the pool's wait gets the pool's time-out, as a request
    /// waiting for a connection does.
    pub async fn run(
        self: &Rc<Self>,
        access: Access,
        statements: impl Statements + 'static,
    ) -> Reply {
        let (reply, mut answer) = oneshot::channel();
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.queue.borrow_mut().push_back(Job {
            id,
            queued_at: Instant::now(),
            access,
            statements: Box::new(statements),
            reply,
        });
        if self.runners.get() < self.max_runners {
            self.runners.set(self.runners.get() + 1);
            tokio::task::spawn_local(Rc::clone(self).serve());
        }
        if let Some(wait) = self.wait {
            if let Ok(reply) = tokio::time::timeout(wait, &mut answer).await {
                return reply.unwrap_or(UNANSWERED);
            }
            if self.withdraw(id) {
                return Err(Rc::new(ApiPoolError::Timeout(TimeoutType::Wait)));
            }
        }
        // Sent: the answer comes when the batch has run.
        answer.await.unwrap_or(UNANSWERED)
    }

    /// Takes a still queued transaction out of the queue; false if a runner has it.
    fn withdraw(&self, id: u64) -> bool {
        let mut queue = self.queue.borrow_mut();
        match queue.iter().position(|job| job.id == id) {
            Some(position) => queue.remove(position).is_some(),
            None => false,
        }
    }

    /// A runner: sends batches while anything is queued.
    async fn serve(self: Rc<Self>) {
        let _running = RunnerSlot(&self.runners);
        loop {
            let Some(oldest) = self.queue.borrow().front().map(|job| job.queued_at) else {
                return;
            };
            // The oldest transaction waits no longer for a connection than it would have
            // waited in the pool itself.
            let mut timeouts = self.pool.timeouts();
            timeouts.wait = self.wait.map(|wait| wait.saturating_sub(oldest.elapsed()));
            let mut connection = match self.pool.timeout_get(&timeouts).await {
                Ok(connection) => connection,
                Err(ApiPoolError::Timeout(TimeoutType::Wait)) => {
                    self.expire();
                    continue;
                }
                Err(error) => {
                    // Everyone queued was waiting for the same pool: they all get its answer.
                    let error = Rc::new(error);
                    for job in self.queue.borrow_mut().drain(..) {
                        let _ = job.reply.send(Err(Rc::clone(&error)));
                    }
                    return;
                }
            };
            // Once per connection, the flush a grouped batch ends with runs alone (flushing
            // nothing new); then it is kept prepared, so that it may follow any transaction.
            if self.group_commit.get() && !connection.is_pinned(FLUSH) {
                match connection.pipeline(&[Query::new(FLUSH, &[])]).await {
                    Ok(_) => {
                        connection.pin(FLUSH);
                    }
                    Err(error) if error.server().is_some() => {
                        tracing::warn!(%error, "group commit is off: its flush fails");
                        self.group_commit.set(false);
                    }
                    // The connection failed: the pool replaces it.
                    Err(_) => continue,
                }
            }
            let (batch, grouped) = self.take_batch(&connection);
            if batch.is_empty() {
                return;
            }
            let statements: Vec<Vec<(&str, Vec<&str>)>> = batch
                .iter()
                .map(|job| job.statements.statements(job.commit(grouped)))
                .collect();
            let mut transactions: Vec<Vec<Query<'_>>> = statements
                .iter()
                .map(|statements| {
                    statements
                        .iter()
                        .map(|(sql, params)| Query::new(sql, params))
                        .collect()
                })
                .collect();
            if grouped {
                transactions.push(vec![Query::new(FLUSH, &[])]);
            }
            self.batches_sent.set(self.batches_sent.get() + 1);
            self.transactions_sent
                .set(self.transactions_sent.get() + batch.len() as u64);
            let mut outcomes = connection.pipelines(&transactions).await;
            if grouped {
                confirm_durable(&batch, &mut outcomes);
            }
            // A connection that failed under the batch is replaced by the pool.
            for (job, outcome) in batch.into_iter().zip(outcomes) {
                let _ = job.reply.send(Ok(outcome));
            }
        }
    }

    /// After waiting the oldest transaction's remaining time in vain: every transaction that
    /// has waited the pool's whole wait gets its time-out. Only by age: the oldest may have
    /// withdrawn itself meanwhile (its request's own timer), and the one now in front is
    /// younger. A timer never fires early, so the one waited for, if still queued, is due.
    fn expire(&self) {
        let Some(wait) = self.wait else { return };
        let mut expired = Vec::new();
        {
            let mut queue = self.queue.borrow_mut();
            for job in std::mem::take(&mut *queue) {
                if job.queued_at.elapsed() >= wait {
                    expired.push(job);
                } else {
                    queue.push_back(job);
                }
            }
        }
        for job in expired {
            let _ = job
                .reply
                .send(Err(Rc::new(ApiPoolError::Timeout(TimeoutType::Wait))));
        }
    }

    /// The next batch for `connection`: the oldest transaction whose request still waits,
    /// and after it those that can follow it there, in order, up to [`MAX_BATCH`]; and
    /// whether it is group-committed (its writes commit early, and the [`FLUSH`] ends it).
    /// It is when group commit is on, the connection has the flush pinned, and the batch
    /// holds more than one transaction and a write; without group commit, a batch holds at
    /// most [`MAX_BATCH_WITH_WRITES`] once a write is among them.
    fn take_batch(&self, connection: &wire::Connection) -> (Vec<Job>, bool) {
        let mut queue = self.queue.borrow_mut();
        front_waiting(&mut queue);
        let Some(first) = queue.pop_front() else {
            return (Vec::new(), false);
        };
        let grouping = self.group_commit.get() && connection.is_pinned(FLUSH);
        let write_limit = if grouping {
            MAX_BATCH
        } else {
            MAX_BATCH_WITH_WRITES
        };
        let mut limit = match first.access {
            Access::ReadOnly => MAX_BATCH,
            Access::ReadWrite => write_limit,
        };
        // A transaction that follows another is sent as it would be in a grouped batch,
        // with the settings of an early commit if it writes.
        let grouped_commit = |job: &Job| job.commit(grouping);
        // Built when a second transaction is there to check against it.
        let mut first_statements = None;
        let mut rest: Vec<Job> = Vec::new();
        while 1 + rest.len() < limit {
            let Some(job) = front_waiting(&mut queue) else {
                break;
            };
            if job.access == Access::ReadWrite {
                limit = write_limit;
                if 1 + rest.len() >= limit {
                    break;
                }
            }
            let next = job.statements.statements(grouped_commit(job));
            let first_sqls = first_statements
                .get_or_insert_with(|| first.statements.statements(grouped_commit(&first)))
                .iter()
                .map(|(sql, _)| &**sql);
            if !connection.can_follow(first_sqls, next.iter().map(|(sql, _)| *sql)) {
                break;
            }
            rest.extend(queue.pop_front());
        }
        drop(first_statements);
        let mut batch = Vec::with_capacity(1 + rest.len());
        batch.push(first);
        batch.extend(rest);
        let grouped =
            grouping && batch.len() > 1 && batch.iter().any(|job| job.access == Access::ReadWrite);
        (batch, grouped)
    }
}

/// The answers of a grouped `batch`, once its [`FLUSH`] (the last outcome) is taken off. If
/// the flush failed after a write of the batch committed, that commit is not known to be
/// durable, nor what the reads after it saw: every answer that was a success becomes the
/// flush's failure, as a connection lost there (the client's 503 PGRST001).
fn confirm_durable(batch: &[Job], outcomes: &mut Vec<Result<Vec<Vec<Row>>, wire::Error>>) {
    let Some(Err(error)) = outcomes.pop() else {
        return;
    };
    let committed = batch
        .iter()
        .zip(outcomes.iter())
        .any(|(job, outcome)| job.access == Access::ReadWrite && outcome.is_ok());
    if !committed {
        return;
    }
    let reason = format!("the batch's commits could not be confirmed durable: {error}");
    for outcome in outcomes.iter_mut().filter(|outcome| outcome.is_ok()) {
        *outcome = Err(wire::Error::Io(std::io::Error::other(reason.clone())));
    }
}

/// The queue's front, once the transactions whose requests no longer wait are dropped
/// from it unsent.
fn front_waiting(queue: &mut VecDeque<Job>) -> Option<&Job> {
    while queue.front().is_some_and(|job| job.reply.is_closed()) {
        queue.pop_front();
    }
    queue.front()
}

/// Gives a runner's place back when it ends, however it ends.
struct RunnerSlot<'a>(&'a Cell<usize>);

impl Drop for RunnerSlot<'_> {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}
