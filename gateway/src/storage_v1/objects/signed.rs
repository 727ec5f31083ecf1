//! Signed URLs: signing downloads one at a time or in bulk (`POST /object/sign/…`), signed
//! downloads (`GET /object/sign/…?token=`), signed upload URLs
//! (`POST /object/upload/sign/…`) and uploads through them (`PUT …?token=`). Signing reads
//! the object as the caller (only what they may see can be shared); using a token reads
//! or writes as the service role, for exactly the object the token names.

use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use serde::Deserialize;
use serde_json::{Value, json};

use super::download::{Freshness, serve};
use super::find_object;
use super::upload::{FileInfo, Target, answer, header_flag, probe, upload};
use crate::storage_v1::body::RequestBody;
use crate::storage_v1::buckets::json_body;
use crate::storage_v1::caller::{Caller, Scope, TokenRule};
use crate::storage_v1::error::{StorageError, StorageResult, database_error};
use crate::storage_v1::names::check_key;
use crate::storage_v1::render::Transform;
use crate::storage_v1::signing::{self, TokenScope};
use crate::storage_v1::{StorageState, begin_as, bucket_of, commit, key_of, lookup};

#[derive(Debug, Deserialize)]
struct SignOne {
    #[serde(rename = "expiresIn")]
    expires_in: Option<Value>,
    transform: Option<Transform>,
}

fn expires_in(value: Option<&Value>) -> StorageResult<i64> {
    value
        .and_then(|value| value.as_i64().or_else(|| value.as_str()?.parse().ok()))
        .filter(|seconds| *seconds >= 1)
        .ok_or_else(|| StorageError::invalid_parameter("expiresIn"))
}

pub async fn sign_one(
    request: HttpRequest,
    state: web::Data<StorageState>,
    body: web::Bytes,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let bucket = bucket_of(&request);
    let key = key_of(&request);
    check_key(&key)?;
    let body: SignOne = json_body(&body)?;
    let seconds = expires_in(body.expires_in.as_ref())?;
    let mut connection = state.connection().await?;
    let tx = begin_as(
        &mut connection,
        &Scope::of(&request, "storage.object.sign"),
        &caller,
    )
    .await?;
    find_object(&tx, &bucket, &key)
        .await?
        .ok_or_else(StorageError::no_such_key)?;
    commit(tx).await?;
    let url = format!("{bucket}/{key}");
    let transform = body
        .transform
        .filter(|transform| state.settings.image_transformation && !transform.is_empty());
    let (route, claims) = match &transform {
        Some(transform) => ("render/image/sign", Some(transform.to_claim())),
        None => ("object/sign", None),
    };
    let token = signing::sign_download(&state.keys, &url, seconds, claims.as_deref())?;
    Ok(HttpResponse::Ok().json(json!({ "signedURL": format!("/{route}/{url}?token={token}") })))
}

#[derive(Debug, Deserialize)]
struct SignMany {
    #[serde(rename = "expiresIn")]
    expires_in: Option<Value>,
    paths: Option<Vec<String>>,
}

pub async fn sign_many(
    request: HttpRequest,
    state: web::Data<StorageState>,
    body: web::Bytes,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let bucket = bucket_of(&request);
    let body: SignMany = json_body(&body)?;
    let seconds = expires_in(body.expires_in.as_ref())?;
    let paths = body
        .paths
        .filter(|paths| !paths.is_empty() && paths.len() <= 1000)
        .ok_or_else(|| {
            StorageError::invalid_request("body/paths must NOT have fewer than 1 items")
        })?;
    let mut connection = state.connection().await?;
    let tx = begin_as(
        &mut connection,
        &Scope::of(&request, "storage.object.sign_many"),
        &caller,
    )
    .await?;
    let found: std::collections::HashSet<String> = tx
        .query(
            "SELECT name FROM storage.objects WHERE bucket_id = $1 AND name = ANY($2)",
            &[&bucket, &paths],
        )
        .await
        .map_err(|error| database_error(&error, StorageError::resource_exists))?
        .iter()
        .map(|row| row.get(0))
        .collect();
    commit(tx).await?;
    let mut signed = Vec::with_capacity(paths.len());
    for path in paths {
        if found.contains(&path) {
            let token =
                signing::sign_download(&state.keys, &format!("{bucket}/{path}"), seconds, None)?;
            signed.push(json!({
                "error": null,
                "path": path,
                "signedURL": format!("/object/sign/{bucket}/{path}?token={token}"),
            }));
        } else {
            signed.push(json!({
                "error": "Either the object does not exist or you do not have access to it",
                "path": path,
                "signedURL": null,
            }));
        }
    }
    Ok(HttpResponse::Ok().json(signed))
}

/// The `token` query parameter.
pub fn query_token(request: &HttpRequest) -> StorageResult<String> {
    url::form_urlencoded::parse(request.query_string().as_bytes())
        .find(|(name, _)| name == "token")
        .map(|(_, value)| value.into_owned())
        .ok_or_else(|| {
            StorageError::invalid_request("querystring must have required property 'token'")
        })
}

pub async fn download_signed(request: HttpRequest, state: web::Data<StorageState>) -> HttpResponse {
    let found = async {
        let token = query_token(&request)?;
        let bucket = bucket_of(&request);
        let key = key_of(&request);
        let signed = signing::verify(
            &state.keys,
            &token,
            &format!("{bucket}/{key}"),
            TokenScope::Download,
        )?;
        let scope = Scope::of(&request, "storage.object.get_signed");
        let row = lookup::object(&request, &scope, &Caller::service(), &bucket, &key)
            .await?
            .ok_or_else(StorageError::no_such_key)?;
        StorageResult::Ok((row, signed))
    }
    .await;
    match found {
        Ok((row, signed)) => serve(&request, &state, &row, Freshness::Until(signed.exp)).await,
        Err(error) => error.error_response(),
    }
}

pub async fn sign_upload(
    request: HttpRequest,
    state: web::Data<StorageState>,
) -> StorageResult<HttpResponse> {
    let caller = Caller::of(&request, &state, TokenRule::Required)?;
    let upsert = header_flag(&request, "x-upsert");
    let target = Target::of(
        &request,
        Scope::of(&request, "storage.object.sign_upload_url"),
    )?;
    let info = FileInfo {
        mimetype: request
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .unwrap_or("application/octet-stream")
            .to_owned(),
        cache_control: "max-age=3600".to_owned(),
        user_metadata: Some(json!({})),
        declared_length: None,
    };
    probe(&state, &target, &caller, &info, upsert).await?;
    let url = target.full_key();
    let seconds = i64::try_from(state.settings.upload_signed_url_expiry.as_secs()).unwrap_or(7200);
    let token = signing::sign_upload(&state.keys, &url, caller.sub.as_deref(), upsert, seconds)?;
    Ok(HttpResponse::Ok().json(json!({
        "url": format!("/object/upload/sign/{url}?token={token}"),
        "token": token,
    })))
}

pub async fn upload_signed(
    request: HttpRequest,
    state: web::Data<StorageState>,
    payload: web::Payload,
) -> HttpResponse {
    let body = RequestBody::new(payload);
    let stored = async {
        let token = query_token(&request)?;
        let target = Target::of(
            &request,
            Scope::of(&request, "storage.object.upload_signed"),
        )?;
        let signed = signing::verify(&state.keys, &token, &target.full_key(), TokenScope::Upload)?;
        let owner = Caller {
            sub: signed.owner.clone(),
            ..Caller::service()
        };
        // The service role asks too: a duplicate is refused before any byte is stored.
        upload(
            &state,
            &request,
            body.clone(),
            &target,
            &owner,
            Some(&Caller::service()),
            signed.upsert,
        )
        .await?;
        Ok(json!({ "Key": target.full_key() }))
    }
    .await;
    answer(&state, &body, stored).await
}
