//! [`AuthSettings`] from GoTrue's variables, one function per concern: token claims and
//! sign-up are plain values read in [`parse_auth`]; passwords, mail, rate limits, MFA and
//! encryption at rest each have their own function.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use url::Url;

use super::variables::{self as var, Variable};
use super::{
    AuthRateLimits, AuthSettings, ConfigError, DbEncryption, MailerTemplates, MailerUrlPaths,
    MfaSettings, Vars, split_list,
};

/// Where e-mail links go unless `MAILER_URLPATHS_*` says otherwise.
const VERIFY_PATH: &str = "/auth/v1/verify";

pub(super) fn parse_auth(vars: &Vars<'_>, external_url: &Url) -> Result<AuthSettings, ConfigError> {
    let api_root = external_url.as_str().trim_end_matches('/');
    // Read in this order so that, of several bad values, the same one is reported first.
    let otp_length = otp_length(vars)?;
    let templates = mail_templates(vars);
    let password_required_characters = password_required_characters(vars);
    let db_encryption = db_encryption(vars)?;
    Ok(AuthSettings {
        db_encryption,
        jwt_issuer: vars
            .get(&var::JWT_ISSUER)
            .unwrap_or_else(|| format!("{api_root}/auth/v1")),
        jwt_aud: vars
            .get(&var::JWT_AUD)
            .unwrap_or_else(|| "authenticated".into()),
        default_role: vars
            .get(&var::JWT_DEFAULT_GROUP_NAME)
            .unwrap_or_else(|| "authenticated".into()),
        admin_roles: vars
            .get(&var::JWT_ADMIN_ROLES)
            .map(|raw| split_list(&raw))
            .unwrap_or_else(|| vec!["service_role".into(), "supabase_admin".into()]),
        disable_signup: vars.flag(&var::DISABLE_SIGNUP)?,
        email_enabled: vars.flag_or(&var::ENABLE_EMAIL_SIGNUP, true)?,
        autoconfirm: vars.flag(&var::ENABLE_EMAIL_AUTOCONFIRM)?,
        anonymous_enabled: vars.flag(&var::ENABLE_ANONYMOUS_USERS)?,
        phone_enabled: vars.flag(&var::ENABLE_PHONE_SIGNUP)?,
        phone_autoconfirm: vars.flag(&var::ENABLE_PHONE_AUTOCONFIRM)?,
        password_min_length: vars.parse::<u64>(&var::PASSWORD_MIN_LENGTH, 6)?.max(6) as usize,
        password_required_characters,
        secure_password_change: vars
            .flag(&var::SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION)?,
        require_current_password: vars
            .flag(&var::SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD)?,
        secure_email_change: vars.flag_or(&var::MAILER_SECURE_EMAIL_CHANGE_ENABLED, true)?,
        refresh_token_rotation: vars
            .flag_or(&var::SECURITY_REFRESH_TOKEN_ROTATION_ENABLED, true)?,
        refresh_token_reuse_interval: seconds(
            vars,
            &var::SECURITY_REFRESH_TOKEN_REUSE_INTERVAL,
            10,
        )?,
        otp_expiry: seconds(vars, &var::MAILER_OTP_EXP, 3600)?,
        otp_length,
        max_frequency: vars.duration(&var::SMTP_MAX_FREQUENCY, Duration::from_secs(60))?,
        flow_state_expiry: vars
            .duration(
                &var::EXTERNAL_FLOW_STATE_EXPIRY_DURATION,
                Duration::from_secs(300),
            )?
            .max(Duration::from_secs(300)),
        url_paths: MailerUrlPaths {
            confirmation: url_path(vars, &var::MAILER_URLPATHS_CONFIRMATION),
            invite: url_path(vars, &var::MAILER_URLPATHS_INVITE),
            recovery: url_path(vars, &var::MAILER_URLPATHS_RECOVERY),
            email_change: url_path(vars, &var::MAILER_URLPATHS_EMAIL_CHANGE),
        },
        templates,
        rate_limits: rate_limits(vars)?,
        mfa: mfa(vars)?,
        hash_concurrency: match vars.parse::<u64>(&var::AUTH_HASH_CONCURRENCY, 0)? {
            0 => std::thread::available_parallelism().map_or(2, usize::from),
            n => n as usize,
        },
    })
}

/// A whole number of seconds.
fn seconds(vars: &Vars<'_>, variable: &Variable, default: u64) -> Result<Duration, ConfigError> {
    Ok(Duration::from_secs(vars.parse(variable, default)?))
}

fn url_path(vars: &Vars<'_>, variable: &Variable) -> String {
    vars.get(variable).unwrap_or_else(|| VERIFY_PATH.into())
}

/// Digits of mailed codes: 6 to 10, as GoTrue allows.
fn otp_length(vars: &Vars<'_>) -> Result<usize, ConfigError> {
    let length = vars.parse::<u64>(&var::MAILER_OTP_LENGTH, 6)?;
    if !(6..=10).contains(&length) {
        return Err(ConfigError {
            name: var::MAILER_OTP_LENGTH.name(),
            reason: "must be between 6 and 10".into(),
        });
    }
    Ok(length as usize)
}

/// Subjects and template files that replace the built-in mails.
fn mail_templates(vars: &Vars<'_>) -> MailerTemplates {
    let mut templates = MailerTemplates {
        dir: vars.get(&var::MAILER_TEMPLATES_DIR).map(PathBuf::from),
        ..MailerTemplates::default()
    };
    for (name, subject, file) in var::MAIL_TEMPLATE_VARIABLES {
        if let Some(subject) = vars.get(subject) {
            templates.subjects.push((name.to_owned(), subject));
        }
        if let Some(file) = vars.get(file) {
            templates.files.push((name.to_owned(), PathBuf::from(file)));
        }
    }
    templates
}

/// The character sets a password must each use, written separated by `:`.
fn password_required_characters(vars: &Vars<'_>) -> Vec<String> {
    vars.get(&var::PASSWORD_REQUIRED_CHARACTERS)
        .map(|raw| {
            raw.split(':')
                .filter(|set| !set.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn rate_limits(vars: &Vars<'_>) -> Result<AuthRateLimits, ConfigError> {
    // Limits beyond what a `u32` holds saturate, as good as none.
    let rate = |variable: &Variable, default: u64| -> Result<u32, ConfigError> {
        let value = vars.parse(variable, default)?;
        Ok(u32::try_from(value).unwrap_or(u32::MAX))
    };
    Ok(AuthRateLimits {
        email_sent_per_hour: rate(&var::RATE_LIMIT_EMAIL_SENT, 30)?,
        token_per_5_min: rate(&var::RATE_LIMIT_TOKEN_REFRESH, 150)?,
        verify_per_5_min: rate(&var::RATE_LIMIT_VERIFY, 30)?,
        otp_per_5_min: rate(&var::RATE_LIMIT_OTP, 30)?,
        anonymous_per_hour: rate(&var::RATE_LIMIT_ANONYMOUS_USERS, 30)?,
        mfa_per_minute: rate(&var::MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY, 15)?,
        header: vars.get(&var::RATE_LIMIT_HEADER),
    })
}

fn mfa(vars: &Vars<'_>) -> Result<MfaSettings, ConfigError> {
    // GoTrue raises shorter lifetimes to its defaults.
    let floor = Duration::from_secs(300);
    Ok(MfaSettings {
        totp_enroll_enabled: vars.flag_or(&var::MFA_TOTP_ENROLL_ENABLED, true)?,
        totp_verify_enabled: vars.flag_or(&var::MFA_TOTP_VERIFY_ENABLED, true)?,
        max_enrolled_factors: vars.parse::<u64>(&var::MFA_MAX_ENROLLED_FACTORS, 10)? as usize,
        max_verified_factors: vars.parse::<u64>(&var::MFA_MAX_VERIFIED_FACTORS, 10)? as usize,
        challenge_expiry: seconds(vars, &var::MFA_CHALLENGE_EXPIRY_DURATION, 300)?.max(floor),
        factor_expiry: vars
            .duration(&var::MFA_FACTOR_EXPIRY_DURATION, floor)?
            .max(floor),
    })
}

/// Encryption of secrets at rest; `None` when no key is configured. Decryption keys alone
/// read encrypted values without encrypting new ones.
fn db_encryption(vars: &Vars<'_>) -> Result<Option<DbEncryption>, ConfigError> {
    const DECRYPTION: &Variable = &var::SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS;
    const KEY: &Variable = &var::SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY;
    const KEY_ID: &Variable = &var::SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID;
    let encrypt = vars.flag(&var::SECURITY_DB_ENCRYPTION_ENCRYPT)?;
    let key_id = vars.get(KEY_ID).unwrap_or_default();
    let mut decryption_keys = HashMap::new();
    let listed = vars.get(DECRYPTION);
    for pair in listed.iter().flat_map(|raw| raw.split(',')) {
        let Some((id, key)) = pair.split_once(':') else {
            return Err(ConfigError {
                name: DECRYPTION.name(),
                reason: "expected key_id:key pairs separated by commas".into(),
            });
        };
        let id = id.trim().to_owned();
        let key = db_encryption_key(DECRYPTION.name(), &id, key)?;
        decryption_keys.insert(id, key);
    }
    let mut encryption_key = [0u8; 32];
    if encrypt {
        if key_id.is_empty() {
            return Err(ConfigError {
                name: KEY_ID.name(),
                reason: "encryption key ID must be specified".into(),
            });
        }
        let raw = vars.get(KEY).unwrap_or_default();
        encryption_key = db_encryption_key(KEY.name(), &key_id, &raw)?;
        decryption_keys.insert(key_id.clone(), encryption_key);
    }
    Ok(
        (encrypt || !decryption_keys.is_empty()).then_some(DbEncryption {
            encrypt,
            encryption_key_id: key_id,
            encryption_key,
            decryption_keys,
        }),
    )
}

/// A 256-bit key written in base64url (padding tolerated).
fn db_encryption_key(name: &'static str, id: &str, raw: &str) -> Result<[u8; 32], ConfigError> {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(raw.trim().trim_end_matches('='))
        .ok()
        .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
        .ok_or_else(|| ConfigError {
            name,
            reason: format!("key {id:?} is not 256 bits of base64url"),
        })
}
