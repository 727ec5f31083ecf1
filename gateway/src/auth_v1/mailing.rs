//! The mails auth/v1 sends and the one-time tokens behind them (GoTrue's `mail.go`):
//! confirmation, invite, recovery, magic link, e-mail change and reauthentication.
//!
//! Each mail gets a fresh OTP; the user row keeps `hex(SHA-224(email + otp))` (prefixed
//! `pkce_` in the PKCE flow) and `auth.one_time_tokens` mirrors it, as GoTrue stores them.
//! The link in the mail carries that hash, the mail text also shows the OTP. A user gets
//! at most one mail of a kind per `SMTP_MAX_FREQUENCY` and each address at most
//! `RATE_LIMIT_EMAIL_SENT` mails an hour.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::error::{AuthError, AuthResult};
use super::model::User;
use super::store::{self, Col, OneTimeTokenType, Tx};
use super::{AuthState, Ctx};
use crate::identity::secrets::{self, PKCE_PREFIX};
use crate::mail::templates::{Template, TemplateData};

/// Implicit (tokens in the redirect fragment) or PKCE (`?code=` exchanged by the client).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Implicit,
    Pkce,
}

impl Flow {
    pub fn from_challenge(challenge: Option<&str>) -> Self {
        match challenge {
            Some(challenge) if !challenge.is_empty() => Flow::Pkce,
            _ => Flow::Implicit,
        }
    }

    fn prefix(self, hash: String) -> String {
        match self {
            Flow::Pkce => format!("{PKCE_PREFIX}{hash}"),
            Flow::Implicit => hash,
        }
    }
}

/// 429 unless `max_frequency` has passed since `sent_at`, with GoTrue's message.
pub fn check_frequency(state: &AuthState, sent_at: Option<DateTime<Utc>>) -> AuthResult<()> {
    let Some(sent_at) = sent_at else {
        return Ok(());
    };
    let frequency = chrono::Duration::from_std(state.config().max_frequency).unwrap_or_default();
    let allowed_at = sent_at + frequency;
    let now = Utc::now();
    if allowed_at > now {
        let seconds = (allowed_at - now).num_seconds();
        return Err(AuthError::too_many(
            "over_email_send_rate_limit",
            format!("For security purposes, you can only request this after {seconds} seconds."),
        ));
    }
    Ok(())
}

/// The user's row as committed, locked until the transaction ends. Every mail with a token
/// starts here, so two requests for the same user's mail run one after the other: the second
/// sees the first's `*_sent_at` and gets the frequency answer, instead of both sending a mail
/// and the second's token replacing the first's (whose link would then fail).
async fn lock_recipient(tx: &Tx<'_>, user: &User) -> AuthResult<User> {
    store::lock_user(tx, user.id)
        .await?
        .ok_or_else(AuthError::user_gone)
}

/// The e-mail link: `API_EXTERNAL_URL` + path + `?token=…&type=…&redirect_to=…`.
pub fn action_link(
    state: &AuthState,
    path: &str,
    token: &str,
    kind: &str,
    redirect_to: &str,
) -> String {
    let base = state.settings.api.external_url.clone();
    let escape = |value: &str| -> String {
        url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
    };
    // GoTrue escapes the redirect only when it is not already URL-encoded.
    let redirect = if redirect_to.contains(['&', '=', '#']) {
        escape(redirect_to)
    } else {
        redirect_to.to_owned()
    };
    let query = format!(
        "token={}&type={}&redirect_to={redirect}",
        escape(token),
        escape(kind)
    );
    let mut link = match base.join(path) {
        Ok(url) => url.to_string(),
        Err(_) => format!("{}{path}", base.as_str().trim_end_matches('/')),
    };
    link.push('?');
    link.push_str(&query);
    link
}

/// Where the mail's link sends the browser after verification.
pub fn referrer(state: &AuthState, ctx: &Ctx) -> String {
    state.redirects.resolve(ctx.redirect_to.as_deref())
}

async fn deliver(
    state: &AuthState,
    tx: &Tx<'_>,
    recipient: &str,
    template: Template,
    data: &TemplateData,
) -> AuthResult<()> {
    if !state.limits.allow_email(recipient) {
        return Err(AuthError::email_rate_limit());
    }
    let mail = state.templates.render(template, data);
    state
        .mailer
        .send(tx, recipient, &mail)
        .await
        .map_err(|error| AuthError::internal("Error sending email", error))
}

fn template_data(state: &AuthState, user: &User, redirect_to: &str) -> TemplateData {
    TemplateData {
        site_url: state.redirects.site_url(),
        email: user.email().to_owned(),
        redirect_to: redirect_to.to_owned(),
        data: match &user.user_metadata {
            Value::Object(map) => map.clone(),
            _ => serde_json::Map::new(),
        },
        ..TemplateData::default()
    }
}

/// What a link-bearing mail produced (for admin `generate_link`, which sends nothing).
#[derive(Debug, Clone)]
pub struct IssuedLink {
    pub otp: String,
    pub hashed_token: String,
    pub link: String,
}

/// Stores a fresh confirmation token (signup or invite) and returns its link.
pub async fn issue_confirmation(
    state: &AuthState,
    tx: &Tx<'_>,
    user: &User,
    flow: Flow,
    kind: &str,
    redirect_to: &str,
    invited: bool,
) -> AuthResult<IssuedLink> {
    let otp = secrets::generate_otp(state.config().otp_length);
    let hash = secrets::token_hash(user.email(), &otp);
    let stored = flow.prefix(hash.clone());
    let now = Utc::now();
    if invited {
        store::update_user(
            tx,
            user.id,
            &[
                (Col::ConfirmationToken, &stored),
                (Col::ConfirmationSentAt, &now),
                (Col::InvitedAt, &now),
            ],
        )
        .await?;
    } else {
        store::update_user(
            tx,
            user.id,
            &[
                (Col::ConfirmationToken, &stored),
                (Col::ConfirmationSentAt, &now),
            ],
        )
        .await?;
    }
    store::put_one_time_token(
        tx,
        user.id,
        OneTimeTokenType::Confirmation,
        &stored,
        user.email(),
    )
    .await?;
    let path = if invited {
        &state.config().url_paths.invite
    } else {
        &state.config().url_paths.confirmation
    };
    Ok(IssuedLink {
        link: action_link(state, path, &stored, kind, redirect_to),
        hashed_token: hash,
        otp,
    })
}

/// GoTrue's `sendConfirmation`: the sign-up confirmation mail.
pub async fn send_confirmation(
    state: &AuthState,
    tx: &Tx<'_>,
    user: &User,
    flow: Flow,
    ctx: &Ctx,
) -> AuthResult<()> {
    let user = &lock_recipient(tx, user).await?;
    check_frequency(state, user.confirmation_sent_at)?;
    let redirect_to = referrer(state, ctx);
    let issued = issue_confirmation(state, tx, user, flow, "signup", &redirect_to, false).await?;
    let mut data = template_data(state, user, &redirect_to);
    data.confirmation_url = issued.link;
    data.token = issued.otp;
    data.token_hash = flow.prefix(issued.hashed_token);
    deliver(state, tx, user.email(), Template::Confirmation, &data).await
}

/// GoTrue's `sendInvite`.
pub async fn send_invite(state: &AuthState, tx: &Tx<'_>, user: &User, ctx: &Ctx) -> AuthResult<()> {
    let redirect_to = referrer(state, ctx);
    let issued = issue_confirmation(
        state,
        tx,
        user,
        Flow::Implicit,
        "invite",
        &redirect_to,
        true,
    )
    .await?;
    let mut data = template_data(state, user, &redirect_to);
    data.confirmation_url = issued.link;
    data.token = issued.otp;
    data.token_hash = issued.hashed_token;
    deliver(state, tx, user.email(), Template::Invite, &data).await
}

/// Stores a fresh recovery token (recovery and magic links share it) and returns its link.
pub async fn issue_recovery(
    state: &AuthState,
    tx: &Tx<'_>,
    user: &User,
    flow: Flow,
    kind: &str,
    redirect_to: &str,
) -> AuthResult<IssuedLink> {
    let otp = secrets::generate_otp(state.config().otp_length);
    let hash = secrets::token_hash(user.email(), &otp);
    let stored = flow.prefix(hash.clone());
    let now = Utc::now();
    store::update_user(
        tx,
        user.id,
        &[(Col::RecoveryToken, &stored), (Col::RecoverySentAt, &now)],
    )
    .await?;
    store::put_one_time_token(
        tx,
        user.id,
        OneTimeTokenType::Recovery,
        &stored,
        user.email(),
    )
    .await?;
    Ok(IssuedLink {
        link: action_link(
            state,
            &state.config().url_paths.recovery,
            &stored,
            kind,
            redirect_to,
        ),
        hashed_token: hash,
        otp,
    })
}

/// GoTrue's `sendPasswordRecovery` and `sendMagicLink` (both use the recovery token).
pub async fn send_recovery(
    state: &AuthState,
    tx: &Tx<'_>,
    user: &User,
    flow: Flow,
    magic_link: bool,
    ctx: &Ctx,
) -> AuthResult<()> {
    let user = &lock_recipient(tx, user).await?;
    check_frequency(state, user.recovery_sent_at)?;
    let redirect_to = referrer(state, ctx);
    let (kind, template) = if magic_link {
        ("magiclink", Template::MagicLink)
    } else {
        ("recovery", Template::Recovery)
    };
    let issued = issue_recovery(state, tx, user, flow, kind, &redirect_to).await?;
    let mut data = template_data(state, user, &redirect_to);
    data.confirmation_url = issued.link;
    data.token = issued.otp;
    data.token_hash = flow.prefix(issued.hashed_token);
    deliver(state, tx, user.email(), template, &data).await
}

/// The tokens of an e-mail change (the current address's only with secure change on).
#[derive(Debug, Clone)]
pub struct EmailChangeTokens {
    pub new: IssuedLink,
    pub current: Option<IssuedLink>,
}

/// Stores fresh e-mail change tokens for `new_email`.
pub async fn issue_email_change(
    state: &AuthState,
    tx: &Tx<'_>,
    user: &User,
    new_email: &str,
    flow: Flow,
    with_current: bool,
    redirect_to: &str,
) -> AuthResult<EmailChangeTokens> {
    let path = &state.config().url_paths.email_change;
    let otp_new = secrets::generate_otp(state.config().otp_length);
    let hash_new = secrets::token_hash(new_email, &otp_new);
    let stored_new = flow.prefix(hash_new.clone());
    let current = if with_current && !user.email().is_empty() {
        let otp = secrets::generate_otp(state.config().otp_length);
        let hash = secrets::token_hash(user.email(), &otp);
        Some((otp, hash))
    } else {
        None
    };
    let stored_current = current
        .as_ref()
        .map(|(_, hash)| flow.prefix(hash.clone()))
        .unwrap_or_default();
    let now = Utc::now();
    let zero = 0i32;
    store::update_user(
        tx,
        user.id,
        &[
            (Col::EmailChange, &new_email),
            (Col::EmailChangeTokenNew, &stored_new),
            (Col::EmailChangeTokenCurrent, &stored_current),
            (Col::EmailChangeSentAt, &now),
            (Col::EmailChangeConfirmStatus, &zero),
        ],
    )
    .await?;
    store::put_one_time_token(
        tx,
        user.id,
        OneTimeTokenType::EmailChangeNew,
        &stored_new,
        new_email,
    )
    .await?;
    if current.is_some() {
        store::put_one_time_token(
            tx,
            user.id,
            OneTimeTokenType::EmailChangeCurrent,
            &stored_current,
            user.email(),
        )
        .await?;
    } else {
        store::clear_one_time_token(tx, user.id, OneTimeTokenType::EmailChangeCurrent).await?;
    }
    Ok(EmailChangeTokens {
        new: IssuedLink {
            link: action_link(state, path, &stored_new, "email_change", redirect_to),
            hashed_token: hash_new,
            otp: otp_new,
        },
        current: current.map(|(otp, hash)| IssuedLink {
            link: action_link(state, path, &stored_current, "email_change", redirect_to),
            hashed_token: hash,
            otp,
        }),
    })
}

/// GoTrue's `sendEmailChange`: a mail to the new address and, with secure e-mail change,
/// one to the current address; both must be confirmed.
pub async fn send_email_change(
    state: &AuthState,
    tx: &Tx<'_>,
    user: &User,
    new_email: &str,
    flow: Flow,
    ctx: &Ctx,
) -> AuthResult<()> {
    let user = &lock_recipient(tx, user).await?;
    check_frequency(state, user.email_change_sent_at)?;
    let redirect_to = referrer(state, ctx);
    let secure = state.config().secure_email_change;
    let tokens = issue_email_change(state, tx, user, new_email, flow, secure, &redirect_to).await?;
    let mut data = template_data(state, user, &redirect_to);
    data.new_email = new_email.to_owned();
    data.confirmation_url = tokens.new.link.clone();
    data.token = tokens.new.otp.clone();
    data.token_hash = flow.prefix(tokens.new.hashed_token.clone());
    deliver(state, tx, new_email, Template::EmailChange, &data).await?;
    if let Some(current) = tokens.current {
        data.confirmation_url = current.link;
        data.token = current.otp;
        data.token_hash = flow.prefix(current.hashed_token);
        deliver(state, tx, user.email(), Template::EmailChange, &data).await?;
    }
    Ok(())
}

/// GoTrue's `sendReauthenticationOtp`: a code for a sensitive change.
pub async fn send_reauthentication(state: &AuthState, tx: &Tx<'_>, user: &User) -> AuthResult<()> {
    let user = &lock_recipient(tx, user).await?;
    check_frequency(state, user.reauthentication_sent_at)?;
    let otp = secrets::generate_otp(state.config().otp_length);
    let hash = secrets::token_hash(user.email(), &otp);
    let now = Utc::now();
    store::update_user(
        tx,
        user.id,
        &[
            (Col::ReauthenticationToken, &hash),
            (Col::ReauthenticationSentAt, &now),
        ],
    )
    .await?;
    store::put_one_time_token(
        tx,
        user.id,
        OneTimeTokenType::Reauthentication,
        &hash,
        user.email(),
    )
    .await?;
    let mut data = template_data(state, user, "");
    data.token = otp;
    data.token_hash = hash;
    deliver(state, tx, user.email(), Template::Reauthentication, &data).await
}

/// Whether `sent_at` is older than the OTP lifetime (or missing).
pub fn is_expired(state: &AuthState, sent_at: Option<DateTime<Utc>>) -> bool {
    match sent_at {
        None => true,
        Some(sent_at) => {
            let lifetime =
                chrono::Duration::from_std(state.config().otp_expiry).unwrap_or_default();
            Utc::now() > sent_at + lifetime
        }
    }
}

/// GoTrue's `isOtpValid`: the presented hash equals the stored one (with or without the
/// PKCE prefix) and the token is not expired.
pub fn otp_matches(
    state: &AuthState,
    presented_hash: &str,
    stored: &str,
    sent_at: Option<DateTime<Utc>>,
) -> bool {
    if stored.is_empty() || is_expired(state, sent_at) {
        return false;
    }
    secrets::constant_time_eq(presented_hash, stored)
        || secrets::constant_time_eq(&format!("{PKCE_PREFIX}{presented_hash}"), stored)
}
