//! Delivery of captured changes to this process's subscribers, as Supabase decides it: a
//! subscription takes a change when its event, table and filters match; an insert or update
//! of a table with RLS reaches a subscriber only if its role and claims may SELECT the row
//! (checked once per distinct role and claims, in one read-only transaction per batch); each
//! role sees only the columns it may read. A channel gets one message per change, with the
//! ids of its subscriptions that took it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool_postgres::Pool;
use realtime::changes::{Change, ChangeKind, ChangeListener};
use realtime::{Delivery, Hub, Message};
use serde_json::{Map, Value, json};

use crate::realtime_v1::policies::API_ROLES;
use crate::rest_v1::sql::fragment::ident;

/// How long a role's readable columns are trusted.
const PRIVILEGES_TTL: Duration = Duration::from_secs(10);

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// A role and its claims: subscribers that share both see the same rows.
type Viewer = (String, String);

/// A role, a schema and a table: whose readable columns are known.
type RoleTable = (String, String, String);

struct Candidate {
    change: usize,
    listener: usize,
    ids: Vec<u64>,
}

pub struct Deliverer {
    hub: Arc<Hub>,
    owner: Pool,
    readable: HashMap<RoleTable, (Arc<HashSet<String>>, Instant)>,
}

/// Whether a change is checked against each viewer's RLS (deletes are not, as in Supabase).
fn needs_rls(change: &Change) -> bool {
    change.row_security && change.kind != ChangeKind::Delete && !change.primary_key.is_empty()
}

impl Deliverer {
    pub fn new(hub: Arc<Hub>, owner: Pool) -> Self {
        Self {
            hub,
            owner,
            readable: HashMap::new(),
        }
    }

    pub async fn deliver(&mut self, changes: &[Change]) {
        let listeners = self.hub.listeners();
        if listeners.is_empty() {
            return;
        }
        let mut viewers: HashMap<Viewer, Vec<Candidate>> = HashMap::new();
        for (index, change) in changes.iter().enumerate() {
            for (at, listener) in listeners.iter().enumerate() {
                if !API_ROLES.contains(&listener.claims.role.as_str()) {
                    continue;
                }
                let mut ids: Vec<u64> = listener
                    .subscriptions
                    .iter()
                    .filter(|subscription| subscription.wants(change))
                    .map(|subscription| subscription.id)
                    .collect();
                ids.dedup();
                if !ids.is_empty() {
                    viewers
                        .entry(viewer(listener))
                        .or_default()
                        .push(Candidate {
                            change: index,
                            listener: at,
                            ids,
                        });
                }
            }
        }
        if viewers.is_empty() {
            return;
        }
        // What each role may read of each table, before RLS: a role that may not read the
        // key gets Supabase's 401 without an RLS check.
        let mut data: HashMap<(usize, String), Value> = HashMap::new();
        let mut checks: HashMap<&Viewer, Vec<usize>> = HashMap::new();
        for (viewer, candidates) in &viewers {
            for candidate in candidates {
                let key = (candidate.change, viewer.0.clone());
                let change = &changes[candidate.change];
                if !data.contains_key(&key) {
                    match self.readable_columns(&viewer.0, change).await {
                        Ok(readable) => {
                            data.insert(key.clone(), change.data_for(Some(&readable)));
                        }
                        Err(error) => {
                            tracing::warn!(%error, "could not read column privileges for realtime");
                            continue;
                        }
                    }
                }
                if needs_rls(change) && data[&key]["errors"].is_null() {
                    checks.entry(viewer).or_default().push(candidate.change);
                }
            }
        }
        let visible = match self.visible_rows(changes, checks).await {
            Ok(visible) => visible,
            Err(error) => {
                tracing::warn!(%error, "could not check realtime changes against RLS; not delivered");
                return;
            }
        };
        for (viewer, candidates) in &viewers {
            for candidate in candidates {
                let key = (candidate.change, viewer.0.clone());
                let Some(payload) = data.get(&key) else {
                    continue;
                };
                let checked = needs_rls(&changes[candidate.change]) && payload["errors"].is_null();
                if checked
                    && !visible
                        .get(viewer)
                        .is_some_and(|rows| rows.contains(&candidate.change))
                {
                    continue;
                }
                let listener = &listeners[candidate.listener];
                let _ = listener.queue.send(Delivery::Message(Box::new(Message {
                    join_ref: None,
                    msg_ref: None,
                    topic: listener.topic.clone(),
                    event: "postgres_changes".into(),
                    payload: json!({ "ids": candidate.ids, "data": payload }),
                })));
            }
        }
    }

    /// For each viewer, which of the changes needing RLS it may see: in one read-only
    /// transaction, each viewer's role and claims are set and each table asked which of the
    /// changed keys it shows. The statements are pipelined (sent together, run in order),
    /// so a batch costs one round trip however many viewers there are; a viewer reaches
    /// this only when its role may use the schema and read the key, so no statement is
    /// expected to fail.
    async fn visible_rows(
        &self,
        changes: &[Change],
        checks: HashMap<&Viewer, Vec<usize>>,
    ) -> Result<HashMap<Viewer, HashSet<usize>>, Failure> {
        let mut visible: HashMap<Viewer, HashSet<usize>> = HashMap::new();
        if checks.is_empty() {
            return Ok(visible);
        }
        let mut statements: Vec<Statement<'_>> = Vec::new();
        for (viewer, mut indexes) in checks {
            indexes.sort_unstable();
            indexes.dedup();
            statements.push(Statement::act_as(viewer));
            let mut by_table: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
            for index in indexes {
                let change = &changes[index];
                by_table
                    .entry((change.schema.as_str(), change.table.as_str()))
                    .or_default()
                    .push(index);
            }
            for (_, indexes) in by_table {
                statements.push(Statement::keys_shown(viewer, changes, indexes));
            }
        }
        let mut client = self.owner.get().await?;
        let transaction = client.build_transaction().read_only(true).start().await?;
        // Prepared once per connection: a batch repeats a few statements for many viewers,
        // and PostgreSQL plans them again only when the role changes. All are prepared
        // before any runs, as the pipeline below depends on the order of first polls.
        let prepared = futures_util::future::try_join_all(
            statements
                .iter()
                .map(|statement| transaction.prepare_cached(&statement.sql)),
        )
        .await?;
        // tokio-postgres sends a query when its future is first polled, and join_all first
        // polls them in order: each viewer's settings precede its checks.
        let pending: Vec<_> = statements
            .iter()
            .zip(&prepared)
            .map(|(statement, prepared)| {
                let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = statement
                    .params
                    .iter()
                    .map(|param| param as &(dyn tokio_postgres::types::ToSql + Sync))
                    .collect();
                let transaction = &transaction;
                async move { transaction.query(prepared, &params).await }
            })
            .collect();
        let answers = futures_util::future::join_all(pending).await;
        for (statement, answer) in statements.iter().zip(answers) {
            let rows = answer?;
            let Some(indexes) = &statement.indexes else {
                continue;
            };
            let seen = visible.entry(statement.viewer.clone()).or_default();
            for row in rows {
                let at: i64 = row.get(0);
                if let Some(index) = usize::try_from(at).ok().and_then(|at| indexes.get(at)) {
                    seen.insert(*index);
                }
            }
        }
        transaction.rollback().await?;
        Ok(visible)
    }

    /// The columns of the change's table that `role` may SELECT (none without `USAGE` on
    /// its schema).
    async fn readable_columns(
        &mut self,
        role: &str,
        change: &Change,
    ) -> Result<Arc<HashSet<String>>, Failure> {
        let key = (role.to_owned(), change.schema.clone(), change.table.clone());
        if let Some((columns, read_at)) = self.readable.get(&key)
            && read_at.elapsed() < PRIVILEGES_TTL
        {
            return Ok(Arc::clone(columns));
        }
        let client = self.owner.get().await?;
        let rows = client
            .query(
                "SELECT a.attname::text FROM pg_attribute a \
                 WHERE a.attrelid = to_regclass(format('%I.%I', $2::text, $3::text)) \
                   AND a.attnum > 0 AND NOT a.attisdropped \
                   AND has_schema_privilege($1::text, $2::text, 'USAGE') \
                   AND has_column_privilege($1::text, a.attrelid, a.attnum, 'SELECT')",
                &[&role, &change.schema, &change.table],
            )
            .await?;
        let columns: Arc<HashSet<String>> = Arc::new(rows.iter().map(|row| row.get(0)).collect());
        self.readable
            .insert(key, (Arc::clone(&columns), Instant::now()));
        Ok(columns)
    }
}

/// One statement of a batch's RLS check: setting a viewer's role and claims, or asking a
/// table which of the changed keys (`indexes`, in the order sent) the viewer may see.
struct Statement<'a> {
    viewer: &'a Viewer,
    sql: String,
    params: Vec<String>,
    indexes: Option<Vec<usize>>,
}

impl<'a> Statement<'a> {
    fn act_as(viewer: &'a Viewer) -> Self {
        Self {
            viewer,
            sql: "SELECT set_config('request.jwt.claims', $1, true), \
                         set_config('request.jwt.claim.role', $2, true), \
                         set_config('request.jwt.claim.sub', coalesce($1::json->>'sub', ''), true), \
                         set_config('role', $2, true)"
                .to_owned(),
            params: vec![viewer.1.clone(), viewer.0.clone()],
            indexes: None,
        }
    }

    /// `indexes` are changes of one table (names from the replication stream, quoted).
    fn keys_shown(viewer: &'a Viewer, changes: &[Change], indexes: Vec<usize>) -> Self {
        let change = &changes[indexes[0]];
        let keys: Vec<Value> = indexes
            .iter()
            .map(|index| {
                let record = changes[*index].record.as_ref();
                Value::Object(
                    change
                        .primary_key
                        .iter()
                        .map(|key| {
                            let value = record
                                .and_then(|record| record.get(key))
                                .cloned()
                                .unwrap_or(Value::Null);
                            (key.clone(), value)
                        })
                        .collect::<Map<String, Value>>(),
                )
            })
            .collect();
        let qualified = format!("{}.{}", ident(&change.schema), ident(&change.table));
        let matches = change
            .primary_key
            .iter()
            .map(|key| format!("t.{0} = k.{0}", ident(key)))
            .collect::<Vec<_>>()
            .join(" AND ");
        Self {
            viewer,
            sql: format!(
                "SELECT (e.n - 1)::int8 FROM json_array_elements($1::text::json) WITH ORDINALITY AS e(row, n) \
                 WHERE current_user = $2::text AND current_setting('request.jwt.claims', true) = $3::text \
                   AND EXISTS (SELECT 1 FROM {qualified} t, json_populate_record(NULL::{qualified}, e.row) k \
                 WHERE {matches})"
            ),
            // The role and claims again: were the statements ever run out of order, the
            // check would show nothing rather than another viewer's rows.
            params: vec![
                Value::Array(keys).to_string(),
                viewer.0.clone(),
                viewer.1.clone(),
            ],
            indexes: Some(indexes),
        }
    }
}

fn viewer(listener: &ChangeListener) -> Viewer {
    (
        listener.claims.role.clone(),
        listener.claims.all.to_string(),
    )
}
