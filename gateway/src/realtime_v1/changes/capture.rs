//! Change capture: the one process holding the advisory lock reads a temporary logical
//! replication slot (`pgoutput` on the `supabase_realtime` publication, polled with
//! `pg_logical_slot_get_binary_changes`, as Supabase polls its temporary slot) and turns each
//! row change into a [`Change`] with its values as JSON. The other processes wait for the
//! lock and take over within seconds of the holder's death; the dead holder's slot goes with
//! its session, so changes committed in between are not delivered (as with Supabase). The
//! slot's lag is logged; a slot further behind than the configured limit is dropped with an
//! error in the log, by its holder, or by a waiting process that ends a stuck holder's
//! session.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use realtime::changes::{Change, ChangeKind, Column};
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedSender;
use tokio_postgres::Client;

use super::pgoutput::{self, Datum, Message, OldRow, Relation};
use super::status::{CaptureState, CaptureStatus};
use super::values::{self, TypeInfo};

/// The advisory lock whose holder captures changes ("cielo-rt").
const CAPTURE_LOCK: i64 = 0x6369_656c_6f2d_7274;
pub const PUBLICATION: &str = "supabase_realtime";
/// Changes read per poll at most (whole transactions: a large one comes at once).
const MAX_CHANGES: i32 = 1_000;
/// The pause after a poll that found nothing.
const IDLE_POLL: Duration = Duration::from_millis(20);
/// How many times (1 ms apart) a batch's committed transactions are awaited.
const VISIBILITY_TRIES: u32 = 1_000;
const TAKEOVER_INTERVAL: Duration = Duration::from_secs(2);
const LAG_REPORT_INTERVAL: Duration = Duration::from_secs(60);
/// How long a table's key and RLS setting are trusted before they are read again.
const TABLE_INFO_TTL: Duration = Duration::from_secs(5);
/// Microseconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01.
const POSTGRES_EPOCH_MICROS: i64 = 946_684_800_000_000;

type Failure = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, Clone)]
pub struct CaptureSettings {
    /// The slot's name; `None`: `cielo_realtime_<database oid>`, unique in the cluster.
    pub slot: Option<String>,
    /// A slot this far behind the server's WAL is dropped.
    pub max_lag_bytes: i64,
}

struct TableInfo {
    primary_key: Vec<String>,
    row_security: bool,
    read_at: Instant,
}

/// What one session keeps between polls.
struct Session {
    client: Client,
    slot: String,
    max_lag_bytes: i64,
    relations: HashMap<u32, Relation>,
    types: HashMap<u32, TypeInfo>,
    tables: HashMap<u32, TableInfo>,
}

/// Captures forever: connects, waits for the lock, reads the slot; after a failure it
/// starts again with back-off.
/// What capture hands to delivery.
#[derive(Debug)]
pub enum Captured {
    Changes(Vec<Change>),
    /// The connection to the database was lost (PostgreSQL restarting, a network cut):
    /// changes committed until capture is back are not seen.
    Lost,
}

pub async fn run(
    config: tokio_postgres::Config,
    settings: CaptureSettings,
    status: Arc<CaptureStatus>,
    sink: UnboundedSender<Captured>,
) {
    let mut failures = 0_u32;
    loop {
        let started = Instant::now();
        let pause = match session(&config, &settings, &status, &sink).await {
            Ok(()) => Duration::from_secs(1),
            Err(Stop::Unavailable(reason)) => {
                tracing::error!(%reason, "realtime change capture is unavailable; postgres_changes are off");
                status.set(CaptureState::Unavailable(reason));
                Duration::from_secs(60)
            }
            Err(Stop::Failed(error)) => {
                tracing::warn!(%error, "realtime change capture stopped; starting again");
                let was = status.get();
                status.set(CaptureState::Starting);
                if matches!(was, CaptureState::Capturing | CaptureState::Standby) {
                    let _ = sink.send(Captured::Lost);
                }
                if started.elapsed() > Duration::from_secs(60) {
                    failures = 0;
                }
                failures += 1;
                // Soon again: subscribers wait for capture when they rejoin.
                Duration::from_millis(250 * u64::from(failures.min(20)))
            }
        };
        tokio::time::sleep(pause).await;
    }
}

enum Stop {
    /// The database cannot give changes (no logical decoding, no rights, no publication).
    Unavailable(String),
    Failed(Failure),
}

impl<E: Into<Failure>> From<E> for Stop {
    fn from(error: E) -> Self {
        Stop::Failed(error.into())
    }
}

async fn session(
    config: &tokio_postgres::Config,
    settings: &CaptureSettings,
    status: &CaptureStatus,
    sink: &UnboundedSender<Captured>,
) -> Result<(), Stop> {
    let (client, connection) = config.connect(tokio_postgres::NoTls).await?;
    tokio::spawn(connection);
    // Values are printed in the forms `values` reads (UTC, ISO dates).
    client
        .batch_execute(
            "SET application_name = 'cielo realtime capture'; SET TimeZone = 'UTC'; \
             SET DateStyle = 'ISO, MDY'; SET IntervalStyle = 'postgres'; \
             SET extra_float_digits = 1; SET bytea_output = 'hex'",
        )
        .await?;
    let wal_level: String = client.query_one("SHOW wal_level", &[]).await?.get(0);
    if wal_level != "logical" {
        return Err(Stop::Unavailable(format!(
            "the database runs with wal_level={wal_level}; postgres_changes need wal_level=logical"
        )));
    }
    let slot = match &settings.slot {
        Some(slot) => slot.clone(),
        None => client
            .query_one(
                "SELECT 'cielo_realtime_' || oid::text FROM pg_database WHERE datname = current_database()",
                &[],
            )
            .await?
            .get(0),
    };
    let mut session = Session {
        client,
        slot,
        max_lag_bytes: settings.max_lag_bytes,
        relations: HashMap::new(),
        types: HashMap::new(),
        tables: HashMap::new(),
    };
    let mut waited = 0_u32;
    loop {
        let held: bool = session
            .client
            .query_one("SELECT pg_try_advisory_lock($1)", &[&CAPTURE_LOCK])
            .await?
            .get(0);
        if held {
            break;
        }
        // Standing by once the holder's slot is there: changes committed from now on
        // are captured.
        if session.holder_capturing().await? {
            status.set(CaptureState::Standby);
        }
        if waited.is_multiple_of(15) {
            session.end_stuck_holder().await?;
        }
        waited += 1;
        tokio::time::sleep(TAKEOVER_INTERVAL).await;
    }
    session.prepare_slot().await?;
    tracing::info!(slot = %session.slot, "realtime change capture started");
    status.set(CaptureState::Capturing);
    let mut last_report = Instant::now();
    loop {
        let (changes, full) = session.poll().await?;
        if !changes.is_empty() {
            let _ = sink.send(Captured::Changes(changes));
        }
        if last_report.elapsed() >= LAG_REPORT_INTERVAL {
            last_report = Instant::now();
            session.check_lag().await?;
        }
        if !full {
            tokio::time::sleep(IDLE_POLL).await;
        }
    }
}

impl Session {
    /// Makes this session's temporary slot (a slot of the same name left by something else
    /// is dropped first).
    async fn prepare_slot(&mut self) -> Result<(), Stop> {
        let publication = self
            .client
            .query_opt(
                "SELECT 1 FROM pg_publication WHERE pubname = $1",
                &[&PUBLICATION],
            )
            .await?;
        if publication.is_none() {
            return Err(Stop::Unavailable(format!(
                "the database has no publication {PUBLICATION}"
            )));
        }
        self.client
            .execute(
                "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots \
                 WHERE slot_name = $1 AND active_pid IS NOT NULL AND active_pid <> pg_backend_pid()",
                &[&self.slot],
            )
            .await?;
        self.client
            .execute(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots \
                 WHERE slot_name = $1 AND NOT active",
                &[&self.slot],
            )
            .await?;
        self.client
            .execute(
                "SELECT pg_create_logical_replication_slot($1, 'pgoutput', true)",
                &[&self.slot],
            )
            .await
            .map_err(|error| {
                Stop::Unavailable(format!(
                    "could not create the replication slot {}: {}",
                    self.slot,
                    database_message(&error)
                ))
            })?;
        Ok(())
    }

    /// Whether the lock's holder has its slot (it is active while its session lives).
    async fn holder_capturing(&self) -> Result<bool, Failure> {
        Ok(self
            .client
            .query_opt(
                "SELECT 1 FROM pg_replication_slots WHERE slot_name = $1 AND active",
                &[&self.slot],
            )
            .await?
            .is_some())
    }

    /// The slot's lag behind the server's WAL, and whether PostgreSQL lost it.
    async fn lag(&self) -> Result<Option<(i64, bool)>, Failure> {
        let row = self
            .client
            .query_opt(
                "SELECT coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn), 0)::int8, \
                        coalesce(wal_status, '') = 'lost' \
                 FROM pg_replication_slots WHERE slot_name = $1",
                &[&self.slot],
            )
            .await?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    }

    /// Logs the slot's lag; past the limit (or lost), drops it and makes a new one.
    async fn check_lag(&mut self) -> Result<(), Stop> {
        let Some((lag, lost)) = self.lag().await? else {
            return Ok(());
        };
        if lost || lag > self.max_lag_bytes {
            tracing::error!(
                slot = %self.slot,
                lag_bytes = lag,
                limit_bytes = self.max_lag_bytes,
                lost,
                "the realtime replication slot fell too far behind: dropping it; the changes it held are not delivered"
            );
            self.client
                .execute("SELECT pg_drop_replication_slot($1)", &[&self.slot])
                .await?;
            self.prepare_slot().await?;
        } else {
            tracing::info!(slot = %self.slot, lag_bytes = lag, "realtime replication slot lag");
        }
        Ok(())
    }

    /// While waiting for the lock: a holder whose slot is past the limit is stuck, so its
    /// session is ended (its slot and lock go with it).
    async fn end_stuck_holder(&self) -> Result<(), Failure> {
        if let Some((lag, lost)) = self.lag().await?
            && (lost || lag > self.max_lag_bytes)
        {
            tracing::error!(
                slot = %self.slot,
                lag_bytes = lag,
                limit_bytes = self.max_lag_bytes,
                "the process capturing realtime changes is stuck past the slot limit: ending its session"
            );
            self.client
                .execute(
                    "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots \
                     WHERE slot_name = $1 AND active_pid IS NOT NULL",
                    &[&self.slot],
                )
                .await?;
        }
        Ok(())
    }

    /// Reads what was committed since the last poll; says whether it read all it may.
    async fn poll(&mut self) -> Result<(Vec<Change>, bool), Stop> {
        let rows = match self
            .client
            .query(
                "SELECT data FROM pg_logical_slot_get_binary_changes($1, NULL, $2, \
                 'proto_version', '1', 'publication_names', $3)",
                &[&self.slot, &MAX_CHANGES, &PUBLICATION],
            )
            .await
        {
            Ok(rows) => rows,
            // An invalidated slot (past max_slot_wal_keep_size) or a dropped one.
            Err(error)
                if error.code().is_some_and(|code| {
                    *code == tokio_postgres::error::SqlState::OBJECT_NOT_IN_PREREQUISITE_STATE
                        || *code == tokio_postgres::error::SqlState::UNDEFINED_OBJECT
                }) =>
            {
                tracing::error!(slot = %self.slot, error = %database_message(&error), "the realtime replication slot is unusable: making it again");
                let _ = self
                    .client
                    .execute(
                        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1",
                        &[&self.slot],
                    )
                    .await;
                self.prepare_slot().await?;
                return Ok((Vec::new(), false));
            }
            Err(error) => return Err(error.into()),
        };
        let full = rows.len() >= MAX_CHANGES as usize;
        let mut pending = Vec::new();
        let mut commit_time = 0;
        let mut xids = Vec::new();
        for row in &rows {
            let bytes: &[u8] = row.get(0);
            match pgoutput::decode(bytes)? {
                Message::Begin {
                    commit_time: at,
                    xid,
                } => {
                    commit_time = at;
                    xids.push(xid);
                }
                Message::Relation(relation) => {
                    self.relations.insert(relation.id, relation);
                }
                Message::Insert { relation, new } => {
                    pending.push(Pending::new(
                        relation,
                        commit_time,
                        ChangeKind::Insert,
                        Some(new),
                        None,
                    ));
                }
                Message::Update { relation, old, new } => {
                    pending.push(Pending::new(
                        relation,
                        commit_time,
                        ChangeKind::Update,
                        Some(new),
                        old,
                    ));
                }
                Message::Delete { relation, old } => {
                    pending.push(Pending::new(
                        relation,
                        commit_time,
                        ChangeKind::Delete,
                        None,
                        Some(old),
                    ));
                }
                Message::Commit | Message::Other => {}
            }
        }
        if pending.is_empty() {
            return Ok((Vec::new(), full));
        }
        self.wait_visible(&xids).await?;
        self.learn_types(&pending).await?;
        self.learn_tables(&pending).await?;
        let changes = self.build(pending).await?;
        Ok((changes, full))
    }

    /// Waits until the batch's transactions are visible to new snapshots. A commit reaches
    /// the WAL (and so the slot) a moment before other sessions see it; RLS checks read the
    /// table, so a change checked in that moment would be judged invisible and lost.
    async fn wait_visible(&self, xids: &[u32]) -> Result<(), Failure> {
        for _ in 0..VISIBILITY_TRIES {
            let snapshot: String = self
                .client
                .query_one("SELECT pg_current_snapshot()::text", &[])
                .await?
                .get(0);
            match Snapshot::parse(&snapshot) {
                Some(snapshot) if !xids.iter().all(|xid| snapshot.shows(*xid)) => {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                _ => return Ok(()),
            }
        }
        tracing::warn!("committed transactions stayed invisible; delivering their changes anyway");
        Ok(())
    }

    /// Reads the names and kinds of the column types not seen before.
    async fn learn_types(&mut self, pending: &[Pending]) -> Result<(), Failure> {
        let mut unknown: Vec<i64> = pending
            .iter()
            .filter_map(|change| self.relations.get(&change.relation))
            .flat_map(|relation| relation.columns.iter().map(|column| column.type_oid))
            .filter(|oid| !self.types.contains_key(oid))
            .map(i64::from)
            .collect();
        unknown.sort_unstable();
        unknown.dedup();
        if unknown.is_empty() {
            return Ok(());
        }
        let rows = self
            .client
            .query(
                "SELECT oid::int8, typname::text, typtype::text, typcategory::text \
                 FROM pg_type WHERE oid = ANY($1::int8[]::oid[])",
                &[&unknown],
            )
            .await?;
        for row in rows {
            let oid: i64 = row.get(0);
            let first = |text: String| text.chars().next().unwrap_or(' ');
            self.types.insert(
                u32::try_from(oid).unwrap_or_default(),
                TypeInfo {
                    name: row.get(1),
                    kind: first(row.get(2)),
                    category: first(row.get(3)),
                },
            );
        }
        Ok(())
    }

    /// Reads the primary key and RLS setting of the tables changed (again after a while:
    /// either may be altered).
    async fn learn_tables(&mut self, pending: &[Pending]) -> Result<(), Failure> {
        let mut relations: Vec<u32> = pending.iter().map(|change| change.relation).collect();
        relations.sort_unstable();
        relations.dedup();
        for relation in relations {
            if self
                .tables
                .get(&relation)
                .is_some_and(|info| info.read_at.elapsed() < TABLE_INFO_TTL)
            {
                continue;
            }
            let row = self
                .client
                .query_opt(
                    "SELECT c.relrowsecurity, coalesce(array( \
                       SELECT a.attname::text FROM pg_index i \
                       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) \
                       WHERE i.indrelid = c.oid AND i.indisprimary \
                       ORDER BY array_position(i.indkey::int2[], a.attnum)), '{}') \
                     FROM pg_class c WHERE c.oid = $1::int8::oid",
                    &[&i64::from(relation)],
                )
                .await?;
            let (row_security, primary_key) = row
                .map(|row| (row.get(0), row.get(1)))
                .unwrap_or((false, Vec::new()));
            self.tables.insert(
                relation,
                TableInfo {
                    primary_key,
                    row_security,
                    read_at: Instant::now(),
                },
            );
        }
        Ok(())
    }

    /// The changes with their values as JSON; what only the database converts right is
    /// converted there, in one query.
    async fn build(&mut self, pending: Vec<Pending>) -> Result<Vec<Change>, Failure> {
        let mut changes = Vec::with_capacity(pending.len());
        let mut deferred: Vec<(usize, bool, String, String, i64)> = Vec::new();
        for change in pending {
            let Some(relation) = self.relations.get(&change.relation) else {
                continue;
            };
            let table = self.tables.get(&change.relation);
            let index = changes.len();
            let mut row = |tuple: &[Datum], old: bool, keys_only: bool| {
                let mut record = Map::new();
                for (column, datum) in relation.columns.iter().zip(tuple) {
                    if keys_only && !column.key {
                        continue;
                    }
                    match datum {
                        Datum::Null => {
                            record.insert(column.name.clone(), Value::Null);
                        }
                        Datum::Unchanged => {}
                        Datum::Text(text) => {
                            let info = self.types.get(&column.type_oid);
                            match info.and_then(|info| values::to_json(text, column.type_oid, info))
                            {
                                Some(value) => {
                                    record.insert(column.name.clone(), value);
                                }
                                None => {
                                    record.insert(column.name.clone(), Value::Null);
                                    deferred.push((
                                        index,
                                        old,
                                        column.name.clone(),
                                        text.clone(),
                                        i64::from(column.type_oid),
                                    ));
                                }
                            }
                        }
                    }
                }
                record
            };
            let record = change.new.as_deref().map(|tuple| row(tuple, false, false));
            // A key-only old row ('K') holds nulls outside the key; an update that kept the
            // key sends none, and the key is then the new row's (as wal2json gives it).
            let old_record = match (&change.old, change.kind) {
                (Some(old), _) => Some(row(&old.datums, true, !old.full)),
                (None, ChangeKind::Update) => {
                    change.new.as_deref().map(|tuple| row(tuple, false, true))
                }
                (None, _) => None,
            };
            let mut record = record;
            // An unchanged TOASTed value comes from the old row when the old row has it.
            if let (Some(record), Some(old)) = (record.as_mut(), old_record.as_ref()) {
                for column in &relation.columns {
                    if !record.contains_key(&column.name)
                        && let Some(value) = old.get(&column.name)
                    {
                        record.insert(column.name.clone(), value.clone());
                    }
                }
            }
            changes.push(Change {
                schema: relation.schema.clone(),
                table: relation.table.clone(),
                kind: change.kind,
                commit_timestamp: commit_timestamp(change.commit_time),
                columns: relation
                    .columns
                    .iter()
                    .map(|column| Column {
                        name: column.name.clone(),
                        type_name: self
                            .types
                            .get(&column.type_oid)
                            .map_or_else(String::new, |info| info.name.clone()),
                    })
                    .collect(),
                primary_key: table
                    .map(|info| info.primary_key.clone())
                    .unwrap_or_default(),
                row_security: table.is_some_and(|info| info.row_security),
                record,
                old_record,
            });
        }
        if !deferred.is_empty() {
            let texts: Vec<&str> = deferred.iter().map(|item| item.3.as_str()).collect();
            let oids: Vec<i64> = deferred.iter().map(|item| item.4).collect();
            let rows = self
                .client
                .query(
                    "SELECT private.realtime_to_jsonb(value, type_oid::oid) \
                     FROM unnest($1::text[], $2::int8[]) WITH ORDINALITY AS item(value, type_oid, n) \
                     ORDER BY n",
                    &[&texts, &oids],
                )
                .await?;
            for ((index, old, name, _, _), row) in deferred.into_iter().zip(rows) {
                let value: Value = row.get(0);
                let change = &mut changes[index];
                let target = if old {
                    &mut change.old_record
                } else {
                    &mut change.record
                };
                if let Some(target) = target.as_mut() {
                    target.insert(name, value);
                }
            }
        }
        Ok(changes)
    }
}

/// A row change read from the slot, before its values are converted.
/// A snapshot as `pg_current_snapshot()` prints it: `xmin:xmax:xip,…` (64-bit ids).
struct Snapshot {
    xmin: u64,
    xmax: u64,
    running: Vec<u64>,
}

impl Snapshot {
    fn parse(text: &str) -> Option<Self> {
        let mut parts = text.split(':');
        let xmin = parts.next()?.parse().ok()?;
        let xmax = parts.next()?.parse().ok()?;
        let running = match parts.next()? {
            "" => Vec::new(),
            list => list
                .split(',')
                .map(|xid| xid.parse().ok())
                .collect::<Option<_>>()?,
        };
        Some(Self {
            xmin,
            xmax,
            running,
        })
    }

    /// Whether the transaction `xid` (32 bits, as the stream gives it) had ended when the
    /// snapshot was taken; its 64-bit id is the one within 2^31 of `xmax`.
    fn shows(&self, xid: u32) -> bool {
        let offset = i64::from(xid.wrapping_sub(self.xmax as u32) as i32);
        let full = self.xmax.wrapping_add_signed(offset);
        full < self.xmin || (full < self.xmax && !self.running.contains(&full))
    }
}

struct Pending {
    relation: u32,
    commit_time: i64,
    kind: ChangeKind,
    new: Option<Vec<Datum>>,
    old: Option<OldRow>,
}

impl Pending {
    fn new(
        relation: u32,
        commit_time: i64,
        kind: ChangeKind,
        new: Option<Vec<Datum>>,
        old: Option<OldRow>,
    ) -> Self {
        Self {
            relation,
            commit_time,
            kind,
            new,
            old,
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`, as Supabase writes commit times.
fn commit_timestamp(postgres_micros: i64) -> String {
    chrono::DateTime::from_timestamp_micros(postgres_micros + POSTGRES_EPOCH_MICROS)
        .map(|at| at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
        .unwrap_or_default()
}

/// The server's message of a database error (the driver's own text otherwise).
pub fn database_message(error: &tokio_postgres::Error) -> String {
    error
        .as_db_error()
        .map_or_else(|| error.to_string(), |db| db.message().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_show_ended_transactions() {
        let snapshot = Snapshot::parse("748:752:748,750").unwrap();
        assert!(snapshot.shows(747));
        assert!(!snapshot.shows(748));
        assert!(snapshot.shows(749));
        assert!(!snapshot.shows(750));
        assert!(snapshot.shows(751));
        // Committed but not yet ended: past xmax.
        assert!(!snapshot.shows(752));
        assert!(Snapshot::parse("5:5:").unwrap().shows(4));
        // Ids wrap around at 2^32: the epoch comes from xmax.
        let wrapped = Snapshot::parse("4294967290:4294967306:").unwrap();
        assert!(wrapped.shows(u32::MAX));
        assert!(wrapped.shows(3));
        assert!(!wrapped.shows(10));
    }

    #[test]
    fn commit_times_are_utc_milliseconds() {
        // From a captured Begin message (its transaction started at 13:14:02.559594).
        assert_eq!(
            commit_timestamp(0x0003_0454_b819_4830),
            "2026-11-28T13:14:02.560Z"
        );
    }
}
