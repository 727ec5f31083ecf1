//! The user as stored in `auth.users` (GoTrue's columns) and as sent to clients.
//!
//! The JSON follows GoTrue's `models.User`: `email`/`phone` are `""` when unset,
//! timestamps and `new_email`/`new_phone` are left out when empty, `identities` is always
//! present, secrets (password hash, token hashes) never appear.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};
use tokio_postgres::Row;
use uuid::Uuid;

/// Columns of [`User::from_row`], for `SELECT … FROM auth.users u`.
pub const USER_COLUMNS: &str = "u.id, coalesce(u.aud, ''), coalesce(u.role, ''), u.email, \
    u.encrypted_password, u.email_confirmed_at, u.invited_at, coalesce(u.confirmation_token, ''), \
    u.confirmation_sent_at, coalesce(u.recovery_token, ''), u.recovery_sent_at, \
    coalesce(u.email_change_token_new, ''), coalesce(u.email_change, ''), u.email_change_sent_at, \
    coalesce(u.email_change_token_current, ''), coalesce(u.email_change_confirm_status, 0)::int, \
    u.last_sign_in_at, coalesce(u.raw_app_meta_data, '{}'), coalesce(u.raw_user_meta_data, '{}'), \
    coalesce(u.created_at, now()), coalesce(u.updated_at, now()), u.phone, u.phone_confirmed_at, \
    coalesce(u.phone_change, ''), u.phone_change_sent_at, u.confirmed_at, u.banned_until, \
    coalesce(u.reauthentication_token, ''), u.reauthentication_sent_at, u.is_sso_user, \
    u.deleted_at, u.is_anonymous, \
    (SELECT coalesce(json_agg(cielo.auth_identity_json(i) ORDER BY i.created_at, i.id), '[]') \
       FROM auth.identities i WHERE i.user_id = u.id), \
    (SELECT coalesce(jsonb_agg(cielo.auth_factor_json(f) ORDER BY f.created_at, f.id), '[]') \
       FROM auth.mfa_factors f WHERE f.user_id = u.id)";

#[derive(Debug, Clone)]
pub struct User {
    pub id: Uuid,
    pub aud: String,
    pub role: String,
    pub email: Option<String>,
    pub encrypted_password: Option<String>,
    pub email_confirmed_at: Option<DateTime<Utc>>,
    pub invited_at: Option<DateTime<Utc>>,
    pub confirmation_token: String,
    pub confirmation_sent_at: Option<DateTime<Utc>>,
    pub recovery_token: String,
    pub recovery_sent_at: Option<DateTime<Utc>>,
    pub email_change_token_new: String,
    pub email_change: String,
    pub email_change_sent_at: Option<DateTime<Utc>>,
    pub email_change_token_current: String,
    pub email_change_confirm_status: i32,
    pub last_sign_in_at: Option<DateTime<Utc>>,
    pub app_metadata: Value,
    pub user_metadata: Value,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub phone: Option<String>,
    pub phone_confirmed_at: Option<DateTime<Utc>>,
    pub phone_change: String,
    pub phone_change_sent_at: Option<DateTime<Utc>>,
    pub confirmed_at: Option<DateTime<Utc>>,
    pub banned_until: Option<DateTime<Utc>>,
    pub reauthentication_token: String,
    pub reauthentication_sent_at: Option<DateTime<Utc>>,
    pub is_sso_user: bool,
    pub deleted_at: Option<DateTime<Utc>>,
    pub is_anonymous: bool,
    /// Identities as JSON (GoTrue's identity shape, built by `cielo.auth_identity_json`).
    pub identities: Value,
    /// MFA factors as JSON (`cielo.auth_factor_json`).
    pub factors: Value,
}

impl User {
    /// Whether the user has a verified MFA factor (GoTrue's `HasMFAEnabled`).
    pub fn has_mfa_enabled(&self) -> bool {
        self.factors.as_array().is_some_and(|factors| {
            factors
                .iter()
                .any(|factor| factor.get("status").and_then(Value::as_str) == Some("verified"))
        })
    }

    /// Reads the columns of [`USER_COLUMNS`] starting at `offset`.
    pub fn from_row(row: &Row, offset: usize) -> Self {
        let at = |i: usize| offset + i;
        Self {
            id: row.get(at(0)),
            aud: row.get(at(1)),
            role: row.get(at(2)),
            email: row.get(at(3)),
            encrypted_password: row.get(at(4)),
            email_confirmed_at: row.get(at(5)),
            invited_at: row.get(at(6)),
            confirmation_token: row.get(at(7)),
            confirmation_sent_at: row.get(at(8)),
            recovery_token: row.get(at(9)),
            recovery_sent_at: row.get(at(10)),
            email_change_token_new: row.get(at(11)),
            email_change: row.get(at(12)),
            email_change_sent_at: row.get(at(13)),
            email_change_token_current: row.get(at(14)),
            email_change_confirm_status: row.get(at(15)),
            last_sign_in_at: row.get(at(16)),
            app_metadata: row.get(at(17)),
            user_metadata: row.get(at(18)),
            created_at: row.get(at(19)),
            updated_at: row.get(at(20)),
            phone: row.get(at(21)),
            phone_confirmed_at: row.get(at(22)),
            phone_change: row.get(at(23)),
            phone_change_sent_at: row.get(at(24)),
            confirmed_at: row.get(at(25)),
            banned_until: row.get(at(26)),
            reauthentication_token: row.get(at(27)),
            reauthentication_sent_at: row.get(at(28)),
            is_sso_user: row.get(at(29)),
            deleted_at: row.get(at(30)),
            is_anonymous: row.get(at(31)),
            identities: row.get(at(32)),
            factors: row.get(at(33)),
        }
    }

    pub fn email(&self) -> &str {
        self.email.as_deref().unwrap_or_default()
    }

    pub fn phone(&self) -> &str {
        self.phone.as_deref().unwrap_or_default()
    }

    pub fn is_confirmed(&self) -> bool {
        self.email_confirmed_at.is_some()
    }

    pub fn is_phone_confirmed(&self) -> bool {
        self.phone_confirmed_at.is_some()
    }

    pub fn has_password(&self) -> bool {
        self.encrypted_password
            .as_deref()
            .is_some_and(|hash| !hash.is_empty())
    }

    pub fn is_banned(&self, now: DateTime<Utc>) -> bool {
        self.banned_until.is_some_and(|until| now < until)
    }

    /// The user object of GoTrue's API.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("id".into(), json!(self.id));
        out.insert("aud".into(), json!(self.aud));
        out.insert("role".into(), json!(self.role));
        out.insert("email".into(), json!(self.email()));
        put_time(&mut out, "email_confirmed_at", self.email_confirmed_at);
        put_time(&mut out, "invited_at", self.invited_at);
        out.insert("phone".into(), json!(self.phone()));
        put_time(&mut out, "phone_confirmed_at", self.phone_confirmed_at);
        put_time(&mut out, "confirmation_sent_at", self.confirmation_sent_at);
        put_time(&mut out, "confirmed_at", self.confirmed_at);
        put_time(&mut out, "recovery_sent_at", self.recovery_sent_at);
        if !self.email_change.is_empty() {
            out.insert("new_email".into(), json!(self.email_change));
        }
        put_time(&mut out, "email_change_sent_at", self.email_change_sent_at);
        if !self.phone_change.is_empty() {
            out.insert("new_phone".into(), json!(self.phone_change));
        }
        put_time(&mut out, "phone_change_sent_at", self.phone_change_sent_at);
        put_time(
            &mut out,
            "reauthentication_sent_at",
            self.reauthentication_sent_at,
        );
        put_time(&mut out, "last_sign_in_at", self.last_sign_in_at);
        out.insert("app_metadata".into(), object_or_empty(&self.app_metadata));
        out.insert("user_metadata".into(), object_or_empty(&self.user_metadata));
        if let Value::Array(factors) = &self.factors
            && !factors.is_empty()
        {
            out.insert("factors".into(), Value::Array(factors.clone()));
        }
        out.insert(
            "identities".into(),
            match &self.identities {
                Value::Array(items) => Value::Array(items.clone()),
                _ => json!([]),
            },
        );
        out.insert("created_at".into(), json!(rfc3339(self.created_at)));
        out.insert("updated_at".into(), json!(rfc3339(self.updated_at)));
        put_time(&mut out, "banned_until", self.banned_until);
        put_time(&mut out, "deleted_at", self.deleted_at);
        out.insert("is_anonymous".into(), json!(self.is_anonymous));
        Value::Object(out)
    }

    /// GoTrue's sanitised copy for a repeated sign-up: looks like a fresh unconfirmed user
    /// (new id, no identities, the submitted data) so existence does not leak.
    pub fn obfuscated_json(&self, submitted_data: &Value, provider: &str) -> Value {
        let now = Utc::now();
        json!({
            "id": Uuid::new_v4(),
            "aud": self.aud,
            "role": "",
            "email": if provider == "email" { self.email() } else { "" },
            "phone": if provider == "phone" { self.phone() } else { "" },
            "confirmation_sent_at": rfc3339(now),
            "app_metadata": {"provider": provider, "providers": [provider]},
            "user_metadata": object_or_empty(submitted_data),
            "identities": [],
            "created_at": rfc3339(now),
            "updated_at": rfc3339(now),
            "is_anonymous": false,
        })
    }
}

/// Timestamps as Go's RFC 3339 (UTC, `Z`).
pub fn rfc3339(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

fn put_time(out: &mut Map<String, Value>, name: &str, value: Option<DateTime<Utc>>) {
    if let Some(value) = value {
        out.insert(name.to_owned(), json!(rfc3339(value)));
    }
}

fn object_or_empty(value: &Value) -> Value {
    match value {
        Value::Object(_) => value.clone(),
        _ => json!({}),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A confirmed e-mail user for unit tests.
    pub(crate) fn sample_user() -> User {
        user()
    }

    fn user() -> User {
        let t = DateTime::parse_from_rfc3339("2025-03-01T12:00:00.5Z")
            .unwrap()
            .with_timezone(&Utc);
        User {
            id: Uuid::nil(),
            aud: "authenticated".into(),
            role: "authenticated".into(),
            email: Some("ana@colegio.cl".into()),
            encrypted_password: Some("$2a$10$secret".into()),
            email_confirmed_at: Some(t),
            invited_at: None,
            confirmation_token: "hash".into(),
            confirmation_sent_at: None,
            recovery_token: String::new(),
            recovery_sent_at: None,
            email_change_token_new: String::new(),
            email_change: String::new(),
            email_change_sent_at: None,
            email_change_token_current: String::new(),
            email_change_confirm_status: 0,
            last_sign_in_at: None,
            app_metadata: json!({"provider": "email", "providers": ["email"]}),
            user_metadata: Value::Null,
            created_at: t,
            updated_at: t,
            phone: None,
            phone_confirmed_at: None,
            phone_change: String::new(),
            phone_change_sent_at: None,
            confirmed_at: Some(t),
            banned_until: None,
            reauthentication_token: String::new(),
            reauthentication_sent_at: None,
            is_sso_user: false,
            deleted_at: None,
            is_anonymous: false,
            identities: Value::Null,
            factors: Value::Null,
        }
    }

    #[test]
    fn json_follows_gotrues_user_object() {
        let json = user().to_json();
        assert_eq!(json["email"], "ana@colegio.cl");
        assert_eq!(json["phone"], "");
        assert_eq!(json["email_confirmed_at"], "2025-03-01T12:00:00.500Z");
        assert_eq!(json["user_metadata"], json!({}));
        assert_eq!(json["identities"], json!([]));
        assert_eq!(json["is_anonymous"], false);
        assert!(json.get("new_email").is_none());
        assert!(json.get("invited_at").is_none());
        assert!(json.get("encrypted_password").is_none());
        assert!(!json.to_string().contains("$2a$"));
        assert!(!json.to_string().contains("\"hash\""));
    }

    #[test]
    fn obfuscated_copy_hides_the_real_user() {
        let real = user();
        let json = real.obfuscated_json(&json!({"nombre": "Ana"}), "email");
        assert_ne!(json["id"], json!(real.id));
        assert_eq!(json["identities"], json!([]));
        assert_eq!(json["user_metadata"], json!({"nombre": "Ana"}));
        assert!(json.get("email_confirmed_at").is_none());
        assert_eq!(json["role"], "");
    }

    #[test]
    fn bans_expire() {
        let mut u = user();
        let now = Utc::now();
        assert!(!u.is_banned(now));
        u.banned_until = Some(now + chrono::Duration::hours(1));
        assert!(u.is_banned(now));
        u.banned_until = Some(now - chrono::Duration::hours(1));
        assert!(!u.is_banned(now));
    }
}
