//! Every rest/v1 failure, written in PostgREST's shape: a JSON object with `code`,
//! `details`, `hint` and `message` (all four present, `null` when empty), the status
//! PostgREST uses, `Proxy-Status: PostgREST; error=<code>`, and `WWW-Authenticate` on 401.
//!
//! The SQLSTATE → HTTP table is [`status_for_sqlstate`]. Client mistakes are never 5xx.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use serde_json::{Value, json};

use super::response::set_reason;
use super::schema_cache::{Cardinality, QualifiedName, Relationship};
use crate::identity::jwt::VerifyError;
use crate::identity::time_claims::TimeClaimError;
use crate::identity::{IdentityError, TokenError};

/// A PostgreSQL error as the client sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgError {
    pub code: String,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
}

impl From<&crate::db::wire::ServerError> for PgError {
    fn from(error: &crate::db::wire::ServerError) -> Self {
        Self {
            code: error.code.clone(),
            message: error.message.clone(),
            detail: error.detail.clone(),
            hint: error.hint.clone(),
        }
    }
}

/// Why a JWT was refused (PostgREST's wording).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JwtError {
    /// PGRST301: the token cannot be decoded or verified.
    Invalid {
        message: String,
        details: Option<String>,
    },
    /// PGRST303: the claims are invalid (expired, not yet valid, audience…).
    Claims(String),
}

impl From<IdentityError> for ApiError {
    /// A refused token in PostgREST's words.
    fn from(error: IdentityError) -> Self {
        let invalid = |message: &str, details: Option<&str>| {
            ApiError::Jwt(JwtError::Invalid {
                message: message.to_owned(),
                details: details.map(str::to_owned),
            })
        };
        let claims = |message: &str| ApiError::Jwt(JwtError::Claims(message.to_owned()));
        match error {
            IdentityError::EmptyToken => invalid("Empty JWT is sent in Authorization header", None),
            IdentityError::Token(TokenError::Signature(error)) => match error {
                VerifyError::Parts(n) => {
                    invalid(&format!("Expected 3 parts in JWT; got {n}"), None)
                }
                VerifyError::Malformed => invalid("JWT cryptographic operation failed", None),
                VerifyError::Unsecured => invalid(
                    "Wrong or unsupported encoding algorithm",
                    Some("JWT is unsecured but expected 'alg' was not 'none'"),
                ),
                VerifyError::NoSuitableKey => invalid(
                    "No suitable key or wrong key type",
                    Some("No suitable key was found to decode the JWT"),
                ),
                VerifyError::BadSignature => invalid(
                    "No suitable key or wrong key type",
                    Some("None of the keys was able to decode the JWT"),
                ),
            },
            IdentityError::ClaimsNotObject => claims("Parsing claims failed"),
            IdentityError::Token(TokenError::TimeClaims(error)) => match error {
                TimeClaimError::NotANumber(name) => {
                    claims(&format!("The JWT '{name}' claim must be a number"))
                }
                TimeClaimError::Expired => claims("JWT expired"),
                TimeClaimError::NotYetValid => claims("JWT not yet valid"),
                TimeClaimError::IssuedInFuture => claims("JWT issued at future"),
            },
            IdentityError::Audience => {
                claims("The JWT 'aud' claim must be a string or an array of strings")
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// PGRST100: the query string could not be parsed.
    Parse { message: String, details: String },
    /// PGRST102: the body is not valid for the request (the message says why).
    InvalidBody(String),
    /// PGRST105
    PutFilters,
    /// PGRST101
    RpcMethod(String),
    /// PGRST103 from the request itself (negative limit, inverted Range header).
    InvalidRange(&'static str),
    /// PGRST103 after counting: the offset is beyond the total.
    OffsetBeyondTotal { offset: i64, total: i64 },
    /// PGRST114
    PutLimit,
    /// PGRST115
    PutMismatch,
    /// PGRST106
    InvalidSchema {
        schema: String,
        exposed: Vec<String>,
    },
    /// PGRST107
    UnsupportedMediaType(Vec<String>),
    /// PGRST108
    NotEmbedded(String),
    /// PGRST116
    Singular { rows: i64 },
    /// PGRST117
    UnsupportedMethod(String),
    /// PGRST118
    RelatedOrderNotToOne { relation: String, parent: String },
    /// PGRST122
    InvalidPreferences(Vec<String>),
    /// PGRST123
    AggregatesDisabled,
    /// PGRST124
    MaxAffected { rows: i64 },
    /// PGRST128
    MaxAffectedNeedsSet,
    /// PGRST125
    InvalidPath,
    /// PGRST127
    NotImplemented(String),
    /// PGRST200
    NoRelationship {
        schema: String,
        origin: String,
        target: String,
        hint: Option<String>,
        suggestion: Option<String>,
    },
    /// PGRST201 (HTTP 300)
    AmbiguousRelationship {
        origin: String,
        target: String,
        candidates: Vec<Relationship>,
    },
    /// PGRST202
    FunctionNotFound {
        message: String,
        details: String,
        hint: Option<String>,
    },
    /// PGRST203 (HTTP 300)
    AmbiguousFunction(Vec<String>),
    /// PGRST204
    UnknownColumn { column: String, table: String },
    /// PGRST205
    TableNotFound {
        table: QualifiedName,
        suggestion: Option<String>,
    },
    /// PGRST301 / PGRST303
    Jwt(JwtError),
    /// A PostgreSQL error; `anonymous` is whether the request ran as the anon role.
    Database { error: PgError, anonymous: bool },
    /// PGRST000: no connection to the database could be opened (it is down, restarting or
    /// refusing logins); the details say why.
    ConnectionFailed(String),
    /// PGRST001: the connection broke while the request used it (the server restarted or
    /// hung up). Whether a write that was under way committed is unknown to the gateway.
    ConnectionLost(String),
    /// PGRST003: no pooled connection became free in time.
    PoolTimeout,
    /// `RAISE SQLSTATE 'PGRST'` with a valid JSON message and detail: full control.
    Raised {
        status: u16,
        /// The status line's reason phrase (`status_text`), when the raise set one.
        status_text: Option<String>,
        headers: Vec<(String, String)>,
        body: Value,
    },
    /// PGRST121: a `RAISE SQLSTATE 'PGRST'` whose JSON could not be used.
    RaiseUnparsable { details: String, hint: String },
    /// The request body is over the configured limit (HTTP 413).
    PayloadTooLarge(usize),
    /// PGRST111
    InvalidResponseHeaders,
    /// PGRST112
    InvalidResponseStatus,
    /// Anything unexpected; logged, never shown in detail.
    Internal(String),
}

impl ApiError {
    pub fn parse(message: impl Into<String>, details: impl Into<String>) -> Self {
        ApiError::Parse {
            message: message.into(),
            details: details.into(),
        }
    }

    pub fn status(&self) -> StatusCode {
        self.describe().status
    }

    pub fn code(&self) -> String {
        self.describe().code
    }

    /// Everything the client is told about this error, in one place per error.
    fn describe(&self) -> Described {
        use StatusCode as S;
        match self {
            ApiError::Parse { message, details } => {
                Described::new(S::BAD_REQUEST, "PGRST100", message).details(details.as_str())
            }
            ApiError::RpcMethod(method) => Described::new(
                S::METHOD_NOT_ALLOWED,
                "PGRST101",
                format!("Cannot use the {method} method on RPC"),
            ),
            ApiError::InvalidBody(message) => Described::new(S::BAD_REQUEST, "PGRST102", message),
            ApiError::InvalidRange(details) => Described::new(
                S::RANGE_NOT_SATISFIABLE,
                "PGRST103",
                "Requested range not satisfiable",
            )
            .details(*details),
            ApiError::OffsetBeyondTotal { offset, total } => Described::new(
                S::RANGE_NOT_SATISFIABLE,
                "PGRST103",
                "Requested range not satisfiable",
            )
            .details(format!(
                "An offset of {offset} was requested, but there are only {total} rows."
            )),
            ApiError::PutFilters => Described::new(
                S::METHOD_NOT_ALLOWED,
                "PGRST105",
                "Filters must include all and only primary key columns with 'eq' operators",
            ),
            ApiError::InvalidSchema { schema, exposed } => Described::new(
                S::NOT_ACCEPTABLE,
                "PGRST106",
                format!("Invalid schema: {schema}"),
            )
            .hint(format!(
                "Only the following schemas are exposed: {}",
                exposed.join(", ")
            )),
            ApiError::UnsupportedMediaType(types) => Described::new(
                S::NOT_ACCEPTABLE,
                "PGRST107",
                format!(
                    "None of these media types are available: {}",
                    types.join(", ")
                ),
            ),
            ApiError::NotEmbedded(name) => Described::new(
                S::BAD_REQUEST,
                "PGRST108",
                format!("'{name}' is not an embedded resource in this request"),
            )
            .hint(format!(
                "Verify that '{name}' is included in the 'select' query parameter."
            )),
            ApiError::InvalidResponseHeaders => Described::new(
                S::INTERNAL_SERVER_ERROR,
                "PGRST111",
                "response.headers guc must be a JSON array composed of objects with a single key and a string value",
            ),
            ApiError::InvalidResponseStatus => Described::new(
                S::INTERNAL_SERVER_ERROR,
                "PGRST112",
                "response.status guc must be a valid status code",
            ),
            ApiError::PutLimit => Described::new(
                S::BAD_REQUEST,
                "PGRST114",
                "limit/offset querystring parameters are not allowed for PUT",
            ),
            ApiError::PutMismatch => Described::new(
                S::BAD_REQUEST,
                "PGRST115",
                "Payload values do not match URL in primary key column(s)",
            ),
            ApiError::Singular { rows } => Described::new(
                S::NOT_ACCEPTABLE,
                "PGRST116",
                "Cannot coerce the result to a single JSON object",
            )
            .details(format!("The result contains {rows} rows")),
            ApiError::UnsupportedMethod(method) => Described::new(
                S::METHOD_NOT_ALLOWED,
                "PGRST117",
                format!("Unsupported HTTP method: {method}"),
            ),
            ApiError::RelatedOrderNotToOne { relation, parent } => Described::new(
                S::BAD_REQUEST,
                "PGRST118",
                format!("A related order on '{relation}' is not possible"),
            )
            .details(format!(
                "'{parent}' and '{relation}' do not form a many-to-one or one-to-one relationship"
            )),
            ApiError::RaiseUnparsable { details, hint } => Described::new(
                S::INTERNAL_SERVER_ERROR,
                "PGRST121",
                "Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error",
            )
            .details(details.as_str())
            .hint(hint.clone()),
            ApiError::InvalidPreferences(invalid) => Described::new(
                S::BAD_REQUEST,
                "PGRST122",
                "Invalid preferences given with handling=strict",
            )
            .details(format!("Invalid preferences: {}", invalid.join(", "))),
            ApiError::AggregatesDisabled => Described::new(
                S::BAD_REQUEST,
                "PGRST123",
                "Use of aggregate functions is not allowed",
            ),
            ApiError::MaxAffected { rows } => Described::new(
                S::BAD_REQUEST,
                "PGRST124",
                "Query result exceeds max-affected preference constraint",
            )
            .details(format!("The query affects {rows} rows")),
            ApiError::InvalidPath => Described::new(
                S::NOT_FOUND,
                "PGRST125",
                "Invalid path specified in request URL",
            ),
            ApiError::NotImplemented(details) => {
                Described::new(S::BAD_REQUEST, "PGRST127", "Feature not implemented").details(details.as_str())
            }
            ApiError::MaxAffectedNeedsSet => Described::new(
                S::BAD_REQUEST,
                "PGRST128",
                "Function must return SETOF or TABLE when max-affected preference is used with handling=strict",
            ),
            ApiError::NoRelationship {
                schema,
                origin,
                target,
                hint,
                suggestion,
            } => Described::new(
                S::BAD_REQUEST,
                "PGRST200",
                format!(
                    "Could not find a relationship between '{origin}' and '{target}' in the schema cache"
                ),
            )
            .details(format!(
                "Searched for a foreign key relationship between '{origin}' and '{target}'{} in the schema '{schema}', but no matches were found.",
                hint.as_ref()
                    .map(|hint| format!(" using the hint '{hint}'"))
                    .unwrap_or_default()
            ))
            .hint(suggestion.clone()),
            ApiError::AmbiguousRelationship {
                origin,
                target,
                candidates,
            } => {
                let details: Vec<Value> = candidates.iter().map(describe_relationship).collect();
                let options: Vec<String> = candidates
                    .iter()
                    .map(|candidate| format!("'{target}!{}'", hint_for(candidate)))
                    .collect();
                Described::new(
                    S::MULTIPLE_CHOICES,
                    "PGRST201",
                    format!(
                        "Could not embed because more than one relationship was found for '{origin}' and '{target}'"
                    ),
                )
                .details(Value::Array(details))
                .hint(format!(
                    "Try changing '{target}' to one of the following: {}. Find the desired relationship in the 'details' key.",
                    options.join(", ")
                ))
            }
            ApiError::FunctionNotFound {
                message,
                details,
                hint,
            } => Described::new(S::NOT_FOUND, "PGRST202", message)
                .details(details.as_str())
                .hint(hint.clone()),
            ApiError::AmbiguousFunction(candidates) => Described::new(
                S::MULTIPLE_CHOICES,
                "PGRST203",
                format!(
                    "Could not choose the best candidate function between: {}",
                    candidates.join(", ")
                ),
            )
            .hint("Try renaming the parameters or the function itself in the database so function overloading can be resolved".to_owned()),
            ApiError::UnknownColumn { column, table } => Described::new(
                S::BAD_REQUEST,
                "PGRST204",
                format!("Could not find the '{column}' column of '{table}' in the schema cache"),
            ),
            ApiError::TableNotFound { table, suggestion } => Described::new(
                S::NOT_FOUND,
                "PGRST205",
                format!("Could not find the table '{table}' in the schema cache"),
            )
            .hint(
                suggestion
                    .as_ref()
                    .map(|name| format!("Perhaps you meant the table '{}.{name}'", table.schema)),
            ),
            ApiError::Jwt(JwtError::Invalid { message, details }) => {
                Described::new(S::UNAUTHORIZED, "PGRST301", message).details(details.clone())
            }
            ApiError::Jwt(JwtError::Claims(message)) => Described::new(S::UNAUTHORIZED, "PGRST303", message),
            ApiError::PayloadTooLarge(limit) => {
                Described::new(S::PAYLOAD_TOO_LARGE, "PGRST413", "Payload Too Large")
                    .details(format!("The request body exceeds the limit of {limit} bytes"))
                    .hint("Send a smaller body, or raise REST_MAX_BODY_SIZE".to_owned())
            }
            ApiError::Database { error, anonymous } => Described::new(
                status_for_sqlstate(error, *anonymous),
                error.code.clone(),
                error.message.clone(),
            )
            .details(error.detail.clone())
            .hint(error.hint.clone()),
            ApiError::ConnectionFailed(details) => Described::new(
                S::SERVICE_UNAVAILABLE,
                "PGRST000",
                "Database connection error.",
            )
            .details(details.as_str()),
            ApiError::ConnectionLost(details) => Described::new(
                S::SERVICE_UNAVAILABLE,
                "PGRST001",
                "Database client error. Retrying the connection.",
            )
            .details(details.as_str()),
            ApiError::PoolTimeout => Described::new(
                S::GATEWAY_TIMEOUT,
                "PGRST003",
                "Timed out acquiring connection from connection pool.",
            ),
            ApiError::Raised { status, body, .. } => Described::new(
                StatusCode::from_u16(*status).unwrap_or(S::INTERNAL_SERVER_ERROR),
                body["code"].as_str().unwrap_or_default(),
                body["message"].as_str().unwrap_or_default(),
            )
            .details(body.get("details").cloned().unwrap_or(Value::Null))
            .hint(body.get("hint").and_then(Value::as_str).map(str::to_owned)),
            ApiError::Internal(_) => {
                Described::new(S::INTERNAL_SERVER_ERROR, "PGRSTX00", "Internal server error")
            }
        }
    }

    /// The JSON body.
    pub fn body(&self) -> Value {
        self.describe().body()
    }

    pub fn response(&self) -> HttpResponse {
        if let ApiError::Internal(cause) = self {
            tracing::error!(%cause, "rest/v1 internal error");
        }
        let described = self.describe();
        let status = described.status;
        let mut builder = HttpResponse::build(status);
        builder.insert_header((
            "Proxy-Status",
            format!("PostgREST; error={}", described.code),
        ));
        match self {
            ApiError::Raised { headers, .. } => {
                for (name, value) in headers {
                    builder.append_header((name.as_str(), value.as_str()));
                }
            }
            ApiError::Jwt(JwtError::Invalid { message, .. } | JwtError::Claims(message)) => {
                builder.insert_header((
                    "WWW-Authenticate",
                    format!(
                        "Bearer error=\"invalid_token\", error_description=\"{}\"",
                        message.replace('\\', "\\\\").replace('"', "\\\"")
                    ),
                ));
            }
            _ if status == StatusCode::UNAUTHORIZED => {
                builder.insert_header(("WWW-Authenticate", "Bearer"));
            }
            _ => {}
        }
        // PostgREST marks every 503 (lost connections, `08`/`53` SQLSTATEs, `57P01`, a raised
        // 503) as worth retrying at once; postgrest-js retries GETs after `Retry-After`
        // seconds. A header the raise set itself wins.
        let raised_retry_after = matches!(self, ApiError::Raised { headers, .. }
            if headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("retry-after")));
        if status == StatusCode::SERVICE_UNAVAILABLE && !raised_retry_after {
            builder.insert_header(("Retry-After", "0"));
        }
        let mut response = builder
            .content_type("application/json; charset=utf-8")
            .body(described.body().to_string());
        set_reason(&mut response, self.reason());
        response
    }

    /// The status line's own reason phrase, as PostgREST sends it: a `PTxyz` error's
    /// message, or a `RAISE SQLSTATE 'PGRST'`'s `status_text`.
    fn reason(&self) -> Option<&str> {
        match self {
            ApiError::Raised { status_text, .. } => status_text.as_deref(),
            ApiError::Database { error, .. }
                if error
                    .code
                    .strip_prefix("PT")
                    .is_some_and(|n| n.parse::<u16>().is_ok()) =>
            {
                Some(&error.message)
            }
            _ => None,
        }
    }
}

impl ApiError {
    /// A PostgreSQL error as the client gets it: `RAISE SQLSTATE 'PGRST'` with JSON message
    /// and detail takes full control of status, headers and body; everything else keeps its
    /// SQLSTATE.
    pub fn from_database(error: PgError, anonymous: bool) -> ApiError {
        if error.code != "PGRST" {
            return ApiError::Database { error, anonymous };
        }
        let message_hint = "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.";
        let detail_hint = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.";
        let body = serde_json::from_str::<Value>(&error.message)
            .ok()
            .filter(|body| {
                body["code"].is_string()
                    && body["message"].is_string()
                    && body
                        .get("details")
                        .is_none_or(|d| d.is_string() || d.is_null())
                    && body
                        .get("hint")
                        .is_none_or(|h| h.is_string() || h.is_null())
            });
        let Some(body) = body else {
            return ApiError::RaiseUnparsable {
                details: format!("Invalid JSON value for MESSAGE: '{}'", error.message),
                hint: message_hint.to_owned(),
            };
        };
        let Some(raw_detail) = &error.detail else {
            return ApiError::RaiseUnparsable {
                details: "DETAIL is missing in the RAISE statement".to_owned(),
                hint: detail_hint.to_owned(),
            };
        };
        let detail = serde_json::from_str::<Value>(raw_detail).ok();
        let status = detail
            .as_ref()
            .and_then(|d| d["status"].as_u64())
            .and_then(|s| u16::try_from(s).ok());
        // `status_text` may be missing or null; anything but a string there spoils the DETAIL.
        let status_text = detail.as_ref().map(|d| match d.get("status_text") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(()),
        });
        let headers = detail
            .as_ref()
            .and_then(|d| d["headers"].as_object())
            .and_then(|h| {
                h.iter()
                    .map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                    .collect::<Option<Vec<_>>>()
            });
        match (status, status_text, headers) {
            (Some(status), Some(Ok(status_text)), Some(mut headers)) => {
                headers.sort();
                ApiError::Raised {
                    status,
                    status_text,
                    headers,
                    body: json!({
                        "code": body["code"],
                        "message": body["message"],
                        "details": body.get("details").cloned().unwrap_or(Value::Null),
                        "hint": body.get("hint").cloned().unwrap_or(Value::Null),
                    }),
                }
            }
            _ => ApiError::RaiseUnparsable {
                details: format!("Invalid JSON value for DETAIL: '{raw_detail}'"),
                hint: detail_hint.to_owned(),
            },
        }
    }
}

/// What [`ApiError::describe`] says of an error: its status and the four keys of its body.
struct Described {
    status: StatusCode,
    code: String,
    message: String,
    /// A string, `null`, or structured (PGRST201).
    details: Value,
    hint: Option<String>,
}

impl Described {
    fn new(status: StatusCode, code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            status,
            code: code.into(),
            message: message.into(),
            details: Value::Null,
            hint: None,
        }
    }

    /// Strings become JSON strings; `None` stays `null`.
    fn details(mut self, details: impl Into<Value>) -> Self {
        self.details = details.into();
        self
    }

    fn hint(mut self, hint: impl Into<Option<String>>) -> Self {
        self.hint = hint.into();
        self
    }

    fn body(self) -> Value {
        json!({
            "code": self.code,
            "message": self.message,
            "details": self.details,
            "hint": self.hint,
        })
    }
}

/// PostgREST's SQLSTATE → HTTP status table.
pub fn status_for_sqlstate(error: &PgError, anonymous: bool) -> StatusCode {
    let code = error.code.as_str();
    let class = code.get(..2).unwrap_or("");
    let status = |n: u16| StatusCode::from_u16(n).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    // `PTxyz` sets the status; a `PT` not followed by a number is a 500, as in PostgREST.
    if let Some(custom) = code.strip_prefix("PT") {
        return custom
            .parse::<u16>()
            .map_or(StatusCode::INTERNAL_SERVER_ERROR, status);
    }
    match (class, code) {
        ("08", _) => status(503),
        ("09", _) => status(500),
        ("0L", _) | ("0P", _) => status(403),
        (_, "23503") | (_, "23505") => status(409),
        (_, "25006") => status(405),
        (_, "21000") if error.message.ends_with("requires a WHERE clause") => status(400),
        (_, "21000") => status(500),
        (_, "22023")
            if error.message.starts_with("role \"")
                && error.message.ends_with("does not exist") =>
        {
            status(401)
        }
        (_, "53400") => status(500),
        ("53", _) | (_, "57P01") => status(503),
        ("25", _)
        | ("2D", _)
        | ("38", _)
        | ("39", _)
        | ("3B", _)
        | ("40", _)
        | ("54", _)
        | ("55", _)
        | ("57", _)
        | ("58", _)
        | ("F0", _)
        | ("HV", _)
        | ("XX", _) => status(500),
        (_, "P0001") => status(400),
        ("P0", _) => status(500),
        (_, "42P17") => status(500),
        ("28", _) => status(403),
        (_, "42883") if error.message.starts_with("function xmlagg(") => status(406),
        (_, "42883") | (_, "42P01") => status(404),
        (_, "42501") if anonymous => status(401),
        (_, "42501") => status(403),
        _ => status(400),
    }
}

/// One entry of PGRST201's `details`.
fn describe_relationship(relationship: &Relationship) -> Value {
    let Relationship::ForeignKey {
        table,
        foreign_table,
        cardinality,
        ..
    } = relationship
    else {
        return json!({});
    };
    let columns = |pairs: &[(String, String)], first: bool| -> String {
        pairs
            .iter()
            .map(|(a, b)| if first { a.as_str() } else { b.as_str() })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (kind, description) = match cardinality {
        Cardinality::ManyToOne {
            constraint,
            columns: pairs,
        }
        | Cardinality::OneToMany {
            constraint,
            columns: pairs,
        }
        | Cardinality::OneToOne {
            constraint,
            columns: pairs,
            ..
        } => (
            match cardinality {
                Cardinality::ManyToOne { .. } => "many-to-one",
                Cardinality::OneToMany { .. } => "one-to-many",
                _ => "one-to-one",
            },
            format!(
                "{constraint} using {}({}) and {}({})",
                table.name,
                columns(pairs, true),
                foreign_table.name,
                columns(pairs, false)
            ),
        ),
        Cardinality::ManyToMany(junction) => (
            "many-to-many",
            format!(
                "{} using {}({}) and {}({})",
                junction.table.name,
                junction.constraint_source,
                columns(&junction.columns_source, false),
                junction.constraint_target,
                columns(&junction.columns_target, false)
            ),
        ),
    };
    json!({
        "cardinality": kind,
        "embedding": format!("{} with {}", table.name, foreign_table.name),
        "relationship": description,
    })
}

/// What to put after `!` to pick this relationship.
fn hint_for(relationship: &Relationship) -> String {
    match relationship {
        Relationship::ForeignKey { cardinality, .. } => match cardinality {
            Cardinality::ManyToOne { constraint, .. }
            | Cardinality::OneToMany { constraint, .. }
            | Cardinality::OneToOne { constraint, .. } => constraint.clone(),
            Cardinality::ManyToMany(junction) => junction.table.name.clone(),
        },
        Relationship::Computed { function, .. } => function.name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pg(code: &str, message: &str) -> PgError {
        PgError {
            code: code.into(),
            message: message.into(),
            detail: None,
            hint: None,
        }
    }

    fn raise(detail: &str) -> ApiError {
        let error = PgError {
            detail: Some(detail.into()),
            ..pg("PGRST", r#"{"code":"C1","message":"m"}"#)
        };
        ApiError::from_database(error, false)
    }

    #[test]
    fn raised_status_text_is_the_reason_phrase() {
        let with_text = raise(r#"{"status":409,"status_text":"Curso cerrado","headers":{}}"#);
        assert_eq!(
            (with_text.status().as_u16(), with_text.reason()),
            (409, Some("Curso cerrado"))
        );
        for detail in [
            r#"{"status":409,"headers":{}}"#,
            r#"{"status":409,"status_text":null,"headers":{}}"#,
        ] {
            let without = raise(detail);
            assert_eq!((without.status().as_u16(), without.reason()), (409, None));
        }
        // As PostgREST's parser: a status_text that is not a string spoils the DETAIL.
        assert_eq!(
            raise(r#"{"status":409,"status_text":7,"headers":{}}"#).code(),
            "PGRST121"
        );
        let pt = ApiError::from_database(pg("PT402", "Estrellas insuficientes"), false);
        assert_eq!(pt.reason(), Some("Estrellas insuficientes"));
        let not_a_number = ApiError::from_database(pg("PT40A", "x"), false);
        assert_eq!(not_a_number.reason(), None);
        assert_eq!(
            ApiError::from_database(pg("P0001", "x"), false).reason(),
            None
        );
    }

    #[test]
    fn sqlstates_map_like_postgrest() {
        let cases = [
            ("23505", "dup", false, 409),
            ("23503", "fk", false, 409),
            ("23502", "null", false, 400),
            ("22P02", "invalid input", false, 400),
            ("42501", "permission denied", true, 401),
            ("42501", "permission denied", false, 403),
            ("P0001", "raised", false, 400),
            ("PT402", "pay", false, 402),
            ("PT40A", "not a number", false, 500),
            ("42P01", "no table", false, 404),
            ("42883", "function f() does not exist", false, 404),
            ("42883", "function xmlagg(x) does not exist", false, 406),
            ("25006", "read-only", false, 405),
            ("21000", "DELETE requires a WHERE clause", false, 400),
            ("21000", "more than one row", false, 500),
            ("22023", "role \"x\" does not exist", false, 401),
            ("22023", "invalid parameter", false, 400),
            ("40001", "serialization", false, 500),
            (
                "57014",
                "canceling statement due to statement timeout",
                false,
                500,
            ),
            ("57P01", "terminating", false, 503),
            ("53300", "too many connections", false, 503),
            ("08006", "connection failure", false, 503),
            ("28P01", "auth", false, 403),
            ("42703", "column x does not exist", false, 400),
        ];
        for (code, message, anonymous, expected) in cases {
            assert_eq!(
                status_for_sqlstate(&pg(code, message), anonymous).as_u16(),
                expected,
                "{code} {message}"
            );
        }
    }

    #[test]
    fn bodies_have_all_four_keys_in_order() {
        let body = ApiError::Singular { rows: 0 }.body();
        assert_eq!(
            body.to_string(),
            r#"{"code":"PGRST116","details":"The result contains 0 rows","hint":null,"message":"Cannot coerce the result to a single JSON object"}"#
        );
        let body = ApiError::TableNotFound {
            table: QualifiedName::new("public", "cursos"),
            suggestion: Some("courses".into()),
        }
        .body();
        assert_eq!(body["hint"], "Perhaps you meant the table 'public.courses'");
        assert_eq!(
            body["message"],
            "Could not find the table 'public.cursos' in the schema cache"
        );
    }

    #[test]
    fn jwt_errors_carry_www_authenticate() {
        let response = ApiError::Jwt(JwtError::Claims("JWT expired".into())).response();
        assert_eq!(response.status(), 401);
        assert_eq!(
            response.headers().get("www-authenticate").unwrap(),
            "Bearer error=\"invalid_token\", error_description=\"JWT expired\""
        );
        let response = ApiError::Database {
            error: pg("42501", "permission denied for table x"),
            anonymous: true,
        }
        .response();
        assert_eq!(response.status(), 401);
        assert_eq!(
            response.headers().get("www-authenticate").unwrap(),
            "Bearer"
        );
        assert_eq!(
            response.headers().get("proxy-status").unwrap(),
            "PostgREST; error=42501"
        );
    }

    #[test]
    fn every_503_says_retry_at_once_and_others_do_not() {
        let retry_after = |error: ApiError| {
            let response = error.response();
            let header = response.headers().get("retry-after");
            (
                response.status().as_u16(),
                header.map(|value| value.to_str().unwrap().to_owned()),
            )
        };
        let zero = Some("0".to_owned());
        for error in [
            ApiError::ConnectionFailed("refused".into()),
            ApiError::ConnectionLost("reset".into()),
            ApiError::Database {
                error: pg(
                    "57P01",
                    "terminating connection due to administrator command",
                ),
                anonymous: false,
            },
            ApiError::Database {
                error: pg("53300", "too many connections"),
                anonymous: false,
            },
            ApiError::Database {
                error: pg("PT503", "maintenance"),
                anonymous: false,
            },
        ] {
            assert_eq!(retry_after(error), (503, zero.clone()));
        }
        let raised = |headers: Vec<(String, String)>| ApiError::Raised {
            status: 503,
            status_text: None,
            headers,
            body: json!({"code": "123", "message": "busy"}),
        };
        assert_eq!(retry_after(raised(vec![])), (503, zero.clone()));
        let own = vec![("Retry-After".to_owned(), "30".to_owned())];
        assert_eq!(retry_after(raised(own)), (503, Some("30".to_owned())));
        assert_eq!(retry_after(ApiError::PoolTimeout), (504, None));
        let internal = ApiError::Internal("bug".into());
        assert_eq!(internal.code(), "PGRSTX00");
        assert_eq!(retry_after(internal), (500, None));
    }

    #[test]
    fn connection_failures_are_told_apart_like_postgrest() {
        let failed = ApiError::ConnectionFailed("the database system is starting up".into());
        assert_eq!(
            failed.body(),
            json!({"code": "PGRST000", "message": "Database connection error.",
                   "details": "the database system is starting up", "hint": null})
        );
        let lost = ApiError::ConnectionLost("database connection closed".into());
        assert_eq!(
            lost.body(),
            json!({"code": "PGRST001",
                   "message": "Database client error. Retrying the connection.",
                   "details": "database connection closed", "hint": null})
        );
    }
}
