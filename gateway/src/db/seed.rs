//! The demo seed: `sql/seed/demo.sql`, embedded in the binary and loaded by `cielo serve` when
//! `SEED_DEMO` is on (the default for local development), so `make run` opens on a ready demo.
//!
//! It runs once per database, in one transaction with the row that records it in
//! `cielo.seeds`; a transaction-level advisory lock keeps two gateways starting together from
//! both loading it. The accounts below are printed in the status block; their password is
//! public, which is why compose.yaml and every test harness turn the seed off.

use tokio_postgres::Client;

/// A demo account, as shown in the status block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoAccount {
    /// Label in the pretty status block (at most 16 characters, the block's label width).
    pub label: &'static str,
    /// Variable name in `cielo status -o env`.
    pub env_name: &'static str,
    pub email: &'static str,
}

/// The accounts `sql/seed/demo.sql` creates (same e-mails there).
pub const DEMO_ACCOUNTS: [DemoAccount; 3] = [
    DemoAccount {
        label: "Demo teacher",
        env_name: "DEMO_TEACHER_EMAIL",
        email: "docente.demo@cielo.test",
    },
    DemoAccount {
        label: "Demo admin",
        env_name: "DEMO_ADMIN_EMAIL",
        email: "admin.demo@cielo.test",
    },
    DemoAccount {
        label: "Demo creator",
        env_name: "DEMO_CREATOR_EMAIL",
        email: "contenido.demo@cielo.test",
    },
];

/// Password of every demo account (hashed with bcrypt by the seed).
pub const DEMO_PASSWORD: &str = "cielo-demo-2025";

const DEMO_SQL: &str = include!(concat!(env!("OUT_DIR"), "/demo_seed.rs"));

/// Name of the demo in `cielo.seeds`.
const DEMO_SEED: &str = "demo";

/// Key of the advisory lock held while seeding (any fixed number unique to Cielo).
const SEED_LOCK_KEY: i64 = 0x0C1E_1000_0002;

#[derive(Debug, thiserror::Error)]
#[error("could not load the demo (sql/seed/demo.sql): {0}")]
pub struct SeedError(String);

impl From<tokio_postgres::Error> for SeedError {
    fn from(error: tokio_postgres::Error) -> Self {
        Self(super::migrate::describe(&error, DEMO_SQL))
    }
}

/// Loads the demo unless this database already had it. Returns whether it was loaded now.
pub async fn apply_demo(client: &mut Client) -> Result<bool, SeedError> {
    let transaction = client.transaction().await?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&SEED_LOCK_KEY])
        .await?;
    let seeded = transaction
        .query_opt("SELECT 1 FROM cielo.seeds WHERE name = $1", &[&DEMO_SEED])
        .await?
        .is_some();
    if seeded {
        return Ok(false);
    }
    transaction
        .execute(
            "SELECT set_config('cielo.demo_password', $1, true)",
            &[&DEMO_PASSWORD],
        )
        .await?;
    transaction.batch_execute(DEMO_SQL).await?;
    transaction
        .execute("INSERT INTO cielo.seeds (name) VALUES ($1)", &[&DEMO_SEED])
        .await?;
    transaction.commit().await?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_demo_account_is_created_by_the_seed() {
        for account in DEMO_ACCOUNTS {
            assert!(
                DEMO_SQL.contains(&format!("'{}'", account.email)),
                "{} is not in sql/seed/demo.sql",
                account.email
            );
            assert!(account.label.len() <= 16, "{} is too long", account.label);
        }
    }
}
