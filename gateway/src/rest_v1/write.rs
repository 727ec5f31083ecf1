//! POST, PUT, PATCH and DELETE on a table or view: body, plan, SQL, one read-write
//! transaction whose end depends on the outcome, response.

use actix_web::HttpResponse;
use actix_web::http::{Method, header};

use super::Request;
use super::error::{ApiError, PgError};
use super::execute::{self, OutcomeChecks, StatementOutcome, TransactionMode};
use super::plan::explain;
use super::plan::mutate::plan_mutation;
use super::plan::negotiate::{Produced, negotiate};
use super::plan::read::find_relation;
use super::request::media::MediaType;
use super::request::payload::{check_columns_body, table_body};
use super::request::preferences::{Action, Count, Preferences, Resolution, Return, Tx};
use super::response::{CONTENT_PROFILE, PREFERENCE_APPLIED, ResponseParts};
use super::settings::RestConfig;
use super::sql::mutate::mutate_statement;
use super::sql::read::BodyFormat;

/// Whether the transaction ends in a rollback (`Prefer: tx=…` or `db-tx-end`).
pub fn rollback_wanted(config: &RestConfig, preferences: &Preferences) -> bool {
    match (config.tx_end.allows_override(), preferences.tx) {
        (true, Some(Tx::Rollback)) => true,
        (true, Some(Tx::Commit)) => false,
        _ => config.tx_end.rolls_back_by_default(),
    }
}

pub async fn handle(request: &Request, table: &str, body: &[u8]) -> Result<HttpResponse, ApiError> {
    let api = &request.api;
    let cache = &request.cache;
    let method = api.method.clone();
    if method == Method::PUT && !api.range.is_all() {
        return Err(ApiError::PutLimit);
    }
    // The body is read before anything is looked up, as in PostgREST.
    let payload = match method {
        Method::DELETE => None,
        Method::PUT => Some(table_body(&api.content_type, body, None)?),
        _ => Some(table_body(
            &api.content_type,
            body,
            api.query.columns.as_deref(),
        )?),
    };

    let relation = find_relation(cache, &api.schema, table)?;
    let plan = plan_mutation(cache, relation, api, payload)?;
    api.preferences.check_strict()?;
    let negotiated = negotiate(
        &api.accept,
        &Produced {
            handlers: &cache.media_handlers,
            target: &relation.name,
            default_select: plan.selects_whole_rows,
            plan_enabled: cache.config.plan_enabled,
        },
    )?;
    let (statement, shape) = mutate_statement(
        &plan,
        &if plan.representation.is_some() {
            negotiated.body
        } else {
            BodyFormat::None
        },
    );

    let singular = matches!(
        negotiated.media,
        MediaType::Singular | MediaType::SingularStripped
    );
    let max_affected = api.preferences.max_affected();
    let rollback = rollback_wanted(&cache.config, &api.preferences);
    let checks = OutcomeChecks {
        put: method == Method::PUT,
        singular: singular && method != Method::PUT,
        max_affected: if matches!(method, Method::PATCH | Method::DELETE) {
            max_affected
        } else {
            None
        },
        rollback,
    };
    if api.query.columns.is_some() && method != Method::PUT && api.content_type == MediaType::Json {
        check_columns_body(body, request.context.anonymous)?;
    }
    // pg-safeupdate's answer, given here for the statements the gateway builds: nothing runs.
    // (PostgREST would run the pre-request function first; the request fails either way.)
    if let Some(command) = plan.unfiltered_command() {
        return Err(ApiError::Database {
            error: PgError {
                code: "21000".to_owned(),
                message: format!("{command} requires a WHERE clause"),
                detail: None,
                hint: None,
            },
            anonymous: request.context.anonymous,
        });
    }
    let mode = TransactionMode {
        read_only: false,
        isolation: "READ COMMITTED",
    };
    if let Some(plan) = &negotiated.plan {
        let context = request.context.clone();
        return explain::answer(request, context, mode, rollback, statement, plan).await;
    }
    let outcome = execute::run(
        &request.pool,
        &request.batches,
        request.context.clone(),
        mode,
        statement,
        shape,
        checks,
    )
    .await?;

    respond(
        request,
        table,
        &plan_flags(&plan),
        &negotiated.media,
        outcome,
    )
}

/// What the response needs to know about the plan.
struct PlanFlags {
    representation: bool,
    upsert_merge: bool,
    resolution_applies: bool,
}

fn plan_flags(plan: &super::plan::mutate::MutatePlan) -> PlanFlags {
    let on_conflict = match &plan.mutation {
        super::plan::mutate::Mutation::Insert { on_conflict, .. } => on_conflict.as_ref(),
        _ => None,
    };
    PlanFlags {
        representation: plan.representation.is_some(),
        upsert_merge: matches!(on_conflict, Some((_, Resolution::MergeDuplicates))),
        resolution_applies: on_conflict.is_some(),
    }
}

fn respond(
    request: &Request,
    table: &str,
    flags: &PlanFlags,
    media: &MediaType,
    outcome: StatementOutcome,
) -> Result<HttpResponse, ApiError> {
    let api = &request.api;
    let method = &api.method;
    let rows = outcome.page_total;
    let counted = matches!(api.preferences.count, Some(Count::Exact | Count::Estimated));
    let total = if counted {
        rows.to_string()
    } else {
        "*".to_owned()
    };
    let action = match *method {
        Method::POST => Action::Insert,
        Method::PATCH => Action::Update,
        Method::PUT => Action::Upsert,
        _ => Action::Delete,
    };
    let applied = api.preferences.applied(
        action,
        request.cache.config.tx_end.allows_override(),
        flags.resolution_applies,
    );
    let inserted = outcome.inserted.unwrap_or(0);
    let status = match *method {
        Method::POST if flags.upsert_merge && inserted <= 0 => 200,
        Method::POST => 201,
        Method::PUT if flags.representation => {
            if inserted > 0 {
                201
            } else {
                200
            }
        }
        _ if flags.representation => 200,
        Method::PUT | Method::PATCH | Method::DELETE => 204,
        _ => 201,
    };
    let mut parts = ResponseParts::new(status);
    if *method == Method::POST
        && api.preferences.representation == Some(Return::HeadersOnly)
        && !outcome.header.is_empty()
    {
        parts.header(header::LOCATION, location(table, &outcome.header));
    }
    match *method {
        Method::PUT => {}
        Method::PATCH if rows > 0 => {
            parts.header(header::CONTENT_RANGE, format!("0-{}/{total}", rows - 1));
        }
        _ => {
            parts.header(header::CONTENT_RANGE, format!("*/{total}"));
        }
    }
    if let Some(applied) = applied {
        parts.header(PREFERENCE_APPLIED, applied);
    }
    if flags.representation {
        parts.header(header::CONTENT_TYPE, media.content_type());
        if api.content_profile {
            parts.header(CONTENT_PROFILE, api.schema.clone());
        }
        parts.body = Some(outcome.body);
    }
    parts.apply_gucs(
        outcome.response_headers.as_deref(),
        outcome.response_status.as_deref(),
    )?;
    Ok(parts.into_response())
}

/// `/table?pk=eq.value&…`, keys and values percent-encoded (unreserved characters kept).
fn location(table: &str, items: &[String]) -> String {
    let encode = |text: &str| -> String {
        text.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                other => format!("%{other:02X}"),
            })
            .collect()
    };
    let query: Vec<String> = items
        .iter()
        .map(|item| match item.split_once('=') {
            Some((key, value)) => format!("{}={}", encode(key), encode(value)),
            None => encode(item),
        })
        .collect();
    format!("/{table}?{}", query.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_encodes_like_postgrest() {
        assert_eq!(
            location("projects", &["id=eq.11".into()]),
            "/projects?id=eq.11"
        );
        assert_eq!(
            location("simple_pk", &["k=eq.Rock & R+ll".into()]),
            "/simple_pk?k=eq.Rock%20%26%20R%2Bll"
        );
        assert_eq!(
            location("t", &["a=eq.1".into(), "b=is.null".into()]),
            "/t?a=eq.1&b=is.null"
        );
    }
}
