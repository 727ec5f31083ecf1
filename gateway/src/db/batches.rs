//! Request transactions of one worker, sent several to a connection when all of its
//! connections are busy.
//!
//! Why: for a short transaction, much of what PostgreSQL spends goes to being woken, reading
//! the request's messages and answering, once per transaction. A backend handed several
//! transactions in one message runs them in one pass. On the benchmark's single-row read
//! (the settings statement and the select, one `Sync`), PostgreSQL spent ~125–145 µs of CPU
//! per transaction sent one at a time on 32 connections, and ~90–100 µs sent two to four at
//! a time on 8–16 connections.
//!
//! What does not change: each transaction ends with its own `Sync`, so it is an implicit
//! transaction of its own, committed (or rolled back) before the next one starts: its
//! settings (role, claims, `search_path`, …) and locks end with it, and an error in it
//! skips only the rest of it ([`wire::Connection::pipelines`]). Only transactions that end
//! with their statements are queued here; a write whose outcome must be checked before it
//! commits keeps a connection for itself.
//!
//! Reads and writes differ in how many share a write. Reads go up to [`MAX_BATCH`]. A batch
//! with a write in it holds at most [`MAX_BATCH_WITH_WRITES`]: a write's commit waits for
//! its WAL flush, and the transactions after it in the same batch wait with it, while the
//! worker's other connections could be committing them alongside. (On the benchmark's
//! single-row insert at 32 connections, batches of two gave ~12 % more inserts/s than one
//! per write and a lower p99; batches of eight gave fewer inserts/s and a higher p99.)
//!
//! How: a transaction is queued, and at most `runners` tasks each take a connection from
//! the worker's pool and send what is queued in one write. While a runner is free, a
//! transaction goes alone as soon as it arrives; transactions wait in the queue only while
//! every runner is busy, and then leave together on the first connection that comes back.
//! A runner returns its connection to the pool after every batch, so writes that keep a
//! connection for themselves get their turn. Runners are tasks of their own: a request
//! cancelled while its batch is out (the client went away) does not cut the batch short,
//! its transaction runs (and a write commits) and its answer is dropped; one cancelled
//! while still queued is not sent. A transaction no runner has taken within the pool's
//! wait (`DB_POOL_TIMEOUT`) gets the pool's time-out, as a request waiting for a
//! connection does.

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
/// Most transactions sent in one write when one of them writes (see the module docs).
pub const MAX_BATCH_WITH_WRITES: usize = 2;

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
/// sent, so that nothing is copied to queue it.
pub trait Statements {
    fn statements(&self) -> Vec<(&str, Vec<&str>)>;
}

impl Statements for Vec<OwnedQuery> {
    fn statements(&self) -> Vec<(&str, Vec<&str>)> {
        self.iter().map(OwnedQuery::borrowed).collect()
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

/// One worker's queue of request transactions and the runners that send them.
pub struct TransactionBatches {
    pool: ApiPool,
    queue: RefCell<VecDeque<Job>>,
    runners: Cell<usize>,
    max_runners: usize,
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
    /// Batches for `pool`, sent by at most `max_runners` connections at a time.
    pub fn new(pool: ApiPool, max_runners: usize) -> Rc<Self> {
        Rc::new(Self {
            wait: pool.timeouts().wait,
            pool,
            queue: RefCell::new(VecDeque::new()),
            runners: Cell::new(0),
            max_runners: max_runners.max(1),
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
            let batch = self.take_batch(&connection);
            if batch.is_empty() {
                return;
            }
            let statements: Vec<Vec<(&str, Vec<&str>)>> = batch
                .iter()
                .map(|job| job.statements.statements())
                .collect();
            let transactions: Vec<Vec<Query<'_>>> = statements
                .iter()
                .map(|statements| {
                    statements
                        .iter()
                        .map(|(sql, params)| Query::new(sql, params))
                        .collect()
                })
                .collect();
            self.batches_sent.set(self.batches_sent.get() + 1);
            self.transactions_sent
                .set(self.transactions_sent.get() + batch.len() as u64);
            let outcomes = connection.pipelines(&transactions).await;
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
    /// and after it those that can follow it there, in order, up to [`MAX_BATCH`], or
    /// [`MAX_BATCH_WITH_WRITES`] once a write is among them.
    fn take_batch(&self, connection: &wire::Connection) -> Vec<Job> {
        let mut queue = self.queue.borrow_mut();
        front_waiting(&mut queue);
        let Some(first) = queue.pop_front() else {
            return Vec::new();
        };
        let mut limit = match first.access {
            Access::ReadOnly => MAX_BATCH,
            Access::ReadWrite => MAX_BATCH_WITH_WRITES,
        };
        // Built when a second transaction is there to check against it.
        let mut first_statements = None;
        let mut rest: Vec<Job> = Vec::new();
        while 1 + rest.len() < limit {
            let Some(job) = front_waiting(&mut queue) else {
                break;
            };
            if job.access == Access::ReadWrite {
                limit = MAX_BATCH_WITH_WRITES;
                if 1 + rest.len() >= limit {
                    break;
                }
            }
            let next = job.statements.statements();
            let first_sqls = first_statements
                .get_or_insert_with(|| first.statements.statements())
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
        batch
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
