//! The only auth/v1 code that writes SQL: users, identities, sessions, refresh tokens,
//! one-time tokens, PKCE flow states, AMR claims and the audit log, in GoTrue's tables.
//!
//! Every function runs inside the caller's transaction (one per request). Values are
//! always parameters; the few column names that vary come from [`Col`], never from input.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use deadpool_postgres::{GenericClient, Transaction};
use serde_json::{Value, json};
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use super::error::AuthResult;
use super::model::{USER_COLUMNS, User};

pub type Tx<'a> = Transaction<'a>;
type Param<'a> = &'a (dyn ToSql + Sync);

/// GoTrue writes the nil instance id on every row.
const INSTANCE_ID: Uuid = Uuid::nil();

/// Columns of `auth.users` that auth/v1 updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Col {
    EncryptedPassword,
    EmailConfirmedAt,
    ConfirmationToken,
    ConfirmationSentAt,
    RecoveryToken,
    RecoverySentAt,
    EmailChange,
    EmailChangeTokenNew,
    EmailChangeTokenCurrent,
    EmailChangeSentAt,
    EmailChangeConfirmStatus,
    ReauthenticationToken,
    ReauthenticationSentAt,
    LastSignInAt,
    AppMetaData,
    UserMetaData,
    Email,
    Phone,
    PhoneConfirmedAt,
    BannedUntil,
    Role,
    InvitedAt,
    IsAnonymous,
    DeletedAt,
}

impl Col {
    fn name(self) -> &'static str {
        match self {
            Col::EncryptedPassword => "encrypted_password",
            Col::EmailConfirmedAt => "email_confirmed_at",
            Col::ConfirmationToken => "confirmation_token",
            Col::ConfirmationSentAt => "confirmation_sent_at",
            Col::RecoveryToken => "recovery_token",
            Col::RecoverySentAt => "recovery_sent_at",
            Col::EmailChange => "email_change",
            Col::EmailChangeTokenNew => "email_change_token_new",
            Col::EmailChangeTokenCurrent => "email_change_token_current",
            Col::EmailChangeSentAt => "email_change_sent_at",
            Col::EmailChangeConfirmStatus => "email_change_confirm_status",
            Col::ReauthenticationToken => "reauthentication_token",
            Col::ReauthenticationSentAt => "reauthentication_sent_at",
            Col::LastSignInAt => "last_sign_in_at",
            Col::AppMetaData => "raw_app_meta_data",
            Col::UserMetaData => "raw_user_meta_data",
            Col::Email => "email",
            Col::Phone => "phone",
            Col::PhoneConfirmedAt => "phone_confirmed_at",
            Col::BannedUntil => "banned_until",
            Col::Role => "role",
            Col::InvitedAt => "invited_at",
            Col::IsAnonymous => "is_anonymous",
            Col::DeletedAt => "deleted_at",
        }
    }

    /// Type casts so untyped parameters (`None`) bind.
    fn cast(self) -> &'static str {
        match self {
            Col::EmailConfirmedAt
            | Col::ConfirmationSentAt
            | Col::RecoverySentAt
            | Col::EmailChangeSentAt
            | Col::ReauthenticationSentAt
            | Col::LastSignInAt
            | Col::PhoneConfirmedAt
            | Col::BannedUntil
            | Col::InvitedAt
            | Col::DeletedAt => "::timestamptz",
            Col::AppMetaData | Col::UserMetaData => "::jsonb",
            Col::EmailChangeConfirmStatus => "::int::smallint",
            Col::IsAnonymous => "::boolean",
            _ => "::text",
        }
    }
}

// ---------------------------------------------------------------------------------------
// Users

/// Reads run in the caller's transaction or, where nothing is written (the sign-in
/// lookup before hashing), on a plain connection.
async fn one_user(
    db: &impl GenericClient,
    filter: &str,
    params: &[Param<'_>],
) -> AuthResult<Option<User>> {
    one_user_with(db, filter, params, "").await
}

/// `one_user` with `lock` (e.g. `FOR UPDATE`) after the query.
async fn one_user_with(
    db: &impl GenericClient,
    filter: &str,
    params: &[Param<'_>],
    lock: &str,
) -> AuthResult<Option<User>> {
    let sql = format!("SELECT {USER_COLUMNS} FROM auth.users u WHERE {filter} LIMIT 1 {lock}");
    let statement = db.prepare_cached(&sql).await?;
    Ok(db
        .query_opt(&statement, params)
        .await?
        .map(|row| User::from_row(&row, 0)))
}

pub async fn user_by_id(tx: &Tx<'_>, id: Uuid) -> AuthResult<Option<User>> {
    one_user(tx, "u.id = $1", &[&id]).await
}

/// Locks the user row for the rest of the transaction.
pub async fn lock_user(tx: &Tx<'_>, id: Uuid) -> AuthResult<Option<User>> {
    let sql = format!("SELECT {USER_COLUMNS} FROM auth.users u WHERE u.id = $1 FOR UPDATE");
    let statement = tx.prepare_cached(&sql).await?;
    Ok(tx
        .query_opt(&statement, &[&id])
        .await?
        .map(|row| User::from_row(&row, 0)))
}

pub async fn user_by_email(
    db: &impl GenericClient,
    email: &str,
    aud: &str,
) -> AuthResult<Option<User>> {
    one_user(
        db,
        "lower(u.email) = lower($1) AND u.aud = $2 AND NOT u.is_sso_user",
        &[&email, &aud],
    )
    .await
}

pub async fn user_by_phone(
    db: &impl GenericClient,
    phone: &str,
    aud: &str,
) -> AuthResult<Option<User>> {
    one_user(
        db,
        "u.phone = $1 AND u.aud = $2 AND NOT u.is_sso_user",
        &[&phone, &aud],
    )
    .await
}

/// The token columns an e-mail link can match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenColumn {
    Confirmation,
    Recovery,
    ConfirmationOrRecovery,
    EmailChange,
}

/// The user whose stored token hash is `hash` (with or without the `pkce_` prefix), locked
/// for the rest of the transaction: a link is spent once. A request spending the same link
/// at the same time waits here, and then finds no row (PostgreSQL checks the filter again
/// on the row that request left, whose token is gone).
pub async fn user_by_token(
    tx: &Tx<'_>,
    column: TokenColumn,
    hash: &str,
) -> AuthResult<Option<User>> {
    let filter = match column {
        TokenColumn::Confirmation => "u.confirmation_token IN ($1::text, 'pkce_' || $1::text)",
        TokenColumn::Recovery => "u.recovery_token IN ($1::text, 'pkce_' || $1::text)",
        TokenColumn::ConfirmationOrRecovery => {
            "(u.confirmation_token IN ($1::text, 'pkce_' || $1::text) OR u.recovery_token IN ($1::text, 'pkce_' || $1::text))"
        }
        TokenColumn::EmailChange => {
            "(u.email_change_token_current IN ($1::text, 'pkce_' || $1::text) OR u.email_change_token_new IN ($1::text, 'pkce_' || $1::text))"
        }
    };
    if hash.is_empty() {
        return Ok(None);
    }
    one_user_with(tx, filter, &[&hash], "FOR UPDATE").await
}

/// A user being created.
#[derive(Debug, Clone)]
pub struct NewUser {
    pub id: Uuid,
    pub aud: String,
    pub role: String,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub password_hash: Option<String>,
    pub app_metadata: Value,
    pub user_metadata: Value,
    pub is_anonymous: bool,
}

/// Makes the transactions that create a user with `address` (an e-mail or a phone) run one
/// after the other: each checks the address is free and then writes it, and without the
/// lock two at once would both find it free (a double-clicked sign-up), where the second
/// must take the path of an existing user. Held until the transaction ends.
pub async fn lock_address(tx: &Tx<'_>, address: &str) -> AuthResult<()> {
    lock(tx, &format!("auth.address:{}", address.to_lowercase())).await
}

/// The same for the transactions that enroll a factor for `user_id` (name and count checks).
pub async fn lock_factors(tx: &Tx<'_>, user_id: Uuid) -> AuthResult<()> {
    lock(tx, &format!("auth.factors:{user_id}")).await
}

async fn lock(tx: &Tx<'_>, key: &str) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended($1, 0))",
        )
        .await?;
    tx.execute(&statement, &[&key]).await?;
    Ok(())
}

pub async fn insert_user(tx: &Tx<'_>, user: &NewUser) -> AuthResult<User> {
    let statement = tx
        .prepare_cached(
            "INSERT INTO auth.users (instance_id, id, aud, role, email, phone, encrypted_password,
                raw_app_meta_data, raw_user_meta_data, is_anonymous, created_at, updated_at,
                confirmation_token, recovery_token, email_change_token_new, email_change,
                email_change_token_current, phone_change, phone_change_token, reauthentication_token)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now(), now(), '', '', '', '', '', '', '', '')",
        )
        .await?;
    tx.execute(
        &statement,
        &[
            &INSTANCE_ID,
            &user.id,
            &user.aud,
            &user.role,
            &user.email,
            &user.phone,
            &user.password_hash.clone().unwrap_or_default(),
            &user.app_metadata,
            &user.user_metadata,
            &user.is_anonymous,
        ],
    )
    .await?;
    reload(tx, user.id).await
}

/// The user as stored now (after triggers and generated columns).
pub async fn reload(tx: &Tx<'_>, id: Uuid) -> AuthResult<User> {
    user_by_id(tx, id)
        .await?
        .ok_or_else(super::error::AuthError::user_gone)
}

/// Sets `columns` (and `updated_at`) of one user.
pub async fn update_user(tx: &Tx<'_>, id: Uuid, columns: &[(Col, Param<'_>)]) -> AuthResult<()> {
    if columns.is_empty() {
        return Ok(());
    }
    let assignments: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(index, (col, _))| format!("{} = ${}{}", col.name(), index + 2, col.cast()))
        .collect();
    let sql = format!(
        "UPDATE auth.users SET {}, updated_at = now() WHERE id = $1",
        assignments.join(", ")
    );
    let mut params: Vec<Param<'_>> = vec![&id];
    params.extend(columns.iter().map(|(_, value)| *value));
    let statement = tx.prepare_cached(&sql).await?;
    tx.execute(&statement, &params).await?;
    Ok(())
}

/// Merges `updates` into a metadata column: keys with `null` are removed, as GoTrue does.
pub async fn merge_metadata(tx: &Tx<'_>, id: Uuid, col: Col, updates: &Value) -> AuthResult<()> {
    let column = col.name();
    let sql = format!(
        "UPDATE auth.users SET {column} = (
             SELECT coalesce(jsonb_object_agg(key, value), '{{}}')
               FROM jsonb_each(coalesce({column}, '{{}}') || $2::jsonb)
              WHERE value <> 'null'::jsonb),
           updated_at = now()
         WHERE id = $1"
    );
    let statement = tx.prepare_cached(&sql).await?;
    tx.execute(&statement, &[&id, updates]).await?;
    Ok(())
}

/// Marks the e-mail confirmed: `email_confirmed_at`, `email_verified` in user metadata and
/// the e-mail identity, pending one-time tokens cleared (GoTrue's `user.Confirm`).
pub async fn confirm_email(tx: &Tx<'_>, id: Uuid) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "UPDATE auth.users
                SET email_confirmed_at = coalesce(email_confirmed_at, now()),
                    confirmation_token = '',
                    raw_user_meta_data = coalesce(raw_user_meta_data, '{}') || '{\"email_verified\": true}',
                    updated_at = now()
              WHERE id = $1",
        )
        .await?;
    tx.execute(&statement, &[&id]).await?;
    let statement = tx
        .prepare_cached(
            "UPDATE auth.identities i
                SET identity_data = i.identity_data || '{\"email_verified\": true}', updated_at = now()
               FROM auth.users u
              WHERE i.user_id = $1 AND u.id = i.user_id AND i.provider = 'email'
                AND lower(i.identity_data ->> 'email') = lower(u.email)",
        )
        .await?;
    tx.execute(&statement, &[&id]).await?;
    clear_one_time_tokens(tx, id).await
}

/// Recomputes `provider`/`providers` of app metadata from the identities.
pub async fn refresh_providers(tx: &Tx<'_>, id: Uuid) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "UPDATE auth.users u
                SET raw_app_meta_data = coalesce(u.raw_app_meta_data, '{}') || jsonb_build_object(
                      'provider', p.providers -> 0, 'providers', p.providers)
               FROM (SELECT jsonb_agg(DISTINCT provider) AS providers
                       FROM auth.identities WHERE user_id = $1) p
              WHERE u.id = $1 AND p.providers IS NOT NULL",
        )
        .await?;
    tx.execute(&statement, &[&id]).await?;
    Ok(())
}

pub async fn delete_user(tx: &Tx<'_>, id: Uuid) -> AuthResult<()> {
    let statement = tx
        .prepare_cached("DELETE FROM auth.users WHERE id = $1")
        .await?;
    tx.execute(&statement, &[&id]).await?;
    Ok(())
}

/// GoTrue's soft delete: e-mail, phone and identity ids obfuscated, secrets and metadata
/// removed, MFA factors deleted, sessions ended; the row stays with `deleted_at`.
pub async fn soft_delete_user(tx: &Tx<'_>, id: Uuid) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "UPDATE auth.users SET
                email = CASE WHEN email IS NULL THEN NULL ELSE
                  translate(encode(sha256(convert_to(id::text || email, 'UTF8')), 'base64'), '+/=', '-_') END,
                phone = CASE WHEN phone IS NULL THEN NULL ELSE
                  left(translate(encode(sha256(convert_to(id::text || phone, 'UTF8')), 'base64'), '+/=', '-_'), 15) END,
                email_change = '', phone_change = '', encrypted_password = '',
                confirmation_token = '', recovery_token = '', email_change_token_current = '',
                email_change_token_new = '', phone_change_token = '', reauthentication_token = '',
                raw_user_meta_data = '{}', raw_app_meta_data = '{}',
                deleted_at = now(), updated_at = now()
              WHERE id = $1",
        )
        .await?;
    tx.execute(&statement, &[&id]).await?;
    let statement = tx
        .prepare_cached(
            "UPDATE auth.identities SET identity_data = '{}',
                provider_id = translate(encode(sha256(convert_to(user_id::text || provider || ':' || provider_id, 'UTF8')), 'base64'), '+/=', '-_'),
                updated_at = now()
              WHERE user_id = $1",
        )
        .await?;
    tx.execute(&statement, &[&id]).await?;
    clear_one_time_tokens(tx, id).await?;
    let statement = tx
        .prepare_cached("DELETE FROM auth.mfa_factors WHERE user_id = $1")
        .await?;
    tx.execute(&statement, &[&id]).await?;
    delete_sessions(tx, id, None).await
}

/// A page of users (newest first) and the total.
pub async fn list_users(
    tx: &Tx<'_>,
    aud: &str,
    filter: Option<&str>,
    page: i64,
    per_page: i64,
) -> AuthResult<(Vec<User>, i64)> {
    let pattern = filter.map(|text| format!("%{text}%"));
    let where_clause = "u.aud = $1 AND ($2::text IS NULL OR u.email ILIKE $2 \
                        OR u.raw_user_meta_data ->> 'full_name' ILIKE $2)";
    let count_sql = format!("SELECT count(*) FROM auth.users u WHERE {where_clause}");
    let statement = tx.prepare_cached(&count_sql).await?;
    let total: i64 = tx.query_one(&statement, &[&aud, &pattern]).await?.get(0);
    let sql = format!(
        "SELECT {USER_COLUMNS} FROM auth.users u WHERE {where_clause}
          ORDER BY u.created_at DESC, u.id DESC LIMIT $3 OFFSET $4"
    );
    let statement = tx.prepare_cached(&sql).await?;
    let offset = (page - 1).max(0).saturating_mul(per_page);
    let rows = tx
        .query(&statement, &[&aud, &pattern, &per_page, &offset])
        .await?;
    Ok((
        rows.iter().map(|row| User::from_row(row, 0)).collect(),
        total,
    ))
}

// ---------------------------------------------------------------------------------------
// Identities

pub async fn insert_identity(
    tx: &Tx<'_>,
    user_id: Uuid,
    provider: &str,
    provider_id: &str,
    identity_data: &Value,
) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "INSERT INTO auth.identities (id, provider_id, user_id, identity_data, provider,
                 last_sign_in_at, created_at, updated_at)
             VALUES (gen_random_uuid(), $1, $2, $3, $4, now(), now(), now())
             ON CONFLICT (provider_id, provider) DO UPDATE
                SET identity_data = EXCLUDED.identity_data, updated_at = now()",
        )
        .await?;
    tx.execute(
        &statement,
        &[&provider_id, &user_id, identity_data, &provider],
    )
    .await?;
    Ok(())
}

/// Merges `updates` into the identity data of the user's `provider` identity; false when
/// the user has none.
pub async fn update_identity_data(
    tx: &Tx<'_>,
    user_id: Uuid,
    provider: &str,
    updates: &Value,
) -> AuthResult<bool> {
    let statement = tx
        .prepare_cached(
            "UPDATE auth.identities SET identity_data = identity_data || $3::jsonb, updated_at = now()
              WHERE user_id = $1 AND provider = $2",
        )
        .await?;
    Ok(tx
        .execute(&statement, &[&user_id, &provider, updates])
        .await?
        > 0)
}

/// Whether another account of `aud` already uses `email` (as user e-mail or identity).
pub async fn email_taken(
    tx: &Tx<'_>,
    email: &str,
    aud: &str,
    except: Option<Uuid>,
) -> AuthResult<bool> {
    let statement = tx
        .prepare_cached(
            "SELECT EXISTS (
               SELECT 1 FROM auth.users u
                WHERE u.aud = $2 AND ($3::uuid IS NULL OR u.id <> $3) AND NOT u.is_sso_user
                  AND (lower(u.email) = lower($1)
                       OR EXISTS (SELECT 1 FROM auth.identities i
                                   WHERE i.user_id = u.id AND i.email = lower($1))))",
        )
        .await?;
    Ok(tx
        .query_one(&statement, &[&email, &aud, &except])
        .await?
        .get(0))
}

// ---------------------------------------------------------------------------------------
// One-time tokens (GoTrue keeps them in the user row and in auth.one_time_tokens)

/// `auth.one_time_token_type` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OneTimeTokenType {
    Confirmation,
    Reauthentication,
    Recovery,
    EmailChangeNew,
    EmailChangeCurrent,
}

impl OneTimeTokenType {
    fn as_str(self) -> &'static str {
        match self {
            Self::Confirmation => "confirmation_token",
            Self::Reauthentication => "reauthentication_token",
            Self::Recovery => "recovery_token",
            Self::EmailChangeNew => "email_change_token_new",
            Self::EmailChangeCurrent => "email_change_token_current",
        }
    }
}

pub async fn put_one_time_token(
    tx: &Tx<'_>,
    user_id: Uuid,
    kind: OneTimeTokenType,
    token_hash: &str,
    relates_to: &str,
) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "INSERT INTO auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to,
                 created_at, updated_at)
             VALUES (gen_random_uuid(), $1, $2::text::auth.one_time_token_type, $3, $4, now(), now())
             ON CONFLICT (user_id, token_type) DO UPDATE
                SET token_hash = EXCLUDED.token_hash, relates_to = EXCLUDED.relates_to,
                    updated_at = now()",
        )
        .await?;
    tx.execute(
        &statement,
        &[&user_id, &kind.as_str(), &token_hash, &relates_to],
    )
    .await?;
    Ok(())
}

pub async fn clear_one_time_token(
    tx: &Tx<'_>,
    user_id: Uuid,
    kind: OneTimeTokenType,
) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "DELETE FROM auth.one_time_tokens WHERE user_id = $1 AND token_type = $2::text::auth.one_time_token_type",
        )
        .await?;
    tx.execute(&statement, &[&user_id, &kind.as_str()]).await?;
    Ok(())
}

pub async fn clear_one_time_tokens(tx: &Tx<'_>, user_id: Uuid) -> AuthResult<()> {
    let statement = tx
        .prepare_cached("DELETE FROM auth.one_time_tokens WHERE user_id = $1")
        .await?;
    tx.execute(&statement, &[&user_id]).await?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Sessions, refresh tokens, AMR claims

#[derive(Debug, Clone)]
pub struct Session {
    pub id: Uuid,
    pub user_id: Uuid,
    pub created_at: DateTime<Utc>,
    pub not_after: Option<DateTime<Utc>>,
    pub aal: String,
}

/// Signs a user in, as one statement: `last_sign_in_at`, a new `aal1` session `$2` with its
/// first refresh token (digest `$5`) and its AMR claim `$6`; answers the session's `amr`
/// and the user as updated. (`$1` user, `$3` address as `inet` text or NULL, `$4` agent.)
static START_SESSION_SQL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH u AS (
           UPDATE auth.users SET last_sign_in_at = now(), updated_at = now()
            WHERE id = $1 RETURNING *
         ), session AS (
           INSERT INTO auth.sessions (id, user_id, created_at, updated_at, aal, ip, user_agent)
           SELECT $2, u.id, now(), now(), 'aal1', $3::text::inet, $4 FROM u
           RETURNING id
         ), token AS (
           INSERT INTO auth.refresh_tokens
                  (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
           SELECT '{INSTANCE_ID}', $5, $1::text, false, now(), now(), NULL, session.id
             FROM session
         ), amr AS (
           INSERT INTO auth.mfa_amr_claims
                  (id, session_id, created_at, updated_at, authentication_method)
           SELECT gen_random_uuid(), session.id, now(), now(), $6 FROM session
           RETURNING authentication_method, updated_at
         )
         SELECT (SELECT json_agg(json_build_object(
                          'method', amr.authentication_method,
                          'timestamp', extract(epoch FROM amr.updated_at)::bigint))
                   FROM amr),
                {USER_COLUMNS}
           FROM u"
    )
});

/// Runs [`START_SESSION_SQL`]; `None` when the user does not exist (nothing is written).
pub async fn start_session(
    tx: &Tx<'_>,
    user_id: Uuid,
    session_id: Uuid,
    ip: Option<&str>,
    user_agent: Option<&str>,
    refresh_digest: &str,
    method: &str,
) -> AuthResult<Option<(User, Vec<Value>)>> {
    let statement = tx.prepare_cached(&START_SESSION_SQL).await?;
    let row = tx
        .query_opt(
            &statement,
            &[
                &user_id,
                &session_id,
                &ip,
                &user_agent,
                &refresh_digest,
                &method,
            ],
        )
        .await?;
    Ok(row.map(|row| {
        let amr = match row.get::<_, Option<Value>>(0) {
            Some(Value::Array(claims)) => claims,
            _ => Vec::new(),
        };
        (User::from_row(&row, 1), amr)
    }))
}

pub async fn session_by_id(tx: &Tx<'_>, id: Uuid) -> AuthResult<Option<Session>> {
    let statement = tx
        .prepare_cached(
            "SELECT id, user_id, coalesce(created_at, now()), not_after, coalesce(aal::text, 'aal1')
               FROM auth.sessions WHERE id = $1",
        )
        .await?;
    Ok(tx.query_opt(&statement, &[&id]).await?.map(|row| Session {
        id: row.get(0),
        user_id: row.get(1),
        created_at: row.get(2),
        not_after: row.get(3),
        aal: row.get(4),
    }))
}

/// Ends sessions of a user: all of them, or all but `keep`.
pub async fn delete_sessions(tx: &Tx<'_>, user_id: Uuid, keep: Option<Uuid>) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "DELETE FROM auth.sessions WHERE user_id = $1 AND ($2::uuid IS NULL OR id <> $2)",
        )
        .await?;
    tx.execute(&statement, &[&user_id, &keep]).await?;
    Ok(())
}

pub async fn delete_session(tx: &Tx<'_>, id: Uuid) -> AuthResult<()> {
    let statement = tx
        .prepare_cached("DELETE FROM auth.sessions WHERE id = $1")
        .await?;
    tx.execute(&statement, &[&id]).await?;
    Ok(())
}

pub async fn insert_refresh_token(
    tx: &Tx<'_>,
    user_id: Uuid,
    session_id: Uuid,
    digest: &str,
    parent: Option<&str>,
) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "INSERT INTO auth.refresh_tokens (instance_id, token, user_id, revoked, created_at,
                 updated_at, parent, session_id)
             VALUES ($1, $2, $3, false, now(), now(), $4, $5)",
        )
        .await?;
    tx.execute(
        &statement,
        &[
            &INSTANCE_ID,
            &digest,
            &user_id.to_string(),
            &parent,
            &session_id,
        ],
    )
    .await?;
    Ok(())
}

/// A refresh token row, locked for the transaction.
#[derive(Debug, Clone)]
pub struct RefreshTokenRow {
    pub id: i64,
    pub digest: String,
    pub revoked: bool,
    pub updated_at: DateTime<Utc>,
    pub session_id: Option<Uuid>,
    pub user_id: Option<Uuid>,
}

/// Finds and locks a refresh token by its digest, and first its session (which the caller
/// may end): the order of the transactions that end sessions, so a concurrent sign-out
/// cannot deadlock with it. `NOWAIT` so concurrent refreshes of the same token queue in
/// the caller's retry loop, not on pool connections.
pub async fn lock_refresh_token(tx: &Tx<'_>, digest: &str) -> AuthResult<LockResult> {
    let session = tx
        .prepare_cached(
            "SELECT 1 FROM auth.sessions
              WHERE id = (SELECT session_id FROM auth.refresh_tokens WHERE token = $1)
                FOR UPDATE NOWAIT",
        )
        .await?;
    let token = tx
        .prepare_cached(
            "SELECT id, token, coalesce(revoked, false), coalesce(updated_at, now()), session_id,
                    CASE WHEN user_id ~* '^[0-9a-f-]{36}$' THEN user_id::uuid END
               FROM auth.refresh_tokens WHERE token = $1 FOR UPDATE NOWAIT",
        )
        .await?;
    let locked = match tx.execute(&session, &[&digest]).await {
        Ok(_) => tx.query_opt(&token, &[&digest]).await,
        Err(error) => Err(error),
    };
    match locked {
        Ok(Some(row)) => Ok(LockResult::Found(RefreshTokenRow {
            id: row.get(0),
            digest: row.get(1),
            revoked: row.get(2),
            updated_at: row.get(3),
            session_id: row.get(4),
            user_id: row.get(5),
        })),
        Ok(None) => Ok(LockResult::NotFound),
        Err(error)
            if error.code() == Some(&tokio_postgres::error::SqlState::LOCK_NOT_AVAILABLE) =>
        {
            Ok(LockResult::Busy)
        }
        Err(error) => Err(error.into()),
    }
}

/// What [`rotate_refresh_token`] did.
#[derive(Debug, Clone)]
pub enum Rotation {
    /// Rotated and committed: the user, the session's id, `aal` and `amr` claims.
    Rotated {
        user: Box<User>,
        session_id: Uuid,
        aal: String,
        amr: Vec<Value>,
    },
    /// Not a live token of a live session (unknown, already rotated, expired session,
    /// banned user): nothing was written; the general grant decides the answer.
    NotLive,
}

/// The common refresh grant as one statement (parameters: presented digest, child digest,
/// client address as seen, client address as `inet` or NULL, user agent).
///
/// Revokes the live token `$1` — only if its session has not ended and its user is not
/// banned — stores `$2` as its child, writes GoTrue's two audit entries
/// (`token_revoked`, `token_refreshed`), touches the session, and answers the session's
/// `aal`, its `amr` claims and the user. A concurrent rotation of the same token makes it
/// wait and then find the token revoked: no row, like any token that is not live.
///
/// The session's row is locked before the token's (`locked`, read before the `UPDATE` can
/// produce its row), the order every transaction that ends sessions takes (the session,
/// then its tokens by the cascade); the other order deadlocked with a concurrent sign-out.
pub static ROTATE_REFRESH_TOKEN_SQL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "WITH locked AS (
           SELECT s.id, s.not_after, s.aal FROM auth.sessions s
            WHERE s.id = (SELECT p.session_id FROM auth.refresh_tokens p WHERE p.token = $1)
              FOR NO KEY UPDATE
         ), rotated AS (
           UPDATE auth.refresh_tokens t SET revoked = true, updated_at = now()
             FROM locked s, auth.users u
            WHERE t.token = $1 AND t.revoked IS NOT TRUE
              AND s.id = t.session_id AND (s.not_after IS NULL OR now() <= s.not_after)
              AND u.id = CASE WHEN t.user_id ~* '^[0-9a-f-]{{36}}$' THEN t.user_id::uuid END
              AND (u.banned_until IS NULL OR u.banned_until <= now())
           RETURNING t.session_id, u.id AS user_id, coalesce(s.aal::text, 'aal1') AS aal,
                     CASE WHEN coalesce(u.phone, '') <> '' THEN u.phone
                          ELSE coalesce(u.email, '') END AS actor
         ), child AS (
           INSERT INTO auth.refresh_tokens
                  (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
           SELECT '{INSTANCE_ID}', $2, r.user_id::text, false, now(), now(), $1, r.session_id
             FROM rotated r
         ), audit AS (
           INSERT INTO auth.audit_log_entries (instance_id, id, payload, created_at, ip_address)
           SELECT '{INSTANCE_ID}', gen_random_uuid(),
                  json_build_object('actor_id', r.user_id, 'actor_via_sso', false,
                                    'actor_username', r.actor, 'action', a.action,
                                    'log_type', 'token'),
                  now(), left($3, 64)
             FROM rotated r, unnest(ARRAY['token_revoked', 'token_refreshed']) AS a(action)
         ), touched AS (
           UPDATE auth.sessions s
              SET refreshed_at = now() AT TIME ZONE 'UTC', updated_at = now(),
                  ip = coalesce($4::text::inet, s.ip), user_agent = coalesce($5, s.user_agent)
             FROM rotated r WHERE s.id = r.session_id
         )
         SELECT r.session_id, r.aal,
                (SELECT coalesce(json_agg(json_build_object(
                                   'method', c.authentication_method,
                                   'timestamp', extract(epoch FROM c.updated_at)::bigint)
                                 ORDER BY c.updated_at DESC), '[]')
                   FROM auth.mfa_amr_claims c WHERE c.session_id = r.session_id),
                {USER_COLUMNS}
           FROM rotated r JOIN auth.users u ON u.id = r.user_id"
    )
});

/// Runs [`ROTATE_REFRESH_TOKEN_SQL`] as its own (autocommit) transaction.
pub async fn rotate_refresh_token(
    client: &deadpool_postgres::Client,
    presented_digest: &str,
    child_digest: &str,
    client_ip: &str,
    client_address: Option<&str>,
    client_user_agent: Option<&str>,
) -> AuthResult<Rotation> {
    let statement = client.prepare_cached(&ROTATE_REFRESH_TOKEN_SQL).await?;
    let params: [Param<'_>; 5] = [
        &presented_digest,
        &child_digest,
        &client_ip,
        &client_address,
        &client_user_agent,
    ];
    Ok(match client.query_opt(&statement, &params).await? {
        Some(row) => {
            let amr: Value = row.get(2);
            Rotation::Rotated {
                session_id: row.get(0),
                aal: row.get(1),
                amr: match amr {
                    Value::Array(claims) => claims,
                    _ => Vec::new(),
                },
                user: Box::new(User::from_row(&row, 3)),
            }
        }
        None => Rotation::NotLive,
    })
}

#[derive(Debug, Clone)]
pub enum LockResult {
    Found(RefreshTokenRow),
    NotFound,
    Busy,
}

/// The newest unrevoked refresh token of a session (its digest and its parent's).
pub async fn active_refresh_token(
    tx: &Tx<'_>,
    session_id: Uuid,
) -> AuthResult<Option<(String, Option<String>)>> {
    let statement = tx
        .prepare_cached(
            "SELECT token, parent FROM auth.refresh_tokens
              WHERE session_id = $1 AND revoked IS NOT TRUE ORDER BY id DESC LIMIT 1",
        )
        .await?;
    Ok(tx
        .query_opt(&statement, &[&session_id])
        .await?
        .map(|row| (row.get(0), row.get(1))))
}

pub async fn revoke_refresh_token(tx: &Tx<'_>, id: i64) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "UPDATE auth.refresh_tokens SET revoked = true, updated_at = now() WHERE id = $1",
        )
        .await?;
    tx.execute(&statement, &[&id]).await?;
    Ok(())
}

/// Records how the session was authenticated (one row per method, latest time kept).
pub async fn add_amr_claim(tx: &Tx<'_>, session_id: Uuid, method: &str) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "INSERT INTO auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method)
             VALUES (gen_random_uuid(), $1, now(), now(), $2)
             ON CONFLICT ON CONSTRAINT mfa_amr_claims_session_id_authentication_method_pkey
             DO UPDATE SET updated_at = now()",
        )
        .await?;
    tx.execute(&statement, &[&session_id, &method]).await?;
    Ok(())
}

/// The session's `amr` claim: newest first, `{method, timestamp}`.
pub async fn amr_claims(tx: &Tx<'_>, session_id: Uuid) -> AuthResult<Vec<Value>> {
    let statement = tx
        .prepare_cached(
            "SELECT authentication_method, extract(epoch FROM updated_at)::bigint
               FROM auth.mfa_amr_claims WHERE session_id = $1 ORDER BY updated_at DESC",
        )
        .await?;
    Ok(tx
        .query(&statement, &[&session_id])
        .await?
        .iter()
        .map(|row| json!({"method": row.get::<_, String>(0), "timestamp": row.get::<_, i64>(1)}))
        .collect())
}

/// Marks a session as refreshed (`refreshed_at`, client address and agent).
pub async fn touch_session(
    tx: &Tx<'_>,
    session_id: Uuid,
    ip: Option<&str>,
    user_agent: Option<&str>,
) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "UPDATE auth.sessions SET refreshed_at = now() AT TIME ZONE 'UTC', updated_at = now(),
                    ip = coalesce($2::text::inet, ip), user_agent = coalesce($3, user_agent)
              WHERE id = $1",
        )
        .await?;
    tx.execute(&statement, &[&session_id, &ip, &user_agent])
        .await?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// PKCE flow states

#[derive(Debug, Clone)]
pub struct FlowState {
    pub user_id: Option<Uuid>,
    pub code_challenge: String,
    pub code_challenge_method: String,
    pub authentication_method: String,
    pub created_at: DateTime<Utc>,
    pub auth_code_issued_at: Option<DateTime<Utc>>,
}

pub async fn insert_flow_state(
    tx: &Tx<'_>,
    user_id: Uuid,
    provider_type: &str,
    authentication_method: &str,
    code_challenge: &str,
    code_challenge_method: &str,
) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "INSERT INTO auth.flow_state (id, user_id, auth_code, code_challenge_method,
                 code_challenge, provider_type, created_at, updated_at, authentication_method)
             VALUES (gen_random_uuid(), $1, gen_random_uuid()::text,
                     $2::text::auth.code_challenge_method, $3, $4, now(), now(), $5)",
        )
        .await?;
    tx.execute(
        &statement,
        &[
            &user_id,
            &code_challenge_method,
            &code_challenge,
            &provider_type,
            &authentication_method,
        ],
    )
    .await?;
    Ok(())
}

/// The newest flow state of a user for an authentication method; stamps
/// `auth_code_issued_at` and returns its auth code.
pub async fn issue_auth_code(
    tx: &Tx<'_>,
    user_id: Uuid,
    authentication_method: &str,
) -> AuthResult<Option<String>> {
    let statement = tx
        .prepare_cached(
            "UPDATE auth.flow_state SET auth_code_issued_at = now(), updated_at = now()
              WHERE id = (SELECT id FROM auth.flow_state
                           WHERE user_id = $1 AND authentication_method = $2
                             AND code_challenge IS NOT NULL AND code_challenge <> ''
                           ORDER BY created_at DESC LIMIT 1)
              RETURNING auth_code",
        )
        .await?;
    Ok(tx
        .query_opt(&statement, &[&user_id, &authentication_method])
        .await?
        .map(|row| row.get(0)))
}

/// Takes the flow state of an auth code out of the table (one use only).
pub async fn take_flow_state(tx: &Tx<'_>, auth_code: &str) -> AuthResult<Option<FlowState>> {
    let statement = tx
        .prepare_cached(
            "DELETE FROM auth.flow_state WHERE id = (
                 SELECT id FROM auth.flow_state WHERE auth_code = $1 FOR UPDATE SKIP LOCKED LIMIT 1)
             RETURNING user_id, coalesce(code_challenge, ''),
                       coalesce(code_challenge_method::text, ''), authentication_method,
                       coalesce(created_at, now()), auth_code_issued_at",
        )
        .await?;
    Ok(tx
        .query_opt(&statement, &[&auth_code])
        .await?
        .map(|row| FlowState {
            user_id: row.get(0),
            code_challenge: row.get(1),
            code_challenge_method: row.get(2),
            authentication_method: row.get(3),
            created_at: row.get(4),
            auth_code_issued_at: row.get(5),
        }))
}

// ---------------------------------------------------------------------------------------
// Audit log

/// One `auth.audit_log_entries` row, with GoTrue's payload.
#[derive(Debug, Clone)]
pub struct AuditEntry<'a> {
    pub actor_id: Uuid,
    pub actor_username: &'a str,
    pub action: &'static str,
    pub traits: Option<Value>,
    pub ip: &'a str,
}

pub async fn audit(tx: &Tx<'_>, entry: AuditEntry<'_>) -> AuthResult<()> {
    let log_type = match entry.action {
        "login" | "logout" | "invite_accepted" => "account",
        "user_signedup" | "user_invited" | "user_deleted" => "team",
        "token_revoked" | "token_refreshed" => "token",
        _ => "user",
    };
    let mut payload = json!({
        "actor_id": entry.actor_id,
        "actor_via_sso": false,
        "actor_username": entry.actor_username,
        "action": entry.action,
        "log_type": log_type,
    });
    if let Some(traits) = entry.traits {
        payload["traits"] = traits;
    }
    let statement = tx
        .prepare_cached(
            "INSERT INTO auth.audit_log_entries (instance_id, id, payload, created_at, ip_address)
             VALUES ($1, gen_random_uuid(), $2::jsonb::json, now(), $3)",
        )
        .await?;
    let ip: String = entry.ip.chars().take(64).collect();
    tx.execute(&statement, &[&INSTANCE_ID, &payload, &ip])
        .await?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// MFA factors and challenges

/// A factor row (`auth.mfa_factors`).
#[derive(Debug, Clone)]
pub struct Factor {
    pub id: Uuid,
    pub friendly_name: String,
    pub factor_type: String,
    pub status: String,
    /// The TOTP secret (base32), as stored.
    pub secret: String,
    /// The factor as GoTrue's API shows it (`cielo.auth_factor_json`).
    pub json: Value,
}

impl Factor {
    pub fn is_verified(&self) -> bool {
        self.status == "verified"
    }
}

const FACTOR_COLUMNS: &str = "f.id, coalesce(f.friendly_name, ''), f.factor_type::text, \
    f.status::text, coalesce(f.secret, ''), cielo.auth_factor_json(f)";

fn factor_from_row(row: &tokio_postgres::Row) -> Factor {
    Factor {
        id: row.get(0),
        friendly_name: row.get(1),
        factor_type: row.get(2),
        status: row.get(3),
        secret: row.get(4),
        json: row.get(5),
    }
}

/// The user's factors, oldest first.
pub async fn factors(tx: &Tx<'_>, user_id: Uuid) -> AuthResult<Vec<Factor>> {
    let sql = format!(
        "SELECT {FACTOR_COLUMNS} FROM auth.mfa_factors f WHERE f.user_id = $1
          ORDER BY f.created_at, f.id"
    );
    let statement = tx.prepare_cached(&sql).await?;
    Ok(tx
        .query(&statement, &[&user_id])
        .await?
        .iter()
        .map(factor_from_row)
        .collect())
}

/// One factor of the user, locked for the transaction (GoTrue's `FindOwnedFactorByID`).
pub async fn owned_factor(tx: &Tx<'_>, user_id: Uuid, id: Uuid) -> AuthResult<Option<Factor>> {
    let sql = format!(
        "SELECT {FACTOR_COLUMNS} FROM auth.mfa_factors f WHERE f.user_id = $1 AND f.id = $2
            FOR UPDATE"
    );
    let statement = tx.prepare_cached(&sql).await?;
    Ok(tx
        .query_opt(&statement, &[&user_id, &id])
        .await?
        .map(|row| factor_from_row(&row)))
}

/// A new unverified TOTP factor.
pub async fn insert_totp_factor(
    tx: &Tx<'_>,
    id: Uuid,
    user_id: Uuid,
    friendly_name: &str,
    secret: &str,
) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status,
                 created_at, updated_at, secret)
             VALUES ($1, $2, $3, 'totp', 'unverified', now(), now(), $4)",
        )
        .await?;
    tx.execute(&statement, &[&id, &user_id, &friendly_name, &secret])
        .await?;
    Ok(())
}

/// Deletes a factor and downgrades the sessions it raised to `aal1` (their AMR claim of
/// that factor's method goes too), as GoTrue's `DowngradeSessionsToAAL1`. Each session's
/// row is locked before its claims, the order of the transactions that end sessions (the
/// session, then what the cascade deletes); the other order deadlocked with a refresh
/// ending a session.
pub async fn delete_factor(tx: &Tx<'_>, user_id: Uuid, factor: &Factor) -> AuthResult<()> {
    let method = match factor.factor_type.as_str() {
        "phone" => "mfa/phone",
        "webauthn" => "mfa/webauthn",
        _ => "totp",
    };
    let statement = tx
        .prepare_cached("DELETE FROM auth.mfa_factors WHERE id = $1")
        .await?;
    tx.execute(&statement, &[&factor.id]).await?;
    let statement = tx
        .prepare_cached(
            "WITH downgraded AS (
               UPDATE auth.sessions SET aal = 'aal1', factor_id = NULL
                WHERE user_id = $1 AND factor_id = $2
               RETURNING id
             )
             DELETE FROM auth.mfa_amr_claims c USING downgraded d
              WHERE c.session_id = d.id AND c.authentication_method = $3",
        )
        .await?;
    tx.execute(&statement, &[&user_id, &factor.id, &method])
        .await?;
    Ok(())
}

/// Abandoned enrollments: unverified factors never challenged and older than `age`, of
/// every user (GoTrue's `DeleteExpiredFactors`).
pub async fn delete_expired_factors(tx: &Tx<'_>, age: std::time::Duration) -> AuthResult<()> {
    let seconds = age.as_secs_f64();
    let statement = tx
        .prepare_cached(
            "DELETE FROM auth.mfa_factors f WHERE f.status <> 'verified'
                AND NOT EXISTS (SELECT 1 FROM auth.mfa_challenges c WHERE c.factor_id = f.id)
                AND f.created_at + make_interval(secs => $1) < now()",
        )
        .await?;
    tx.execute(&statement, &[&seconds]).await?;
    Ok(())
}

/// The user's other unverified factors of a type, once one is verified.
pub async fn delete_unverified_factors(
    tx: &Tx<'_>,
    user_id: Uuid,
    factor_type: &str,
) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "DELETE FROM auth.mfa_factors WHERE user_id = $1 AND status = 'unverified'
                AND factor_type = $2::text::auth.factor_type",
        )
        .await?;
    tx.execute(&statement, &[&user_id, &factor_type]).await?;
    Ok(())
}

/// Stores the factor's secret again (encrypted under the current key).
/// Renames a factor; the factor as it is now.
pub async fn rename_factor(tx: &Tx<'_>, id: Uuid, friendly_name: &str) -> AuthResult<Factor> {
    let sql = format!(
        "UPDATE auth.mfa_factors f SET friendly_name = $2, updated_at = now() WHERE f.id = $1
         RETURNING {FACTOR_COLUMNS}"
    );
    let statement = tx.prepare_cached(&sql).await?;
    Ok(factor_from_row(
        &tx.query_one(&statement, &[&id, &friendly_name]).await?,
    ))
}

pub async fn set_factor_secret(tx: &Tx<'_>, id: Uuid, secret: &str) -> AuthResult<()> {
    let statement = tx
        .prepare_cached("UPDATE auth.mfa_factors SET secret = $2 WHERE id = $1")
        .await?;
    tx.execute(&statement, &[&id, &secret]).await?;
    Ok(())
}

pub async fn set_factor_verified(tx: &Tx<'_>, id: Uuid) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "UPDATE auth.mfa_factors SET status = 'verified', updated_at = now() WHERE id = $1",
        )
        .await?;
    tx.execute(&statement, &[&id]).await?;
    Ok(())
}

/// A new challenge of the factor from `ip`; the factor's `last_challenged_at` moves on.
/// Returns the challenge id and creation time.
pub async fn insert_challenge(
    tx: &Tx<'_>,
    factor_id: Uuid,
    ip: &str,
) -> AuthResult<(Uuid, DateTime<Utc>)> {
    let id = Uuid::new_v4();
    let statement = tx
        .prepare_cached(
            "INSERT INTO auth.mfa_challenges (id, factor_id, created_at, ip_address)
             VALUES ($1, $2, now(), $3::text::inet) RETURNING created_at",
        )
        .await?;
    let created_at = tx
        .query_one(&statement, &[&id, &factor_id, &ip])
        .await?
        .get(0);
    // `last_challenged_at` is unique in GoTrue's schema: the statement's own clock.
    let statement = tx
        .prepare_cached(
            "UPDATE auth.mfa_factors SET last_challenged_at = clock_timestamp() WHERE id = $1",
        )
        .await?;
    tx.execute(&statement, &[&factor_id]).await?;
    Ok((id, created_at))
}

/// A challenge row (`auth.mfa_challenges`).
#[derive(Debug, Clone)]
pub struct Challenge {
    pub id: Uuid,
    pub created_at: DateTime<Utc>,
    pub verified: bool,
    /// The address the challenge was created from.
    pub ip: String,
}

/// A challenge of the factor, locked for the transaction.
pub async fn challenge(tx: &Tx<'_>, factor_id: Uuid, id: Uuid) -> AuthResult<Option<Challenge>> {
    let statement = tx
        .prepare_cached(
            "SELECT id, created_at, verified_at IS NOT NULL, host(ip_address)
               FROM auth.mfa_challenges WHERE id = $1 AND factor_id = $2 FOR UPDATE",
        )
        .await?;
    Ok(tx
        .query_opt(&statement, &[&id, &factor_id])
        .await?
        .map(|row| Challenge {
            id: row.get(0),
            created_at: row.get(1),
            verified: row.get(2),
            ip: row.get(3),
        }))
}

pub async fn delete_challenge(tx: &Tx<'_>, id: Uuid) -> AuthResult<()> {
    let statement = tx
        .prepare_cached("DELETE FROM auth.mfa_challenges WHERE id = $1")
        .await?;
    tx.execute(&statement, &[&id]).await?;
    Ok(())
}

/// Marks the challenge used.
pub async fn verify_challenge(tx: &Tx<'_>, id: Uuid) -> AuthResult<()> {
    let statement = tx
        .prepare_cached("UPDATE auth.mfa_challenges SET verified_at = now() WHERE id = $1")
        .await?;
    tx.execute(&statement, &[&id]).await?;
    Ok(())
}

/// Sets the session's assurance level and the factor that raised it.
pub async fn set_session_aal(
    tx: &Tx<'_>,
    session_id: Uuid,
    aal: &str,
    factor_id: Option<Uuid>,
) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "UPDATE auth.sessions SET aal = $2::text::auth.aal_level, factor_id = $3,
                    updated_at = now()
              WHERE id = $1",
        )
        .await?;
    tx.execute(&statement, &[&session_id, &aal, &factor_id])
        .await?;
    Ok(())
}

/// Revokes every refresh token of the session that is still valid.
pub async fn revoke_session_tokens(tx: &Tx<'_>, session_id: Uuid) -> AuthResult<()> {
    let statement = tx
        .prepare_cached(
            "UPDATE auth.refresh_tokens SET revoked = true, updated_at = now()
              WHERE session_id = $1 AND revoked IS NOT TRUE",
        )
        .await?;
    tx.execute(&statement, &[&session_id]).await?;
    Ok(())
}

/// Ends the user's sessions below `aal2` (GoTrue's `InvalidateSessionsWithAALLessThan`).
pub async fn delete_sessions_below_aal2(tx: &Tx<'_>, user_id: Uuid) -> AuthResult<()> {
    let statement = tx
        .prepare_cached("DELETE FROM auth.sessions WHERE user_id = $1 AND aal < 'aal2'")
        .await?;
    tx.execute(&statement, &[&user_id]).await?;
    Ok(())
}
