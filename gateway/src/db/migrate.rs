//! Ordered SQL migrations from `sql/migrations`, embedded in the binary at build time.
//!
//! Each file runs in its own transaction together with the row that records it in
//! `cielo.schema_migrations`, so a migration is either fully applied and recorded or not
//! at all. Running again is a no-op. An advisory lock serialises gateways starting at the
//! same time against one database. A recorded migration whose file has changed since is
//! refused: history must not be rewritten under a running deployment.

use sha2::{Digest, Sha256};
use tokio_postgres::Client;

/// One migration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Migration {
    /// File name, e.g. `0003_auth.sql`.
    pub file: &'static str,
    /// The numeric prefix, e.g. `0003`; the order of application.
    pub version: &'static str,
    pub sql: &'static str,
}

impl Migration {
    fn checksum(&self) -> String {
        hex::encode(Sha256::digest(self.sql.as_bytes()))
    }
}

/// The migrations compiled into this binary, in order.
pub fn embedded() -> Vec<Migration> {
    const FILES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/migrations.rs"));
    FILES
        .iter()
        .map(|(file, sql)| Migration {
            file,
            version: file.split('_').next().unwrap_or(file),
            sql,
        })
        .collect()
}

/// Key of the advisory lock held while migrating (any fixed number unique to Cielo).
const MIGRATION_LOCK_KEY: i64 = 0x0C1E_1000_0001;

#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    #[error("migration {file} failed: {reason}")]
    Failed { file: &'static str, reason: String },
    #[error(
        "migration {file} was changed after it was applied to this database \
         (recorded checksum {recorded}, file checksum {current}); add a new migration instead"
    )]
    Changed {
        file: &'static str,
        recorded: String,
        current: String,
    },
    #[error("could not prepare the migrations table: {0}")]
    Bootstrap(#[source] tokio_postgres::Error),
}

/// What a run did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct MigrationReport {
    pub applied: Vec<&'static str>,
    pub already_applied: usize,
}

/// Applies every pending migration in order.
pub async fn run(
    client: &mut Client,
    migrations: &[Migration],
) -> Result<MigrationReport, MigrationError> {
    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK_KEY])
        .await
        .map_err(MigrationError::Bootstrap)?;
    let result = apply_pending(client, migrations).await;
    // The lock is per session; release it even when a migration failed.
    let _ = client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK_KEY])
        .await;
    result
}

async fn apply_pending(
    client: &mut Client,
    migrations: &[Migration],
) -> Result<MigrationReport, MigrationError> {
    client
        .batch_execute(
            "CREATE SCHEMA IF NOT EXISTS cielo;
             CREATE TABLE IF NOT EXISTS cielo.schema_migrations (
               version text PRIMARY KEY,
               file text NOT NULL,
               checksum text NOT NULL,
               applied_at timestamptz NOT NULL DEFAULT now()
             );",
        )
        .await
        .map_err(MigrationError::Bootstrap)?;
    let recorded: Vec<(String, String)> = client
        .query("SELECT version, checksum FROM cielo.schema_migrations", &[])
        .await
        .map_err(MigrationError::Bootstrap)?
        .into_iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();

    let mut report = MigrationReport::default();
    for migration in migrations {
        let current = migration.checksum();
        if let Some((_, checksum)) = recorded.iter().find(|(v, _)| v == migration.version) {
            if *checksum != current {
                return Err(MigrationError::Changed {
                    file: migration.file,
                    recorded: checksum.clone(),
                    current,
                });
            }
            report.already_applied += 1;
            continue;
        }
        apply_one(client, migration, &current).await?;
        tracing::info!(file = migration.file, "applied migration");
        report.applied.push(migration.file);
    }
    Ok(report)
}

async fn apply_one(
    client: &mut Client,
    migration: &Migration,
    checksum: &str,
) -> Result<(), MigrationError> {
    let failed = |error: tokio_postgres::Error| MigrationError::Failed {
        file: migration.file,
        reason: describe(&error, migration.sql),
    };
    let transaction = client.transaction().await.map_err(failed)?;
    transaction
        .batch_execute(migration.sql)
        .await
        .map_err(failed)?;
    transaction
        .execute(
            "INSERT INTO cielo.schema_migrations (version, file, checksum) VALUES ($1, $2, $3)",
            &[&migration.version, &migration.file, &checksum],
        )
        .await
        .map_err(failed)?;
    transaction.commit().await.map_err(failed)
}

/// Postgres' message with its detail, hint and the line of the file it points at.
fn describe(error: &tokio_postgres::Error, sql: &str) -> String {
    let Some(db) = error.as_db_error() else {
        return error.to_string();
    };
    let mut text = format!("{} (SQLSTATE {})", db.message(), db.code().code());
    if let Some(tokio_postgres::error::ErrorPosition::Original(position)) = db.position() {
        let line = sql
            .chars()
            .take(*position as usize)
            .filter(|c| *c == '\n')
            .count()
            + 1;
        text.push_str(&format!(" at line {line}"));
    }
    if let Some(detail) = db.detail() {
        text.push_str(&format!("\nDETAIL: {detail}"));
    }
    if let Some(hint) = db.hint() {
        text.push_str(&format!("\nHINT: {hint}"));
    }
    if let Some(context) = db.where_() {
        text.push_str(&format!("\nCONTEXT: {context}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_migrations_are_well_named_and_ordered() {
        let migrations = embedded();
        assert!(!migrations.is_empty());
        let mut previous = "";
        for migration in &migrations {
            assert!(
                migration.version.len() == 4
                    && migration.version.chars().all(|c| c.is_ascii_digit()),
                "{} must start with a four-digit version",
                migration.file
            );
            assert!(
                migration.file.ends_with(".sql")
                    && migration.file[5..migration.file.len() - 4]
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{} must be NNNN_snake_case.sql",
                migration.file
            );
            assert!(
                migration.version > previous,
                "{} is out of order or duplicated",
                migration.file
            );
            previous = migration.version;
        }
    }

    #[test]
    fn checksum_changes_with_content() {
        let a = Migration {
            file: "0001_a.sql",
            version: "0001",
            sql: "select 1",
        };
        let b = Migration {
            sql: "select 2",
            ..a.clone()
        };
        assert_ne!(a.checksum(), b.checksum());
        assert_eq!(a.checksum().len(), 64);
    }
}
