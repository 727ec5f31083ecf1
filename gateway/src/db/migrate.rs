//! Ordered SQL migrations from `sql/migrations`, embedded in the binary at build time.
//!
//! Each file runs in its own transaction together with the row that records it in
//! `cielo.schema_migrations`, so a migration is either fully applied and recorded or not
//! at all. Running again is a no-op. An advisory lock serialises gateways starting at the
//! same time against one database. A recorded migration whose file has changed since is
//! refused: history must not be rewritten under a running deployment.
//!
//! Reference data too big to write as SQL (the official schools directory, the national
//! curriculum) lives in `sql/data/` as (gzip) CSV files, embedded next to the migrations. A
//! migration loads one with a line of its own:
//!
//! ```sql
//! --! copy pg_temp.school_directory FROM 'schools/directorio.csv.gz' WITH (FORMAT csv, HEADER true)
//! ```
//!
//! The runner turns that line into `COPY pg_temp.school_directory FROM STDIN WITH (…)` and
//! streams the file (decompressed when it ends in `.gz`) inside the migration's transaction.
//! For any other client (psql) the line is a comment. The data file's bytes are part of the
//! migration's checksum, so changing loaded data means writing a new migration.

use std::io::Read as _;

use bytes::Bytes;
use futures_util::SinkExt as _;
use sha2::{Digest, Sha256};
use tokio_postgres::{Client, Transaction};

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
    /// SHA-256 of the SQL text, and of the path and bytes of every data file it loads, in
    /// order. Migrations without data files keep the plain hash of their text.
    fn checksum(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.sql.as_bytes());
        if let Ok(steps) = steps(self.sql) {
            for step in steps {
                if let Step::Copy { file, .. } = step {
                    hasher.update(b"\0");
                    hasher.update(file.as_bytes());
                    hasher.update(b"\0");
                    hasher.update(data_file(file).unwrap_or_default());
                }
            }
        }
        hex::encode(hasher.finalize())
    }
}

/// The data files of `sql/data` compiled into this binary, by path relative to it.
pub fn data_files() -> &'static [(&'static str, &'static [u8])] {
    include!(concat!(env!("OUT_DIR"), "/data_files.rs"))
}

fn data_file(path: &str) -> Option<&'static [u8]> {
    data_files()
        .iter()
        .find(|(name, _)| *name == path)
        .map(|(_, bytes)| *bytes)
}

/// The line prefix of a data-loading directive.
const COPY_DIRECTIVE: &str = "--! copy ";

/// A part of a migration, run in order inside its transaction.
#[derive(Debug, PartialEq, Eq)]
enum Step<'a> {
    /// SQL text starting at `line` (1-based) of the file.
    Sql { text: &'a str, line: usize },
    /// `COPY … FROM STDIN …` fed with the data file `file` (path under `sql/data`).
    Copy {
        statement: String,
        file: &'a str,
        line: usize,
    },
}

/// Splits a migration at its `--! copy` lines.
fn steps(sql: &str) -> Result<Vec<Step<'_>>, String> {
    let mut steps = Vec::new();
    let mut chunk_start = 0;
    let mut chunk_line = 1;
    let mut offset = 0;
    for (index, line) in sql.split_inclusive('\n').enumerate() {
        let line_number = index + 1;
        if let Some(rest) = line.trim_start().strip_prefix(COPY_DIRECTIVE) {
            if chunk_start < offset {
                steps.push(Step::Sql {
                    text: &sql[chunk_start..offset],
                    line: chunk_line,
                });
            }
            let (statement, file) = parse_copy(rest.trim())
                .map_err(|reason| format!("line {line_number}: {reason}"))?;
            steps.push(Step::Copy {
                statement,
                file,
                line: line_number,
            });
            chunk_start = offset + line.len();
            chunk_line = line_number + 1;
        }
        offset += line.len();
    }
    if chunk_start < sql.len() {
        steps.push(Step::Sql {
            text: &sql[chunk_start..],
            line: chunk_line,
        });
    }
    Ok(steps)
}

/// `<target> FROM '<file>' [options]` → (`COPY <target> FROM STDIN [options]`, file).
fn parse_copy(directive: &str) -> Result<(String, &str), String> {
    let lower = directive.to_ascii_lowercase();
    let from = lower
        .find(" from '")
        .ok_or("expected `--! copy <table> FROM '<file>' [WITH (...)]`")?;
    let target = directive[..from].trim();
    let after = &directive[from + " from '".len()..];
    let end = after.find('\'').ok_or("unterminated file name")?;
    let file = &after[..end];
    let options = after[end + 1..].trim();
    if target.is_empty() || file.is_empty() {
        return Err("expected `--! copy <table> FROM '<file>' [WITH (...)]`".into());
    }
    if file.contains("..") || file.starts_with('/') {
        return Err(format!("{file}: data files are named relative to sql/data"));
    }
    let statement = if options.is_empty() {
        format!("COPY {target} FROM STDIN")
    } else {
        format!("COPY {target} FROM STDIN {options}")
    };
    Ok((statement, file))
}

/// The bytes to stream for `file`: decompressed when it is gzip.
fn copy_data(file: &str) -> Result<Vec<u8>, String> {
    let raw = data_file(file).ok_or_else(|| format!("data file {file} is not embedded"))?;
    if !file.ends_with(".gz") {
        return Ok(raw.to_vec());
    }
    let mut decoded = Vec::with_capacity(raw.len() * 6);
    flate2::read::GzDecoder::new(raw)
        .read_to_end(&mut decoded)
        .map_err(|error| format!("data file {file} is not valid gzip: {error}"))?;
    Ok(decoded)
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
    let steps = steps(migration.sql).map_err(|reason| MigrationError::Failed {
        file: migration.file,
        reason,
    })?;
    let transaction = client.transaction().await.map_err(failed)?;
    // Staging tables filled by COPY have no statistics yet, so the planner's guesses cross
    // jit_above_cost and JIT compilation takes longer than the load itself.
    transaction
        .batch_execute("SET LOCAL jit = off")
        .await
        .map_err(failed)?;
    for step in &steps {
        run_step(&transaction, step)
            .await
            .map_err(|reason| MigrationError::Failed {
                file: migration.file,
                reason,
            })?;
    }
    transaction
        .execute(
            "INSERT INTO cielo.schema_migrations (version, file, checksum) VALUES ($1, $2, $3)",
            &[&migration.version, &migration.file, &checksum],
        )
        .await
        .map_err(failed)?;
    transaction.commit().await.map_err(failed)
}

async fn run_step(transaction: &Transaction<'_>, step: &Step<'_>) -> Result<(), String> {
    match step {
        Step::Sql { text, line } => transaction
            .batch_execute(text)
            .await
            .map_err(|error| describe_at(&error, text, *line)),
        Step::Copy {
            statement,
            file,
            line,
        } => {
            let data = copy_data(file).map_err(|reason| format!("{reason} (line {line})"))?;
            let failed = |error: tokio_postgres::Error| {
                format!("loading {file} (line {line}): {}", describe(&error, ""))
            };
            let sink = transaction
                .copy_in(statement.as_str())
                .await
                .map_err(failed)?;
            futures_util::pin_mut!(sink);
            for chunk in data.chunks(256 * 1024) {
                sink.send(Bytes::copy_from_slice(chunk))
                    .await
                    .map_err(failed)?;
            }
            sink.finish().await.map_err(failed)?;
            Ok(())
        }
    }
}

/// Postgres' message with its detail, hint and the line of the file it points at (also used
/// for the demo seed).
pub(crate) fn describe(error: &tokio_postgres::Error, sql: &str) -> String {
    describe_at(error, sql, 1)
}

/// Like [`describe`], for SQL that starts at line `first_line` of its file.
fn describe_at(error: &tokio_postgres::Error, sql: &str, first_line: usize) -> String {
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
            + first_line;
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

    #[test]
    fn copy_directives_split_a_migration_into_steps() {
        let sql = "CREATE TEMP TABLE t (a int);\n\
                   --! copy pg_temp.t (a) FROM 'dir/t.csv.gz' WITH (FORMAT csv, HEADER true)\n\
                   INSERT INTO x SELECT a FROM t;\n";
        assert_eq!(
            steps(sql).unwrap(),
            vec![
                Step::Sql {
                    text: "CREATE TEMP TABLE t (a int);\n",
                    line: 1
                },
                Step::Copy {
                    statement: "COPY pg_temp.t (a) FROM STDIN WITH (FORMAT csv, HEADER true)"
                        .into(),
                    file: "dir/t.csv.gz",
                    line: 2
                },
                Step::Sql {
                    text: "INSERT INTO x SELECT a FROM t;\n",
                    line: 3
                },
            ]
        );
        assert_eq!(
            steps("SELECT 1;").unwrap(),
            vec![Step::Sql {
                text: "SELECT 1;",
                line: 1
            }]
        );
    }

    #[test]
    fn malformed_copy_directives_are_refused() {
        assert!(steps("--! copy t FROM STDIN\n").is_err());
        assert!(steps("--! copy t FROM 'unterminated\n").is_err());
        assert!(steps("--! copy t FROM '../etc/passwd'\n").is_err());
        assert!(steps("--! copy  FROM 'a.csv'\n").is_err());
        assert_eq!(
            steps("--! copy t from 'a.csv'").unwrap(),
            vec![Step::Copy {
                statement: "COPY t FROM STDIN".into(),
                file: "a.csv",
                line: 1
            }]
        );
    }

    #[test]
    fn every_loaded_data_file_is_embedded_and_readable() {
        for migration in embedded() {
            for step in steps(migration.sql).unwrap() {
                if let Step::Copy { file, .. } = step {
                    let data = copy_data(file)
                        .unwrap_or_else(|reason| panic!("{}: {reason}", migration.file));
                    assert!(!data.is_empty(), "{}: {file} is empty", migration.file);
                }
            }
        }
    }

    #[test]
    fn data_files_are_part_of_the_checksum() {
        let Some((file, _)) = data_files().first() else {
            return;
        };
        let sql: &'static str = Box::leak(format!("--! copy t FROM '{file}'\n").into_boxed_str());
        let with_data = Migration {
            file: "0001_a.sql",
            version: "0001",
            sql,
        };
        assert_ne!(
            with_data.checksum(),
            hex::encode(Sha256::digest(sql.as_bytes()))
        );
        // Migrations without data keep the plain hash of their text (as recorded before
        // data files existed).
        let plain = Migration {
            file: "0001_a.sql",
            version: "0001",
            sql: "select 1",
        };
        assert_eq!(plain.checksum(), hex::encode(Sha256::digest(b"select 1")));
    }
}
