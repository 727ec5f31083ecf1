//! The admin API (service_role / supabase_admin tokens): `/admin/users` list, create, get,
//! update (metadata, password, ban), delete (soft or hard), `/admin/generate_link` and
//! `/invite`, as GoTrue's `admin.go`, `mail.go` and `invite.go`.
//!
//! Listing answers GoTrue's pagination headers: `X-Total-Count` and a `Link` header with
//! `next`/`last` URLs whose first query parameter is `page` (auth-js reads the page number
//! from there).

use actix_web::{HttpRequest, HttpResponse, web};
use chrono::Utc;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::authn;
use super::error::{AuthError, AuthResult, DUPLICATE_EMAIL, DUPLICATE_PHONE};
use super::mailing::{self, Flow};
use super::mfa::AdminFactorAction;
use super::model::User;
use super::password::{MAX_PASSWORD_LENGTH, is_supported_hash};
use super::signup::identity_data;
use super::store::{self, AuditEntry, Col, NewUser, OneTimeTokenType, Tx};
use super::{
    AuthState, Ctx, Reply, parse_json, read_body, respond, validate_email, validate_phone,
};
use crate::identity::secrets;
use crate::state::AppState;

fn admin_audit<'a>(
    claims: &'a Value,
    action: &'static str,
    ctx: &'a Ctx,
    traits: Value,
) -> AuditEntry<'a> {
    AuditEntry {
        actor_id: Uuid::nil(),
        actor_username: claims
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or_default(),
        action,
        traits: Some(traits),
        ip: &ctx.client_ip,
    }
}

fn user_id(raw: &str) -> AuthResult<Uuid> {
    Uuid::parse_str(raw)
        .map_err(|_| AuthError::not_found("validation_failed", "user_id must be an UUID"))
}

async fn load_user(tx: &Tx<'_>, id: Uuid) -> AuthResult<User> {
    store::user_by_id(tx, id)
        .await?
        .ok_or_else(AuthError::user_gone)
}

/// `load_user` with the row locked until the transaction ends, for the admin's changes:
/// they then run one after the other, and each takes the user's row before the rows that
/// belong to it (identities, sessions), the order of a deletion and its cascade. An
/// address change updated the identity first and deadlocked with a concurrent delete.
async fn load_user_for_update(tx: &Tx<'_>, id: Uuid) -> AuthResult<User> {
    store::lock_user(tx, id)
        .await?
        .ok_or_else(AuthError::user_gone)
}

/// Go's `time.ParseDuration` (the units GoTrue accepts for `ban_duration`).
fn parse_ban_duration(raw: &str) -> AuthResult<Option<chrono::Duration>> {
    if raw == "none" {
        return Ok(None);
    }
    crate::config::parse_duration("ban_duration", raw)
        .ok()
        .filter(|_| !raw.chars().all(|c| c.is_ascii_digit()) || raw == "0")
        .and_then(|duration| chrono::Duration::from_std(duration).ok())
        .map(Some)
        .ok_or_else(|| {
            AuthError::validation(format!(
                "invalid format for ban duration: time: invalid duration {raw:?}"
            ))
        })
}

#[derive(Debug, Default, Deserialize)]
struct AdminUserParams {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    aud: Option<String>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    phone: Option<String>,
    #[serde(default)]
    password: Option<String>,
    #[serde(default)]
    password_hash: Option<String>,
    #[serde(default)]
    email_confirm: Option<bool>,
    #[serde(default)]
    phone_confirm: Option<bool>,
    #[serde(default)]
    user_metadata: Option<Map<String, Value>>,
    #[serde(default)]
    app_metadata: Option<Map<String, Value>>,
    #[serde(default)]
    ban_duration: Option<String>,
}

pub async fn list_handler(http: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    respond(&ctx, list(&state.auth, &ctx).await)
}

async fn list(state: &AuthState, ctx: &Ctx) -> AuthResult<Reply> {
    authn::require_admin(state, ctx)?;
    let number = |name: &str, default: i64| -> AuthResult<i64> {
        match ctx.query(name).filter(|value| !value.is_empty()) {
            None => Ok(default),
            Some(raw) => raw.parse::<u32>().map(i64::from).map_err(|error| {
                AuthError::validation(format!(
                    "Bad Pagination Parameters: strconv.ParseUint: parsing {raw:?}: {error}"
                ))
            }),
        }
    };
    let page = number("page", 1)?.max(1);
    let per_page = number("per_page", 50)?.max(1);
    let filter = ctx.query("filter").filter(|f| !f.is_empty());
    let aud = &state.config().jwt_aud;
    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    let (users, total) = store::list_users(&tx, aud, filter, page, per_page).await?;
    tx.commit().await?;
    let last_page = ((total + per_page - 1) / per_page).max(0);
    let link_for = |page_number: i64| {
        let mut pairs: Vec<(String, String)> = ctx
            .query
            .iter()
            .filter(|(name, _)| name != "page")
            .cloned()
            .collect();
        pairs.push(("page".into(), page_number.to_string()));
        pairs.sort();
        let query: String = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        format!("</admin/users?{query}>")
    };
    let mut link = String::new();
    if last_page > page {
        link.push_str(&format!("{}; rel=\"next\", ", link_for(page + 1)));
    }
    link.push_str(&format!("{}; rel=\"last\"", link_for(last_page)));
    Ok(Reply::JsonWithHeaders(
        json!({
            "users": users.iter().map(User::to_json).collect::<Vec<_>>(),
            "aud": aud,
        }),
        vec![("link", link), ("x-total-count", total.to_string())],
    ))
}

pub async fn get_handler(
    http: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = admin_user(&state, &ctx, &path)
        .await
        .map(|user| Reply::Json(user.to_json()));
    respond(&ctx, result)
}

/// What every `/admin/users/{id}/…` route checks first, as GoTrue's `loadUser`: admin
/// credentials, an id that is a UUID, an existing user.
pub(super) async fn admin_user(state: &AppState, ctx: &Ctx, raw_id: &str) -> AuthResult<User> {
    let auth = &state.auth;
    authn::require_admin(auth, ctx)?;
    let id = user_id(raw_id)?;
    let mut connection = auth.connection().await?;
    let tx = connection.transaction().await?;
    let user = load_user(&tx, id).await?;
    tx.commit().await?;
    Ok(user)
}

pub async fn factors_handler(
    http: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let id = user_id(&path)?;
        super::mfa::admin_factors(&state.auth, &ctx, id, AdminFactorAction::List).await
    }
    .await;
    respond(&ctx, result)
}

pub async fn delete_factor_handler(
    http: HttpRequest,
    path: web::Path<(String, String)>,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let id = user_id(&path.0)?;
        let action = AdminFactorAction::Delete { factor: &path.1 };
        super::mfa::admin_factors(&state.auth, &ctx, id, action).await
    }
    .await;
    respond(&ctx, result)
}

#[derive(Debug, Default, Deserialize)]
struct FactorUpdateParams {
    #[serde(default)]
    friendly_name: String,
}

/// `PUT /admin/users/{id}/factors/{factor_id}`: renames a factor (GoTrue's
/// `adminUserUpdateFactor`).
pub async fn update_factor_handler(
    http: HttpRequest,
    path: web::Path<(String, String)>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let body = read_body(payload).await?;
        authn::require_admin(&state.auth, &ctx)?;
        let id = user_id(&path.0)?;
        let params: FactorUpdateParams = parse_json(&body)?;
        let action = AdminFactorAction::Update {
            factor: &path.1,
            friendly_name: &params.friendly_name,
        };
        super::mfa::admin_factors(&state.auth, &ctx, id, action).await
    }
    .await;
    respond(&ctx, result)
}

pub async fn create_handler(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let body = read_body(payload).await?;
        let claims = authn::require_admin(&state.auth, &ctx)?;
        let params: AdminUserParams = parse_json(&body)?;
        create(&state.auth, &ctx, &claims, params).await
    }
    .await;
    respond(&ctx, result)
}

async fn create(
    state: &AuthState,
    ctx: &Ctx,
    claims: &Value,
    params: AdminUserParams,
) -> AuthResult<Reply> {
    let config = state.config();
    let aud = params
        .aud
        .clone()
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| config.jwt_aud.clone());
    let email = params.email.clone().filter(|e| !e.is_empty());
    let phone = params.phone.clone().filter(|p| !p.is_empty());
    if email.is_none() && phone.is_none() {
        return Err(AuthError::validation(
            "Cannot create a user without either an email or phone",
        ));
    }
    let email = email.map(|e| validate_email(&e)).transpose()?;
    let phone = phone.map(|p| validate_phone(&p)).transpose()?;
    let password_hash_param = params.password_hash.clone().filter(|h| !h.is_empty());
    if params.password.is_some() && password_hash_param.is_some() {
        return Err(AuthError::validation(
            "Only a password or a password hash should be provided",
        ));
    }
    let id = match params.id.as_deref().filter(|id| !id.is_empty()) {
        Some(raw) => {
            let id = Uuid::parse_str(raw)
                .map_err(|_| AuthError::validation("ID must conform to the uuid v4 format"))?;
            if id.is_nil() {
                return Err(AuthError::validation("ID cannot be a nil uuid"));
            }
            id
        }
        None => Uuid::new_v4(),
    };
    let ban = params
        .ban_duration
        .as_deref()
        .filter(|b| !b.is_empty())
        .map(parse_ban_duration)
        .transpose()?;
    let password_hash = match password_hash_param {
        Some(hash) => {
            // Imported as is: a user exported from Supabase keeps signing in.
            if !is_supported_hash(&hash) {
                return Err(AuthError::validation(
                    "Invalid password hash: only bcrypt ($2a$, $2b$, $2y$) hashes are supported",
                ));
            }
            hash
        }
        None => {
            let password = params
                .password
                .clone()
                .filter(|p| !p.is_empty())
                .unwrap_or_else(secrets::generate_password);
            if password.len() > MAX_PASSWORD_LENGTH {
                return Err(AuthError::validation(
                    "bcrypt: password length exceeds 72 bytes",
                ));
            }
            state.hasher.hash(&password).await?
        }
    };

    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    for address in [&email, &phone].into_iter().flatten() {
        store::lock_address(&tx, address).await?;
    }
    if let Some(email) = &email
        && store::email_taken(&tx, email, &aud, None).await?
    {
        return Err(AuthError::unprocessable("email_exists", DUPLICATE_EMAIL));
    }
    if let Some(phone) = &phone
        && store::user_by_phone(&tx, phone, &aud).await?.is_some()
    {
        return Err(AuthError::unprocessable("phone_exists", DUPLICATE_PHONE));
    }
    let mut providers = Vec::new();
    if email.is_some() {
        providers.push("email");
    }
    if phone.is_some() {
        providers.push("phone");
    }
    let new = NewUser {
        id,
        aud: aud.clone(),
        role: params
            .role
            .clone()
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| config.default_role.clone()),
        email: email.clone(),
        phone: phone.clone(),
        password_hash: Some(password_hash),
        app_metadata: json!({"provider": providers[0], "providers": providers}),
        user_metadata: Value::Object(params.user_metadata.clone().unwrap_or_default()),
        is_anonymous: false,
    };
    if store::user_by_id(&tx, id).await?.is_some() {
        return Err(AuthError::unprocessable(
            "email_exists",
            "A user with this ID already exists",
        ));
    }
    store::insert_user(&tx, &new).await?;
    if let Some(email) = &email {
        let data = identity_data(id, Some(email), None, &Map::new());
        store::insert_identity(&tx, id, "email", &id.to_string(), &data).await?;
    }
    if let Some(phone) = &phone {
        let data = identity_data(id, None, Some(phone), &Map::new());
        store::insert_identity(&tx, id, "phone", &id.to_string(), &data).await?;
    }
    store::audit(
        &tx,
        admin_audit(claims, "user_signedup", ctx, json!({"user_id": id, "user_email": email, "user_phone": phone, "provider": providers[0]})),
    )
    .await?;
    if let Some(app) = &params.app_metadata {
        store::merge_metadata(&tx, id, Col::AppMetaData, &Value::Object(app.clone())).await?;
    }
    if params.email_confirm == Some(true) {
        store::confirm_email(&tx, id).await?;
    }
    if params.phone_confirm == Some(true) {
        let now = Utc::now();
        store::update_user(&tx, id, &[(Col::PhoneConfirmedAt, &now)]).await?;
    }
    if let Some(ban) = ban {
        let until = ban.map(|duration| Utc::now() + duration);
        store::update_user(&tx, id, &[(Col::BannedUntil, &until)]).await?;
    }
    let user = store::reload(&tx, id).await?;
    tx.commit().await?;
    Ok(Reply::Json(user.to_json()))
}

pub async fn update_handler(
    http: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let body = read_body(payload).await?;
        let claims = authn::require_admin(&state.auth, &ctx)?;
        let id = user_id(&path)?;
        let params: AdminUserParams = parse_json(&body)?;
        update(&state.auth, &ctx, &claims, id, params).await
    }
    .await;
    respond(&ctx, result)
}

async fn update(
    state: &AuthState,
    ctx: &Ctx,
    claims: &Value,
    id: Uuid,
    params: AdminUserParams,
) -> AuthResult<Reply> {
    let email = params
        .email
        .clone()
        .filter(|e| !e.is_empty())
        .map(|e| validate_email(&e))
        .transpose()?;
    let phone = params
        .phone
        .clone()
        .filter(|p| !p.is_empty())
        .map(|p| validate_phone(&p))
        .transpose()?;
    let ban = params
        .ban_duration
        .as_deref()
        .filter(|b| !b.is_empty())
        .map(parse_ban_duration)
        .transpose()?;
    let password_hash = match &params.password {
        Some(password) => {
            state.password_rules.check(password)?;
            Some(state.hasher.hash(password).await?)
        }
        None => None,
    };
    let email_confirm = params.email_confirm == Some(true);
    let phone_confirm = params.phone_confirm == Some(true);

    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    let user = load_user_for_update(&tx, id).await?;
    if let Some(role) = params.role.as_deref().filter(|r| !r.is_empty()) {
        store::update_user(&tx, id, &[(Col::Role, &role)]).await?;
    }
    if email_confirm {
        store::confirm_email(&tx, id).await?;
    }
    if phone_confirm {
        let now = Utc::now();
        store::update_user(&tx, id, &[(Col::PhoneConfirmedAt, &now)]).await?;
    }
    if let Some(hash) = &password_hash {
        store::update_user(
            &tx,
            id,
            &[
                (Col::EncryptedPassword, hash),
                (Col::RecoveryToken, &""),
                (Col::ReauthenticationToken, &""),
            ],
        )
        .await?;
        store::clear_one_time_tokens(&tx, id).await?;
        store::delete_sessions(&tx, id, None).await?;
    }
    if let Some(email) = &email {
        if user.email() != email && store::email_taken(&tx, email, &user.aud, Some(id)).await? {
            return Err(AuthError::unprocessable("email_exists", DUPLICATE_EMAIL));
        }
        let updates = json!({"email": email, "email_verified": email_confirm});
        if !store::update_identity_data(&tx, id, "email", &updates).await? {
            let data = identity_data(id, Some(email), None, &Map::new());
            store::insert_identity(&tx, id, "email", &id.to_string(), &data).await?;
            store::update_identity_data(&tx, id, "email", &updates).await?;
        }
        store::update_user(&tx, id, &[(Col::Email, email)]).await?;
        if user.is_anonymous && email_confirm {
            store::update_user(&tx, id, &[(Col::IsAnonymous, &false)]).await?;
        }
        store::refresh_providers(&tx, id).await?;
    }
    if let Some(phone) = &phone {
        let updates = json!({"phone": phone, "phone_verified": phone_confirm});
        if !store::update_identity_data(&tx, id, "phone", &updates).await? {
            let data = identity_data(id, None, Some(phone), &Map::new());
            store::insert_identity(&tx, id, "phone", &id.to_string(), &data).await?;
        }
        store::update_user(&tx, id, &[(Col::Phone, phone)]).await?;
        if user.is_anonymous && phone_confirm {
            store::update_user(&tx, id, &[(Col::IsAnonymous, &false)]).await?;
        }
        store::refresh_providers(&tx, id).await?;
    }
    if let Some(app) = &params.app_metadata {
        store::merge_metadata(&tx, id, Col::AppMetaData, &Value::Object(app.clone())).await?;
    }
    if let Some(data) = &params.user_metadata {
        store::merge_metadata(&tx, id, Col::UserMetaData, &Value::Object(data.clone())).await?;
    }
    if let Some(ban) = ban {
        let until = ban.map(|duration| Utc::now() + duration);
        store::update_user(&tx, id, &[(Col::BannedUntil, &until)]).await?;
    }
    store::audit(
        &tx,
        admin_audit(
            claims,
            "user_modified",
            ctx,
            json!({"user_id": id, "user_email": user.email(), "user_phone": user.phone()}),
        ),
    )
    .await?;
    let updated = store::reload(&tx, id).await?;
    tx.commit().await?;
    Ok(Reply::Json(updated.to_json()))
}

#[derive(Debug, Default, Deserialize)]
struct DeleteParams {
    #[serde(default)]
    should_soft_delete: Option<bool>,
}

pub async fn delete_handler(
    http: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let body = read_body(payload).await?;
        let auth = &state.auth;
        let claims = authn::require_admin(auth, &ctx)?;
        let id = user_id(&path)?;
        let params: DeleteParams = if body.iter().all(u8::is_ascii_whitespace) {
            DeleteParams::default()
        } else {
            parse_json(&body)?
        };
        let mut connection = auth.connection().await?;
        let tx = connection.transaction().await?;
        let user = load_user_for_update(&tx, id).await?;
        store::audit(
            &tx,
            admin_audit(
                &claims,
                "user_deleted",
                &ctx,
                json!({"user_id": id, "user_email": user.email(), "user_phone": user.phone()}),
            ),
        )
        .await?;
        if params.should_soft_delete == Some(true) {
            if user.deleted_at.is_none() {
                store::soft_delete_user(&tx, id).await?;
            }
        } else {
            store::delete_user(&tx, id).await?;
        }
        tx.commit().await?;
        Ok(Reply::Json(json!({})))
    }
    .await;
    respond(&ctx, result)
}

#[derive(Debug, Default, Deserialize)]
struct InviteParams {
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    data: Option<Map<String, Value>>,
}

/// An invited user: no password, the invite data as metadata, an e-mail identity.
async fn create_invited(
    state: &AuthState,
    tx: &Tx<'_>,
    email: &str,
    data: &Map<String, Value>,
) -> AuthResult<User> {
    let id = Uuid::new_v4();
    let config = state.config();
    store::insert_user(
        tx,
        &NewUser {
            id,
            aud: config.jwt_aud.clone(),
            role: config.default_role.clone(),
            email: Some(email.to_owned()),
            phone: None,
            password_hash: None,
            app_metadata: json!({"provider": "email", "providers": ["email"]}),
            user_metadata: Value::Object(data.clone()),
            is_anonymous: false,
        },
    )
    .await?;
    let identity = identity_data(id, Some(email), None, &Map::new());
    store::insert_identity(tx, id, "email", &id.to_string(), &identity).await?;
    store::reload(tx, id).await
}

pub async fn invite_handler(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let body = read_body(payload).await?;
        let auth = &state.auth;
        let claims = authn::require_admin(auth, &ctx)?;
        let params: InviteParams = parse_json(&body)?;
        let email = validate_email(params.email.as_deref().unwrap_or_default())?;
        let mut connection = auth.connection().await?;
        let tx = connection.transaction().await?;
        store::lock_address(&tx, &email).await?;
        let user = match store::user_by_email(&tx, &email, &auth.config().jwt_aud).await? {
            Some(user) if user.is_confirmed() => {
                return Err(AuthError::unprocessable("email_exists", DUPLICATE_EMAIL));
            }
            Some(user) => user,
            None => create_invited(auth, &tx, &email, &params.data.unwrap_or_default()).await?,
        };
        store::audit(
            &tx,
            admin_audit(
                &claims,
                "user_invited",
                &ctx,
                json!({"user_id": user.id, "user_email": user.email()}),
            ),
        )
        .await?;
        mailing::send_invite(auth, &tx, &user, &ctx).await?;
        let user = store::reload(&tx, user.id).await?;
        tx.commit().await?;
        Ok(Reply::Json(user.to_json()))
    }
    .await;
    respond(&ctx, result)
}

#[derive(Debug, Default, Deserialize)]
struct GenerateLinkParams {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    new_email: Option<String>,
    #[serde(default)]
    password: Option<String>,
    #[serde(default)]
    data: Option<Map<String, Value>>,
    #[serde(default)]
    redirect_to: Option<String>,
}

pub async fn generate_link_handler(
    http: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let ctx = Ctx::from_request(&http, &state.settings.auth);
    let result = async {
        let body = read_body(payload).await?;
        let claims = authn::require_admin(&state.auth, &ctx)?;
        let params: GenerateLinkParams = parse_json(&body)?;
        generate_link(&state.auth, &ctx, &claims, params).await
    }
    .await;
    respond(&ctx, result)
}

/// GoTrue's `adminGenerateLink`: the link and OTP a mail would carry, without sending it.
async fn generate_link(
    state: &AuthState,
    ctx: &Ctx,
    claims: &Value,
    params: GenerateLinkParams,
) -> AuthResult<Reply> {
    let config = state.config();
    let email = validate_email(params.email.as_deref().unwrap_or_default())?;
    let mut kind = params.kind.clone().unwrap_or_default();
    let redirect_to = match params.redirect_to.as_deref() {
        Some(candidate) if state.redirects.is_allowed(candidate) => candidate.to_owned(),
        _ => mailing::referrer(state, ctx),
    };
    let mut connection = state.connection().await?;
    let tx = connection.transaction().await?;
    // The signup and invite links create the user when the address is new.
    store::lock_address(&tx, &email).await?;
    let existing = store::user_by_email(&tx, &email, &config.jwt_aud).await?;
    let mut password = params.password.clone().unwrap_or_default();
    if existing.is_none() {
        match kind.as_str() {
            "magiclink" => {
                kind = "signup".into();
                password = secrets::generate_password();
            }
            "recovery" | "email_change_current" | "email_change_new" => {
                return Err(AuthError::not_found(
                    "user_not_found",
                    "User with this email not found",
                ));
            }
            _ => {}
        }
    }
    let data = params.data.clone().unwrap_or_default();
    let (user, issued, hashed_token) = match kind.as_str() {
        "magiclink" | "recovery" => {
            let Some(user) = existing else {
                return Err(AuthError::not_found(
                    "user_not_found",
                    "User with this email not found",
                ));
            };
            store::audit(
                &tx,
                super::signup::audit_entry(&user, "user_recovery_requested", ctx, None),
            )
            .await?;
            let issued =
                mailing::issue_recovery(state, &tx, &user, Flow::Implicit, &kind, &redirect_to)
                    .await?;
            let hashed = issued.hashed_token.clone();
            (user, issued, hashed)
        }
        "invite" => {
            let user = match existing {
                Some(user) if user.is_confirmed() => {
                    return Err(AuthError::unprocessable("email_exists", DUPLICATE_EMAIL));
                }
                Some(user) => user,
                None => create_invited(state, &tx, &email, &data).await?,
            };
            store::audit(
                &tx,
                admin_audit(
                    claims,
                    "user_invited",
                    ctx,
                    json!({"user_id": user.id, "user_email": user.email()}),
                ),
            )
            .await?;
            let issued = mailing::issue_confirmation(
                state,
                &tx,
                &user,
                Flow::Implicit,
                "invite",
                &redirect_to,
                true,
            )
            .await?;
            let hashed = issued.hashed_token.clone();
            (user, issued, hashed)
        }
        "signup" => {
            let user = match existing {
                Some(user) if user.is_confirmed() => {
                    return Err(AuthError::unprocessable("email_exists", DUPLICATE_EMAIL));
                }
                Some(user) => {
                    store::merge_metadata(
                        &tx,
                        user.id,
                        Col::UserMetaData,
                        &Value::Object(data.clone()),
                    )
                    .await?;
                    user
                }
                None => {
                    if password.is_empty() {
                        return Err(AuthError::validation("Signup requires a valid password"));
                    }
                    state.password_rules.check(&password)?;
                    let hash = state.hasher.hash(&password).await?;
                    let user = super::signup::create_user(
                        state,
                        &tx,
                        Some(&email),
                        None,
                        Some(hash),
                        &data,
                    )
                    .await?;
                    // GoTrue keeps only the given data as metadata on this path.
                    let metadata = Value::Object(data.clone());
                    store::update_user(&tx, user.id, &[(Col::UserMetaData, &metadata)]).await?;
                    user
                }
            };
            let issued = mailing::issue_confirmation(
                state,
                &tx,
                &user,
                Flow::Implicit,
                "signup",
                &redirect_to,
                false,
            )
            .await?;
            let hashed = issued.hashed_token.clone();
            (user, issued, hashed)
        }
        "email_change_current" | "email_change_new" => {
            let Some(user) = existing else {
                return Err(AuthError::not_found(
                    "user_not_found",
                    "User with this email not found",
                ));
            };
            if kind == "email_change_current" && !config.secure_email_change {
                return Err(AuthError::validation(
                    "Enable secure email change to generate link for current email",
                ));
            }
            let new_email = validate_email(params.new_email.as_deref().unwrap_or_default())?;
            if store::email_taken(&tx, &new_email, &user.aud, Some(user.id)).await? {
                return Err(AuthError::unprocessable("email_exists", DUPLICATE_EMAIL));
            }
            let tokens = mailing::issue_email_change(
                state,
                &tx,
                &user,
                &new_email,
                Flow::Implicit,
                kind == "email_change_current",
                &redirect_to,
            )
            .await?;
            let issued = if kind == "email_change_current" {
                // Only the current address's token is handed out; the new one is dropped.
                store::update_user(&tx, user.id, &[(Col::EmailChangeTokenNew, &"")]).await?;
                store::clear_one_time_token(&tx, user.id, OneTimeTokenType::EmailChangeNew).await?;
                tokens.current.unwrap_or(tokens.new)
            } else {
                tokens.new
            };
            let hashed = issued.hashed_token.clone();
            (user, issued, hashed)
        }
        other => {
            return Err(AuthError::validation(format!(
                "Invalid email action link type requested: {other}"
            )));
        }
    };
    let user = store::reload(&tx, user.id).await?;
    tx.commit().await?;
    let mut body = user.to_json();
    body["action_link"] = json!(issued.link);
    body["email_otp"] = json!(issued.otp);
    body["hashed_token"] = json!(hashed_token);
    body["verification_type"] = json!(kind);
    body["redirect_to"] = json!(redirect_to);
    Ok(Reply::Json(body))
}
