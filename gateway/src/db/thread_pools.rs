//! Pools made per thread that serves requests (auth/v1 and storage/v1 use them).
//!
//! A connection's I/O task runs on the thread that opened it (see `db::api_pool`): a
//! request on another HTTP worker would cross threads twice on every round trip. Each
//! thread gets its own pool, with its share of `DB_POOL_SIZE`, the first time it asks.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::thread::ThreadId;

use deadpool_postgres::Pool;

use super::DbError;

type MakePool = dyn Fn() -> Result<Pool, DbError> + Send + Sync;

pub struct ThreadPools {
    by_thread: Mutex<HashMap<ThreadId, Pool>>,
    make: Box<MakePool>,
}

impl std::fmt::Debug for ThreadPools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let threads = self.by_thread.lock().map_or(0, |pools| pools.len());
        f.debug_struct("ThreadPools")
            .field("threads", &threads)
            .finish_non_exhaustive()
    }
}

impl ThreadPools {
    /// Pools made by `make`, one per thread.
    pub fn new(make: impl Fn() -> Result<Pool, DbError> + Send + Sync + 'static) -> Self {
        Self {
            by_thread: Mutex::new(HashMap::new()),
            make: Box::new(make),
        }
    }

    /// The calling thread's pool.
    pub fn current(&self) -> Result<Pool, DbError> {
        let thread = std::thread::current().id();
        let mut pools = self
            .by_thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(pool) = pools.get(&thread) {
            return Ok(pool.clone());
        }
        let pool = (self.make)()?;
        pools.insert(thread, pool.clone());
        Ok(pool)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use deadpool_postgres::{Manager, ManagerConfig, RecyclingMethod, Runtime};
    use tokio_postgres::NoTls;

    use super::*;

    /// Builds pools lazily (nothing connects) and counts them.
    fn counting_pools() -> (ThreadPools, Arc<AtomicUsize>) {
        let made = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&made);
        let pools = ThreadPools::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            let config: tokio_postgres::Config = "host=127.0.0.1 user=nobody".parse().unwrap();
            let manager = Manager::from_config(
                config,
                NoTls,
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            );
            Ok(Pool::builder(manager)
                .max_size(2)
                .runtime(Runtime::Tokio1)
                .build()
                .unwrap())
        });
        (pools, made)
    }

    #[test]
    fn each_thread_gets_one_pool_of_its_own() {
        let (pools, made) = counting_pools();
        pools.current().unwrap();
        pools.current().unwrap();
        assert_eq!(made.load(Ordering::SeqCst), 1);
        std::thread::scope(|scope| {
            scope.spawn(|| pools.current().unwrap());
            scope.spawn(|| pools.current().unwrap());
        });
        assert_eq!(made.load(Ordering::SeqCst), 3);
        assert_eq!(pools.current().unwrap().status().max_size, 2);
        assert_eq!(made.load(Ordering::SeqCst), 3);
    }
}
