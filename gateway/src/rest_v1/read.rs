//! GET/HEAD on a table or view: plan, SQL, one read-only transaction, response.

use actix_web::HttpResponse;
use actix_web::http::{Method, header};

use super::Request;
use super::error::ApiError;
use super::execute::{self, TransactionMode};
use super::plan::explain;
use super::plan::negotiate::{Produced, negotiate};
use super::plan::read::{ReadOptions, find_relation, plan_read_of};
use super::request::media::MediaType;
use super::request::preferences::{Action, Count};
use super::response::{PageEnd, ResponseParts, options as options_response};
use super::sql::read::{BodyFormat, CountMode, count_statement, read_statement};

pub async fn handle(request: &Request, table: &str) -> Result<HttpResponse, ApiError> {
    let api = &request.api;
    let cache = &request.cache;
    let config = &cache.config;
    let relation = find_relation(cache, &api.schema, table)?;
    let plan = plan_read_of(
        cache,
        &api.schema,
        relation,
        &api.query,
        api.range.limit_offset(),
        ReadOptions {
            max_rows: config.max_rows,
            aggregates_enabled: config.aggregates_enabled,
        },
    )?;
    let negotiated = negotiate(
        &api.accept,
        &Produced {
            handlers: &cache.media_handlers,
            target: &relation.name,
            default_select: plan.selects_whole_rows(),
            plan_enabled: config.plan_enabled,
        },
    )?;
    api.preferences.check_strict()?;

    let head = api.method == Method::HEAD;
    let body = if head {
        BodyFormat::None
    } else {
        negotiated.body
    };
    let has_range = config.max_rows.is_some() || !api.range.is_all();
    let max_rows = config.max_rows.and_then(|rows| i64::try_from(rows).ok());
    let (count_mode, explain) = match api.preferences.count {
        None => (CountMode::None, None),
        Some(Count::Exact) => (CountMode::Exact { limit: None }, None),
        Some(Count::Planned) => (CountMode::None, Some(count_statement(&plan))),
        Some(Count::Estimated) => (
            CountMode::Exact {
                limit: max_rows.map(|rows| rows + 1),
            },
            Some(count_statement(&plan)),
        ),
    };
    let statement = read_statement(&plan, body, count_mode, has_range);

    if let Some(plan) = &negotiated.plan {
        let read_only = TransactionMode {
            read_only: true,
            isolation: "READ COMMITTED",
        };
        let context = request.context.clone();
        return explain::answer(request, context, read_only, false, statement, plan).await;
    }

    let outcome = execute::read(
        &request.batches,
        request.context.clone(),
        statement,
        explain,
    )
    .await?;
    let total = match api.preferences.count {
        None => None,
        Some(Count::Exact) => outcome.total,
        Some(Count::Planned) => outcome.planned_total,
        Some(Count::Estimated) => match (outcome.total, outcome.planned_total, max_rows) {
            (Some(exact), _, Some(max)) if exact <= max => Some(exact),
            (Some(exact), planned, _) => Some(planned.map_or(exact, |p| p.max(exact))),
            (None, planned, _) => planned,
        },
    };

    if matches!(
        negotiated.media,
        MediaType::Singular | MediaType::SingularStripped
    ) && outcome.page_total != 1
    {
        return Err(ApiError::Singular {
            rows: outcome.page_total,
        });
    }

    let lower = api.range.limit_offset().1;
    let (content_range, status) =
        super::request::range::content_range(lower, outcome.page_total, total);
    let mut parts = ResponseParts::new(status);
    parts.header(header::CONTENT_RANGE, content_range);
    parts.header(
        header::CONTENT_LOCATION,
        content_location(table, &api.query.canonical),
    );
    parts.end_page(PageEnd {
        content_type: negotiated.media.content_type(),
        profile: api.content_profile.then(|| api.schema.clone()),
        applied: api
            .preferences
            .applied(Action::Read, config.tx_end.allows_override(), false),
        offset: lower,
        total,
        response_headers: outcome.response_headers.as_deref(),
        response_status: outcome.response_status.as_deref(),
        body: (!head).then_some(outcome.body),
    })
}

fn content_location(table: &str, canonical: &str) -> String {
    let mut location = String::with_capacity(table.len() + canonical.len() + 2);
    location.push('/');
    location.push_str(table);
    if !canonical.is_empty() {
        location.push('?');
        location.push_str(canonical);
    }
    location
}

/// `OPTIONS /table`: the methods the relation supports.
pub fn options(request: &Request, table: &str) -> Result<HttpResponse, ApiError> {
    let relation = find_relation(&request.cache, &request.api.schema, table)?;
    let mut allow = String::from("OPTIONS,GET,HEAD");
    if relation.insertable {
        allow.push_str(",POST");
    }
    if relation.insertable && relation.updatable && !relation.primary_key.is_empty() {
        allow.push_str(",PUT");
    }
    if relation.updatable {
        allow.push_str(",PATCH");
    }
    if relation.deletable {
        allow.push_str(",DELETE");
    }
    Ok(options_response(&allow))
}
