//! `/rpc/<fn>`: arguments, overload resolution, plan, SQL, one transaction (read-only for
//! GET/HEAD and for stable or immutable functions), response shaped like a read.

use std::sync::Arc;

use actix_web::HttpResponse;
use actix_web::http::{Method, header};

use super::Request;
use super::error::ApiError;
use super::execute::{self, OutcomeChecks, RequestContext, ResultShape, TransactionMode};
use super::plan::call::{Invocation, plan_call, resolve};
use super::plan::explain;
use super::plan::negotiate::{Produced, negotiate};
use super::request::media::MediaType;
use super::request::payload::{call_body, check_columns_body};
use super::request::preferences::{Action, Count};
use super::response::{PREFERENCE_APPLIED, PageEnd, ResponseParts, options as options_response};
use super::schema_cache::Volatility;
use super::sql::call::call_statement;
use super::sql::read::{BodyFormat, CountMode};
use super::write::rollback_wanted;

pub async fn handle(request: &Request, name: &str, body: &[u8]) -> Result<HttpResponse, ApiError> {
    let api = &request.api;
    let cache = &request.cache;
    let config = &cache.config;
    let post = api.method == Method::POST;

    // 1. Arguments: the body of a POST (read before anything is looked up), else the
    //    query string.
    let posted = if post {
        Some(call_body(
            &api.content_type,
            body,
            api.query.columns.as_deref(),
        )?)
    } else {
        None
    };
    let invocation = match &posted {
        Some(body) => Invocation::Body(body),
        None => Invocation::Query(&api.query.rpc_args),
    };

    // 2. The function and the read over its result.
    let json_post = post && api.content_type == MediaType::Json;
    let single_object = json_post && api.preferences.single_object;
    let routine = resolve(
        cache,
        &api.schema,
        name,
        &invocation,
        json_post,
        single_object,
    )?;
    let plan = plan_call(cache, routine, api, &invocation, single_object)?;
    // Handlers are looked up for the relation of the result's rows, else for the function
    // itself, by name in the function's schema (as PostgREST does).
    let target = super::schema_cache::QualifiedName::new(
        routine.name.schema.clone(),
        routine
            .returns
            .relation
            .as_ref()
            .map_or(&routine.name.name, |relation| &relation.name)
            .clone(),
    );
    let negotiated = negotiate(
        &api.accept,
        &Produced {
            handlers: &cache.media_handlers,
            target: &target,
            default_select: plan.read.selects_whole_rows(),
            plan_enabled: config.plan_enabled,
        },
    )?;
    api.preferences.check_strict()?;
    let max_affected = api.preferences.max_affected();
    if max_affected.is_some() && !routine.returns.set_of {
        return Err(ApiError::MaxAffectedNeedsSet);
    }
    if api.query.columns.is_some() && json_post {
        check_columns_body(body, request.context.anonymous)?;
    }

    // 3. SQL.
    let head = api.method == Method::HEAD;
    let body_format = if head {
        BodyFormat::None
    } else {
        negotiated.body
    };
    let has_range = config.max_rows.is_some() || !api.range.is_all();
    let count_mode = match api.preferences.count {
        Some(Count::Exact | Count::Estimated) => CountMode::Exact { limit: None },
        Some(Count::Planned) | None => CountMode::None,
    };
    let statement = call_statement(&plan, &body_format, count_mode, has_range);
    let mut context = RequestContext::clone(&request.context);
    context.function_settings = routine.settings.clone();
    let context = Arc::new(context);
    let mode = TransactionMode {
        read_only: plan.read_only,
        isolation: match routine.isolation_level.as_deref() {
            Some("serializable") => "SERIALIZABLE",
            Some("repeatable read") => "REPEATABLE READ",
            _ => "READ COMMITTED",
        },
    };

    let rollback = rollback_wanted(config, &api.preferences);
    if let Some(plan) = &negotiated.plan {
        // In the call's own transaction: `EXPLAIN ANALYZE` of a volatile function runs it.
        return explain::answer(request, context, mode, rollback, statement, plan).await;
    }

    // 4. One transaction; its end depends on the outcome.
    let singular = matches!(
        negotiated.media,
        MediaType::Singular | MediaType::SingularStripped
    );
    let checks = OutcomeChecks {
        put: false,
        singular,
        max_affected,
        rollback,
    };
    let outcome = execute::run(
        &request.pool,
        &request.batches,
        context,
        mode,
        statement,
        ResultShape::Summary,
        checks,
    )
    .await?;

    // 5. Response, like a read's.
    let total = match api.preferences.count {
        Some(Count::Exact | Count::Estimated) => outcome.total.or(Some(outcome.page_total)),
        // Not counted: none, unless no row came back at all (a total of 0).
        _ => outcome.total,
    };
    let lower = api.range.limit_offset().1;
    let (content_range, status) =
        super::request::range::content_range(lower, outcome.page_total, total);
    let applied = api
        .preferences
        .applied(Action::Call, config.tx_end.allows_override(), false);
    if routine.returns.is_void {
        let mut parts = ResponseParts::new(204);
        parts.header(header::CONTENT_RANGE, content_range);
        if let Some(applied) = applied {
            parts.header(PREFERENCE_APPLIED, applied);
        }
        parts.apply_gucs(
            outcome.response_headers.as_deref(),
            outcome.response_status.as_deref(),
        )?;
        return Ok(parts.into_response());
    }
    let mut parts = ResponseParts::new(status);
    parts.header(header::CONTENT_RANGE, content_range);
    parts.end_page(PageEnd {
        content_type: negotiated.media.content_type(),
        profile: api.content_profile.then(|| api.schema.clone()),
        applied,
        offset: lower,
        total,
        response_headers: outcome.response_headers.as_deref(),
        response_status: outcome.response_status.as_deref(),
        body: (!head).then_some(outcome.body),
    })
}

/// `OPTIONS /rpc/fn`: volatile functions can only be called with POST.
pub fn options(request: &Request, name: &str) -> Result<HttpResponse, ApiError> {
    let key = super::schema_cache::QualifiedName::new(request.api.schema.clone(), name);
    let overloads = request.cache.routines.get(&key).ok_or_else(|| {
        ApiError::FunctionNotFound {
            message: format!(
                "Could not find the function {}.{name} without parameters in the schema cache",
                request.api.schema
            ),
            details: format!(
                "Searched for the function {}.{name} without parameters, but no matches were found in the schema cache.",
                request.api.schema
            ),
            hint: None,
        }
    })?;
    let volatile = overloads
        .iter()
        .all(|routine| routine.volatility == Volatility::Volatile);
    Ok(options_response(if volatile {
        "OPTIONS,POST"
    } else {
        "OPTIONS,GET,HEAD,POST"
    }))
}
