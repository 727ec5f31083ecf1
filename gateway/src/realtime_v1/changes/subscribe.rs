//! Subscribing a channel's bindings, as Supabase does after the join reply: each table
//! must be in the `supabase_realtime` publication, and each filter's column must exist and
//! its value must read as the column's type (`private.realtime_filter_value`). A refusal is
//! worded as Supabase words it, for the `postgres_changes` system message.

use std::sync::Arc;

use deadpool_postgres::Pool;
use realtime::PolicyFuture;
use realtime::changes::{Binding, ChangeSource, Filter, SubscribeError, Subscription};

use std::time::Duration;

use super::capture::{PUBLICATION, database_message};
use super::status::{CaptureState, CaptureStatus};

/// The longest a subscription waits for capture to start.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(8);

#[derive(Clone)]
pub struct DatabaseChanges {
    owner: Pool,
    status: Arc<CaptureStatus>,
}

impl std::fmt::Debug for DatabaseChanges {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("DatabaseChanges")
            .field("status", &self.status.get())
            .finish_non_exhaustive()
    }
}

impl DatabaseChanges {
    pub fn new(owner: Pool, status: Arc<CaptureStatus>) -> Self {
        Self { owner, status }
    }

    async fn resolve_all(&self, bindings: &[Binding]) -> Result<Vec<Subscription>, SubscribeError> {
        self.resolve_with_database(bindings)
            .await
            .map_err(|failure| match failure {
                Failure::Refused(message) => SubscribeError::Refused(message),
                Failure::Unavailable => SubscribeError::Unavailable,
            })
    }

    async fn resolve_with_database(
        &self,
        bindings: &[Binding],
    ) -> Result<Vec<Subscription>, Failure> {
        // Capture starting again (the database restarting): wait for it, so that what is
        // committed once the channel is subscribed reaches it.
        if self.status.get() == CaptureState::Starting
            && tokio::time::timeout(SETTLE_TIMEOUT, self.status.settled())
                .await
                .is_err()
        {
            return Err(Failure::Unavailable);
        }
        if let CaptureState::Unavailable(reason) = self.status.get() {
            return Err(Failure::Refused(format!(
                "Unable to subscribe to changes: change capture is unavailable on this server ({reason})"
            )));
        }
        let client = self.owner.get().await.map_err(|_| Failure::Unavailable)?;
        let mut subscriptions = Vec::with_capacity(bindings.len());
        for binding in bindings {
            let table = binding.table.as_deref();
            let published = client
                .query(
                    "SELECT format('%I.%I', schemaname, tablename) FROM pg_publication_tables \
                     WHERE pubname = $1 AND ($2 = '*' OR schemaname = $2) \
                       AND ($3::text IS NULL OR tablename = $3)",
                    &[&PUBLICATION, &binding.schema, &table],
                )
                .await
                .map_err(|error| exception(binding, &error))?;
            if published.is_empty() {
                return Err(Failure::Refused(format!(
                    "Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: {}",
                    binding.describe()
                )));
            }
            let mut filters = Vec::with_capacity(binding.filters.len());
            for spec in &binding.filters {
                // A filter on every table of a schema is read against each of them; the
                // first refusal stands.
                let mut value = None;
                for row in &published {
                    let entity: String = row.get(0);
                    let typed: serde_json::Value = client
                        .query_one(
                            "SELECT private.realtime_filter_value($1::text::regclass, $2, $3, $4)",
                            &[&entity, &spec.column, &spec.op.as_str(), &spec.value],
                        )
                        .await
                        .map_err(|error| exception(binding, &error))?
                        .get(0);
                    value.get_or_insert(typed);
                }
                filters.push(Filter {
                    column: spec.column.clone(),
                    op: spec.op,
                    value: value.unwrap_or_default(),
                    negate: spec.negate,
                });
            }
            subscriptions.push(Subscription {
                id: binding.id,
                event: binding.event,
                schema: binding.schema.clone(),
                table: binding.table.clone(),
                filters,
            });
        }
        Ok(subscriptions)
    }
}

enum Failure {
    Refused(String),
    Unavailable,
}

/// Supabase's message for a subscription the database refused; a lost connection is the
/// database being unavailable.
fn exception(binding: &Binding, error: &tokio_postgres::Error) -> Failure {
    if error.is_closed() || error.as_db_error().is_none() {
        return Failure::Unavailable;
    }
    let code = error.code().map_or("", |code| code.code());
    let condition = match code {
        "P0001" => " (raise_exception)",
        "22P02" => " (invalid_text_representation)",
        "22007" => " (invalid_datetime_format)",
        "22008" => " (datetime_field_overflow)",
        "22003" => " (numeric_value_out_of_range)",
        _ => "",
    };
    Failure::Refused(format!(
        "Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: {}. Exception: ERROR {code}{condition} {}",
        binding.describe(),
        database_message(error)
    ))
}

impl ChangeSource for DatabaseChanges {
    fn resolve<'a>(
        &'a self,
        bindings: &'a [Binding],
    ) -> PolicyFuture<'a, Result<Vec<Subscription>, SubscribeError>> {
        Box::pin(self.resolve_all(bindings))
    }
}
