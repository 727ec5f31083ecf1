//! Realtime Authorization as Supabase Realtime evaluates it: RLS policies on
//! `realtime.messages`, run as the channel's token (its role, `request.jwt.claims` and
//! `realtime.topic()` set for the transaction). Read: probe rows are inserted (by the owner,
//! past RLS) and the token's role is asked whether it can see them. Write: the token's role
//! inserts a row. Both transactions are rolled back, so nothing stays and nothing is
//! announced.

use deadpool_postgres::Pool;
use realtime::{Claims, Policies, PolicyFuture, ReadAccess};

/// The roles a token may act as here (the owner could switch to any role).
pub(crate) const API_ROLES: [&str; 3] = ["anon", "authenticated", "service_role"];

#[derive(Clone)]
pub struct DatabasePolicies {
    owner: Pool,
}

impl std::fmt::Debug for DatabasePolicies {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("DatabasePolicies")
            .finish_non_exhaustive()
    }
}

impl DatabasePolicies {
    pub fn new(owner: Pool) -> Self {
        Self { owner }
    }
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// Sets the transaction's role, claims and topic as the token's.
async fn act_as(
    transaction: &deadpool_postgres::Transaction<'_>,
    topic: &str,
    claims: &Claims,
) -> Result<(), Failure> {
    if !API_ROLES.contains(&claims.role.as_str()) {
        return Err(format!("role {} may not use realtime", claims.role).into());
    }
    transaction
        .execute(
            "SELECT set_config('request.jwt.claims', $1, true), \
                    set_config('request.jwt.claim.sub', coalesce($2, ''), true), \
                    set_config('request.jwt.claim.role', $3, true), \
                    set_config('realtime.topic', $4, true), \
                    set_config('role', $3, true)",
            &[
                &claims.all.to_string(),
                &claims.all.get("sub").and_then(|sub| sub.as_str()),
                &claims.role,
                &topic,
            ],
        )
        .await?;
    Ok(())
}

async fn read(owner: &Pool, topic: &str, claims: &Claims) -> Result<ReadAccess, Failure> {
    let mut client = owner.get().await?;
    let transaction = client.transaction().await?;
    let probes = transaction
        .query(
            "INSERT INTO realtime.messages (topic, extension) \
             VALUES ($1, 'broadcast'), ($1, 'presence') RETURNING id::text, extension",
            &[&topic],
        )
        .await?;
    act_as(&transaction, topic, claims).await?;
    let ids: Vec<String> = probes.iter().map(|row| row.get(0)).collect();
    let visible = transaction
        .query(
            "SELECT extension FROM realtime.messages WHERE id = ANY($1::text[]::uuid[])",
            &[&ids],
        )
        .await?;
    let can = |extension: &str| {
        visible
            .iter()
            .any(|row| row.get::<_, String>(0) == extension)
    };
    let access = ReadAccess {
        broadcast: can("broadcast"),
        presence: can("presence"),
    };
    transaction.rollback().await?;
    Ok(access)
}

async fn write(
    owner: &Pool,
    topic: &str,
    claims: &Claims,
    extension: &str,
) -> Result<bool, Failure> {
    let mut client = owner.get().await?;
    let transaction = client.transaction().await?;
    act_as(&transaction, topic, claims).await?;
    let inserted = transaction
        .execute(
            "INSERT INTO realtime.messages (topic, extension) VALUES ($1, $2)",
            &[&topic, &extension],
        )
        .await;
    let allowed = match inserted {
        Ok(_) => true,
        Err(error)
            if error.code() == Some(&tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE) =>
        {
            false
        }
        Err(error) => return Err(error.into()),
    };
    transaction.rollback().await?;
    Ok(allowed)
}

impl Policies for DatabasePolicies {
    fn read<'a>(
        &'a self,
        topic: &'a str,
        claims: &'a Claims,
    ) -> PolicyFuture<'a, Result<ReadAccess, String>> {
        Box::pin(async move {
            read(&self.owner, topic, claims).await.map_err(|error| {
                tracing::warn!(%error, topic, "realtime read policy check failed");
                error.to_string()
            })
        })
    }

    fn write<'a>(
        &'a self,
        topic: &'a str,
        claims: &'a Claims,
        extension: &'a str,
    ) -> PolicyFuture<'a, Result<bool, String>> {
        Box::pin(async move {
            write(&self.owner, topic, claims, extension)
                .await
                .map_err(|error| {
                    tracing::warn!(%error, topic, "realtime write policy check failed");
                    error.to_string()
                })
        })
    }
}
