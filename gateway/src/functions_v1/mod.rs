//! functions/v1: invocation of functions at `/functions/v1/{name}` (and sub-paths), with
//! Supabase's edge runtime contract. A request is parsed (name, sub-path, method), routed to
//! a native Rust function ([`native`]), a function served by another server ([`proxy`]) or an
//! Edge Function of the functions directory ([`directory`]) run under Deno ([`deno`]) — both
//! relayed the same way ([`relay`]) — authorized (`verify_jwt`, through
//! [`crate::identity`]), relayed, and answered: a function's own answer passes through
//! unchanged, failures of the host are written by [`error_response`] from the one mapping
//! in [`functions::FunctionError`].

pub mod deno;
pub mod directory;
pub mod native;
pub mod proxy;
pub mod relay;

use std::sync::Arc;

use actix_web::http::{Method, StatusCode};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use functions::FunctionError;

use self::deno::{DenoRuntime, DenoSettings};
use self::native::{Invocation, NativeFunctions};
use crate::config::Settings;
use crate::identity::{self, Credentials, Identity, IdentityContext, ProjectKeys};

pub use self::native::NativeFunction;

/// Everything needed to serve functions/v1, shared by the HTTP worker threads.
#[derive(Debug)]
pub struct FunctionsHost {
    keys: ProjectKeys,
    anon_role: String,
    /// The functions directory, its `config.toml` and fingerprint, looked at now and then.
    watch: Arc<directory::DirectoryWatch>,
    natives: NativeFunctions,
    proxies: proxy::Proxies,
    /// `None` when the runtime's work directory could not be prepared (logged at start).
    deno: Option<DenoRuntime>,
}

impl FunctionsHost {
    /// The host for a gateway listening on `port`: functions call the API back on loopback,
    /// as Supabase's CLI gives them its internal URL.
    pub fn new(
        settings: &Settings,
        keys: ProjectKeys,
        port: u16,
        natives: NativeFunctions,
    ) -> Self {
        let functions = &settings.functions;
        let functions_dir =
            std::path::absolute(&functions.dir).unwrap_or_else(|_| functions.dir.clone());
        let host = match settings.api.host {
            address if address.is_unspecified() => "127.0.0.1".to_owned(),
            address if address.is_ipv6() => format!("[{address}]"),
            address => address.to_string(),
        };
        let data_dir =
            std::path::absolute(&settings.data_dir).unwrap_or_else(|_| settings.data_dir.clone());
        let deno_settings = DenoSettings {
            deno: deno::find_deno(functions.deno_path.as_deref()),
            functions_dir: functions_dir.clone(),
            work_dir: data_dir.join("functions"),
            env: supabase_env(settings, &keys, &format!("http://{host}:{port}")),
            memory_limit_mb: functions.memory_limit_mb,
            timeout: functions.timeout,
        };
        let watch = Arc::new(directory::DirectoryWatch::new(functions_dir));
        let deno = DenoRuntime::new(deno_settings, watch.clone())
            .inspect_err(|error| {
                tracing::error!(%error, "could not prepare the Edge Functions runtime");
            })
            .ok();
        Self {
            anon_role: settings.rest.anon_role.clone(),
            keys,
            watch,
            proxies: proxy::Proxies::new(&functions.proxies, functions.timeout),
            natives,
            deno,
        }
    }
}

/// What Supabase gives every function: `SUPABASE_URL`, the keys, `SUPABASE_DB_URL`.
fn supabase_env(settings: &Settings, keys: &ProjectKeys, url: &str) -> Vec<(String, String)> {
    use secrecy::ExposeSecret;
    vec![
        ("SUPABASE_URL".to_owned(), url.to_owned()),
        ("SUPABASE_ANON_KEY".to_owned(), keys.anon_key().to_owned()),
        (
            "SUPABASE_SERVICE_ROLE_KEY".to_owned(),
            keys.service_role_key().expose_secret().to_owned(),
        ),
        (
            "SUPABASE_DB_URL".to_owned(),
            settings.admin_database_url().expose_secret().to_owned(),
        ),
    ]
}

pub fn routes(config: &mut web::ServiceConfig) {
    config.service(
        web::scope("/functions/v1")
            .route("/{name}", web::to(invoke))
            .route("/{name}/{rest:.*}", web::to(invoke))
            .default_service(web::to(unknown_function)),
    );
}

async fn unknown_function() -> HttpResponse {
    error_response(FunctionError::NotFound)
}

/// Where a request goes.
enum Target {
    Native(std::sync::Arc<dyn NativeFunction>),
    /// A function served at this URL, and whether it takes only valid JWTs.
    Proxy(url::Url, bool),
    /// An Edge Function, and whether it takes only valid JWTs.
    Edge(directory::FunctionSource, bool),
}

/// parse → route → authorize → relay → respond. An unknown name is `404` before any token
/// is looked at, as in Supabase's runtime.
async fn invoke(
    request: HttpRequest,
    body: web::Payload,
    host: Option<web::Data<FunctionsHost>>,
) -> HttpResponse {
    let Some(host) = host else {
        return error_response(FunctionError::NotFound);
    };
    // Parse. `x-region` and `forceFunctionRegion` name a region; there is one here.
    let name = request
        .match_info()
        .get("name")
        .unwrap_or_default()
        .to_owned();
    // Taken from the raw path so percent-escapes reach the function as the client sent them
    // (after the raw name segment, which may itself be escaped).
    let sub_path = request
        .uri()
        .path()
        .strip_prefix("/functions/v1/")
        .and_then(|rest| rest.find('/').map(|slash| &rest[slash..]))
        .unwrap_or_default()
        .to_owned();
    if !functions::ALLOWED_METHODS.contains(&request.method().as_str()) {
        return error_response(FunctionError::MethodNotAllowed);
    }

    // Route.
    let target = if let Some(native) = host.natives.get(&name) {
        Target::Native(native)
    } else {
        let directory = host.watch.current();
        if let Some(url) = host.proxies.target(&name) {
            Target::Proxy(url.clone(), directory.verify_jwt(&name))
        } else if let Some(source) = directory.function(&name) {
            Target::Edge(source.clone(), directory.verify_jwt(&name))
        } else {
            return error_response(FunctionError::NotFound);
        }
    };

    // Authorize. Preflights never carry a token, so they are not checked (as Supabase).
    let verify_jwt = match &target {
        Target::Native(native) => native.verify_jwt(),
        Target::Proxy(_, verify_jwt) | Target::Edge(_, verify_jwt) => *verify_jwt,
    };
    // Without verify_jwt the token is not looked at: Edge Functions read the header
    // themselves, and native ones that take anyone get no caller.
    let caller = if !verify_jwt || request.method() == Method::OPTIONS {
        None
    } else {
        match authorize(&host, &request) {
            Ok(caller) => Some(caller),
            Err(error) => return error_response(error),
        }
    };

    // Relay and respond.
    match target {
        Target::Native(native) => {
            native
                .call(Invocation {
                    request,
                    body,
                    sub_path,
                    caller,
                })
                .await
        }
        Target::Proxy(url, _) => {
            host.proxies
                .relay(&name, &url, &request, body, &sub_path)
                .await
        }
        Target::Edge(source, _) => match &host.deno {
            Some(deno) => deno.relay(&name, &source, &request, body, &sub_path).await,
            None => error_response(FunctionError::BootError),
        },
    }
}

/// The caller's verified identity, or why `verify_jwt` refuses it.
fn authorize(host: &FunctionsHost, request: &HttpRequest) -> Result<Identity, FunctionError> {
    let has_bearer = request
        .extensions()
        .get::<Credentials>()
        .is_some_and(|credentials| credentials.bearer.is_some());
    if !has_bearer {
        return Err(FunctionError::MissingAuthorization);
    }
    let context = IdentityContext {
        verifier: host.keys.verifier(),
        anon_role: &host.anon_role,
    };
    identity::identify(request, &context, chrono::Utc::now().timestamp())
        .map_err(|_| FunctionError::InvalidJwt)
}

/// Writes a gateway-side failure the way the edge runtime does: JSON body plus the
/// `sb-error-code` header (and `x-relay-error: true` when the relay itself failed).
pub fn error_response(error: FunctionError) -> HttpResponse {
    let status = StatusCode::from_u16(error.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = HttpResponse::build(status);
    if let Some(code) = error.sb_error_code() {
        response.insert_header((functions::SB_ERROR_CODE_HEADER, code));
    }
    if error.is_relay_error() {
        response.insert_header((functions::RELAY_ERROR_HEADER, "true"));
    }
    response.json(error.body())
}
