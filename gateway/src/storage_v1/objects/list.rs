//! Listing: v1 (`POST /object/list/{bucket}`, one folder level with folder rows, through
//! `storage.search`) and v2 (`POST /object/list-v2/{bucket}`, cursor pages, optionally
//! folded at `/`). Both run as the caller, so RLS decides which objects (and so which
//! folders) exist for them.

use actix_web::{HttpRequest, HttpResponse, web};
use base64::Engine;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::storage_v1::buckets::json_body;
use crate::storage_v1::caller::{Caller, Scope, TokenRule};
use crate::storage_v1::error::{StorageError, StorageResult, database_error};
use crate::storage_v1::{StorageState, begin_as, bucket_of, commit, timestamp};

#[derive(Debug, Deserialize)]
struct SortBy {
    column: Option<String>,
    order: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ListV1 {
    prefix: Option<String>,
    limit: Option<i64>,
    offset: Option<i64>,
    #[serde(rename = "sortBy")]
    sort_by: Option<SortBy>,
    search: Option<String>,
}

/// A row of a v1 listing (a folder has only a name).
#[derive(Debug, Serialize)]
struct Entry {
    name: String,
    id: Option<String>,
    updated_at: Option<String>,
    created_at: Option<String>,
    last_accessed_at: Option<String>,
    metadata: Option<Value>,
}

fn sort_column(sort: Option<&SortBy>, allowed: &[&'static str]) -> StorageResult<&'static str> {
    match sort.and_then(|sort| sort.column.as_deref()) {
        None => Ok("name"),
        Some(column) => allowed
            .iter()
            .copied()
            .find(|allowed| *allowed == column)
            .ok_or_else(|| {
                StorageError::invalid_request(
                    "body/sortBy/column must be equal to one of the allowed values",
                )
            }),
    }
}

fn ascending(sort: Option<&SortBy>) -> StorageResult<bool> {
    match sort.and_then(|sort| sort.order.as_deref()) {
        None | Some("asc") => Ok(true),
        Some("desc") => Ok(false),
        Some(_) => Err(StorageError::invalid_request(
            "body/sortBy/order must be equal to one of the allowed values",
        )),
    }
}

pub async fn list_v1(
    request: HttpRequest,
    state: web::Data<StorageState>,
    body: web::Bytes,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let bucket = bucket_of(&request);
    let body: ListV1 = json_body(&body)?;
    let mut prefix = body.prefix.ok_or_else(|| {
        StorageError::invalid_request("body must have required property 'prefix'")
    })?;
    if !prefix.is_empty() && !prefix.ends_with('/') {
        prefix.push('/');
    }
    let column = sort_column(
        body.sort_by.as_ref(),
        &["name", "updated_at", "created_at", "last_accessed_at"],
    )?;
    let order = if ascending(body.sort_by.as_ref())? {
        "asc"
    } else {
        "desc"
    };
    let limit = i32::try_from(body.limit.unwrap_or(100).clamp(1, 1500)).unwrap_or(100);
    let offset = i32::try_from(body.offset.unwrap_or(0).max(0)).unwrap_or(0);
    let search = body.search.unwrap_or_default();
    let levels = i32::try_from(format!("{prefix}{search}").split('/').count()).unwrap_or(1);
    let mut connection = state.connection().await?;
    let tx = begin_as(
        &mut connection,
        &Scope::of(&request, "storage.object.list"),
        &caller,
    )
    .await?;
    let rows = tx
        .query(
            "SELECT name, id, updated_at, created_at, last_accessed_at, metadata \
             FROM storage.search($1, $2, $3, $4, $5, $6, $7, $8)",
            &[
                &prefix, &bucket, &limit, &levels, &offset, &search, &column, &order,
            ],
        )
        .await
        .map_err(|error| database_error(&error, StorageError::resource_exists))?;
    commit(tx).await?;
    let entries: Vec<Entry> = rows
        .iter()
        .map(|row| Entry {
            name: row.get::<_, Option<String>>(0).unwrap_or_default(),
            id: row.get::<_, Option<uuid::Uuid>>(1).map(|id| id.to_string()),
            updated_at: row.get::<_, Option<DateTime<Utc>>>(2).map(timestamp),
            created_at: row.get::<_, Option<DateTime<Utc>>>(3).map(timestamp),
            last_accessed_at: row.get::<_, Option<DateTime<Utc>>>(4).map(timestamp),
            metadata: row.get(5),
        })
        .collect();
    Ok(HttpResponse::Ok().json(entries))
}

#[derive(Debug, Deserialize)]
struct ListV2 {
    prefix: Option<String>,
    limit: Option<i64>,
    cursor: Option<String>,
    with_delimiter: Option<bool>,
    #[serde(rename = "sortBy")]
    sort_by: Option<SortBy>,
}

/// Where the previous page ended.
#[derive(Debug, Default, PartialEq, Eq)]
struct Cursor {
    after_name: String,
    after_time: Option<String>,
}

impl Cursor {
    fn encode(&self, order: &str, column: &str) -> String {
        let mut text = format!("l:{}\no:{order}\nc:{column}", self.after_name);
        if let Some(at) = &self.after_time {
            text.push_str(&format!("\na:{at}"));
        }
        base64::engine::general_purpose::STANDARD.encode(text)
    }

    fn decode(encoded: &str) -> StorageResult<Self> {
        let invalid = || StorageError::invalid_parameter("continuation token");
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|_| invalid())?;
        let text = String::from_utf8(bytes).map_err(|_| invalid())?;
        let mut cursor = Cursor::default();
        for line in text.lines() {
            let (key, value) = line.split_once(':').ok_or_else(invalid)?;
            match key {
                "l" => cursor.after_name = value.to_owned(),
                "a" => {
                    DateTime::parse_from_rfc3339(value).map_err(|_| invalid())?;
                    cursor.after_time = Some(value.to_owned());
                }
                "o" | "c" => {}
                _ => return Err(invalid()),
            }
        }
        Ok(cursor)
    }
}

#[derive(Debug, Serialize)]
struct V2Entry {
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    name: String,
    id: Option<String>,
    updated_at: Option<String>,
    created_at: Option<String>,
    last_accessed_at: Option<String>,
    metadata: Option<Value>,
}

#[derive(Debug, Serialize)]
struct V2Page {
    #[serde(rename = "hasNext")]
    has_next: bool,
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    #[serde(rename = "nextCursorKey", skip_serializing_if = "Option::is_none")]
    next_cursor_key: Option<String>,
    folders: Vec<V2Entry>,
    objects: Vec<V2Entry>,
}

pub async fn list_v2(
    request: HttpRequest,
    state: web::Data<StorageState>,
    body: web::Bytes,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let bucket = bucket_of(&request);
    let body: ListV2 = json_body(&body)?;
    let prefix = body.prefix.unwrap_or_default();
    let column = sort_column(body.sort_by.as_ref(), &["name", "updated_at", "created_at"])?;
    let ascending = ascending(body.sort_by.as_ref())?;
    let order = if ascending { "asc" } else { "desc" };
    let max_keys = body.limit.unwrap_or(1000).clamp(1, 1000);
    let cursor = body
        .cursor
        .as_deref()
        .filter(|cursor| !cursor.is_empty())
        .map(Cursor::decode)
        .transpose()?;
    let delimiter = body.with_delimiter.unwrap_or(false);

    // One query: entries (folded at the first `/` after the prefix with a delimiter), the
    // cursor, the order and one row more than a page to know whether another follows.
    let time = |name: &str| match column {
        "name" => "NULL::timestamptz".to_owned(),
        _ => format!("date_trunc('milliseconds', {name})"),
    };
    let (direction, compare) = if ascending {
        ("ASC", ">")
    } else {
        ("DESC", "<")
    };
    let entries = if delimiter {
        format!(
            "WITH matching AS ( \
               SELECT o.*, CASE WHEN strpos(substr(o.name, length($2) + 1), '/') > 0 \
                 THEN left(o.name, length($2) + strpos(substr(o.name, length($2) + 1), '/') - 1) END AS folder \
               FROM storage.objects o WHERE o.bucket_id = $1 AND starts_with(o.name, $2)) \
             SELECT folder AS name, NULL::uuid AS id, \
               {folder_time} AS updated_at, {folder_time} AS created_at, \
               NULL::timestamptz AS last_accessed_at, NULL::jsonb AS metadata, true AS is_folder \
             FROM matching WHERE folder IS NOT NULL GROUP BY folder \
             UNION ALL \
             SELECT name, id, updated_at, created_at, last_accessed_at, metadata, false \
             FROM matching WHERE folder IS NULL",
            folder_time = if column == "name" {
                "NULL::timestamptz".to_owned()
            } else {
                "min(created_at)".to_owned()
            },
        )
    } else {
        "SELECT name, id, updated_at, created_at, last_accessed_at, metadata, false AS is_folder \
         FROM storage.objects WHERE bucket_id = $1 AND starts_with(name, $2)"
            .to_owned()
    };
    let cursor_condition = match (&cursor, column) {
        (None, _) => "true".to_owned(),
        (Some(_), "name") => format!("e.name COLLATE \"C\" {compare} $4"),
        (Some(_), _) => format!(
            "({sort_time}, e.name COLLATE \"C\") {compare} ($5::text::timestamptz, $4::text COLLATE \"C\")",
            sort_time = time(&format!("e.{column}"))
        ),
    };
    let order_by = if column == "name" {
        format!("e.name COLLATE \"C\" {direction}")
    } else {
        format!(
            "{} {direction}, e.name COLLATE \"C\" {direction}",
            time(&format!("e.{column}"))
        )
    };
    let sql = format!(
        "SELECT e.name, e.id, e.updated_at, e.created_at, e.last_accessed_at, e.metadata, e.is_folder \
         FROM ({entries}) e WHERE {cursor_condition} ORDER BY {order_by} LIMIT $3"
    );
    let after_name = cursor
        .as_ref()
        .map(|c| c.after_name.clone())
        .unwrap_or_default();
    let after_time = cursor.as_ref().and_then(|c| c.after_time.clone());
    let mut connection = state.connection().await?;
    let tx = begin_as(
        &mut connection,
        &Scope::of(&request, "storage.object.list_v2"),
        &caller,
    )
    .await?;
    let fail = |error: tokio_postgres::Error| database_error(&error, StorageError::resource_exists);
    let rows = match (&cursor, column) {
        (None, _) => tx.query(&sql, &[&bucket, &prefix, &(max_keys + 1)]).await,
        (Some(_), "name") => {
            tx.query(&sql, &[&bucket, &prefix, &(max_keys + 1), &after_name])
                .await
        }
        (Some(_), _) => {
            tx.query(
                &sql,
                &[&bucket, &prefix, &(max_keys + 1), &after_name, &after_time],
            )
            .await
        }
    }
    .map_err(fail)?;
    commit(tx).await?;

    let has_next = rows.len() as i64 > max_keys;
    let page = &rows[..rows
        .len()
        .min(usize::try_from(max_keys).unwrap_or(usize::MAX))];
    let key_of = |name: &str| name[prefix.len().min(name.len())..].to_owned();
    let mut folders = Vec::new();
    let mut objects = Vec::new();
    for row in page {
        let name: String = row.get(0);
        let is_folder: bool = row.get(6);
        let entry = V2Entry {
            key: delimiter.then(|| key_of(&name)),
            name: if is_folder {
                format!("{name}/")
            } else {
                name.clone()
            },
            id: row.get::<_, Option<uuid::Uuid>>(1).map(|id| id.to_string()),
            updated_at: row.get::<_, Option<DateTime<Utc>>>(2).map(timestamp),
            created_at: row.get::<_, Option<DateTime<Utc>>>(3).map(timestamp),
            last_accessed_at: row.get::<_, Option<DateTime<Utc>>>(4).map(timestamp),
            metadata: row.get(5),
        };
        if is_folder {
            folders.push(entry)
        } else {
            objects.push(entry)
        }
    }
    let next_cursor = has_next.then(|| page.last()).flatten().map(|row| {
        let name: String = row.get(0);
        let after_time = (column != "name").then(|| {
            let at: Option<DateTime<Utc>> = match column {
                "updated_at" => row.get(2),
                _ => row.get(3),
            };
            at.map(timestamp).unwrap_or_default()
        });
        (
            Cursor {
                after_name: name.clone(),
                after_time,
            }
            .encode(order, column),
            name,
        )
    });
    Ok(HttpResponse::Ok().json(V2Page {
        has_next,
        next_cursor_key: next_cursor.as_ref().map(|(_, name)| name.clone()),
        next_cursor: next_cursor.map(|(cursor, _)| cursor),
        folders,
        objects,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_bad_ones_are_refused() {
        let cursor = Cursor {
            after_name: "a/b.png".to_owned(),
            after_time: Some("2025-03-01T12:00:00.000Z".to_owned()),
        };
        assert_eq!(
            Cursor::decode(&cursor.encode("asc", "created_at")).unwrap(),
            cursor
        );
        assert_eq!(Cursor::decode("!!!").unwrap_err().code, "InvalidParameter");
        let bad_time = base64::engine::general_purpose::STANDARD.encode("l:x\na:yesterday");
        assert!(Cursor::decode(&bad_time).is_err());
    }
}
