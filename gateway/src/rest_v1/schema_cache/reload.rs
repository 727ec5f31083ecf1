//! Keeping the schema cache current.
//!
//! A dedicated connection `LISTEN`s on channel `pgrst`, as PostgREST does: the payloads
//! `''`, `'reload schema'` and `'reload config'` reload the cache (the in-database config is
//! part of it). The `pgrst_ddl_watch` event triggers send such a notification after every
//! DDL statement. Reloads are coalesced: requests that arrive while a reload runs cause one
//! more reload afterwards, not one each. A failed reload keeps the previous cache. When the
//! listening connection drops it reconnects with back-off and reloads, since notifications
//! may have been missed meanwhile.

use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use deadpool_postgres::Pool;
use tokio::sync::{Notify, watch};

use super::SchemaCache;
use super::introspect;
use crate::config::RestSettings;
use crate::db::notifications::{Event, listen_forever};

/// Notification channel, as PostgREST's default `db-channel`.
pub const CHANNEL: &str = "pgrst";

/// The current cache and the machinery that refreshes it.
#[derive(Debug)]
pub struct SchemaCacheState {
    current: ArcSwap<SchemaCache>,
    settings: RestSettings,
    authenticator: String,
    pool: Pool,
    reload_requested: Notify,
    /// Incremented after every successful reload (tests wait on it).
    generation: watch::Sender<u64>,
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("could not get a connection to load the schema cache: {0}")]
    Pool(#[from] deadpool_postgres::PoolError),
    #[error("could not load the schema cache: {0}")]
    Query(#[from] tokio_postgres::Error),
}

impl SchemaCacheState {
    /// Loads the cache once (failing start-up if that fails) and starts the listener and
    /// the reload worker. `listen_config` is the admin connection's configuration.
    pub async fn start(
        pool: Pool,
        listen_config: tokio_postgres::Config,
        settings: RestSettings,
        authenticator: String,
    ) -> Result<Arc<Self>, LoadError> {
        let cache = load_with(&pool, &settings, &authenticator).await?;
        let state = Arc::new(Self {
            current: ArcSwap::from_pointee(cache),
            settings,
            authenticator,
            pool,
            reload_requested: Notify::new(),
            generation: watch::channel(0).0,
        });
        tokio::spawn(reload_worker(state.clone()));
        // Be subscribed before the gateway reports ready, so DDL that follows start-up is
        // never missed; a database that refuses LISTEN only delays start-up a little.
        let (subscribed_tx, subscribed_rx) = tokio::sync::oneshot::channel();
        tokio::spawn(listen(state.clone(), listen_config, subscribed_tx));
        if tokio::time::timeout(Duration::from_secs(5), subscribed_rx)
            .await
            .is_err()
        {
            tracing::warn!("schema cache listener is not subscribed yet; continuing");
        }
        Ok(state)
    }

    /// The cache as of now; keep the `Arc` for the whole request.
    pub fn get(&self) -> Arc<SchemaCache> {
        self.current.load_full()
    }

    /// Asks for a reload (coalesced with others).
    pub fn request_reload(&self) {
        self.reload_requested.notify_one();
    }

    /// Number of successful reloads since start-up.
    pub fn generation(&self) -> watch::Receiver<u64> {
        self.generation.subscribe()
    }

    async fn reload(&self) -> Result<(), LoadError> {
        let cache = load_with(&self.pool, &self.settings, &self.authenticator).await?;
        self.current.store(Arc::new(cache));
        self.generation.send_modify(|generation| *generation += 1);
        Ok(())
    }
}

async fn load_with(
    pool: &Pool,
    settings: &RestSettings,
    authenticator: &str,
) -> Result<SchemaCache, LoadError> {
    let mut client = pool.get().await?;
    let started = std::time::Instant::now();
    let cache = introspect::load(&mut client, settings, authenticator).await?;
    tracing::info!(
        relations = cache.relations.len(),
        relationships = cache.relationships.values().map(Vec::len).sum::<usize>(),
        routines = cache.routines.values().map(Vec::len).sum::<usize>(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "schema cache loaded"
    );
    Ok(cache)
}

/// Performs requested reloads one at a time; a request arriving during a reload is kept
/// by `Notify` and causes exactly one more.
async fn reload_worker(state: Arc<SchemaCacheState>) {
    let mut backoff = Duration::from_secs(1);
    loop {
        state.reload_requested.notified().await;
        match state.reload().await {
            Ok(()) => backoff = Duration::from_secs(1),
            Err(error) => {
                tracing::error!(%error, "schema cache reload failed; keeping the previous one");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(32));
                state.request_reload();
            }
        }
    }
}

/// Listens for `NOTIFY pgrst`, reconnecting with back-off.
async fn listen(
    state: Arc<SchemaCacheState>,
    config: tokio_postgres::Config,
    subscribed_tx: tokio::sync::oneshot::Sender<()>,
) {
    let mut subscribed_tx = Some(subscribed_tx);
    listen_forever(config, CHANNEL, "schema cache", |event| match event {
        Event::Listening { again } => {
            if let Some(first) = subscribed_tx.take() {
                let _ = first.send(());
            }
            if again {
                // Notifications may have been lost while disconnected.
                state.request_reload();
            }
        }
        Event::Notification("" | "reload schema" | "reload config") => state.request_reload(),
        Event::Notification(other) => tracing::debug!(payload = other, "ignoring notification"),
    })
    .await;
}
