//! Every error storage/v1 answers, in Supabase Storage's wire format: the body
//! `{"statusCode":"404","error":"Bucket not found","message":"Bucket not found","code":"NoSuchBucket"}`
//! with the *semantic* status as a string, and an HTTP status of 400 for every client error
//! (500 for server errors) except the few Supabase answers with their own status (403 for
//! role checks, 416 for ranges, 404 for unknown routes). storage-js reads `message` and
//! `statusCode`; tests compare both. Database errors are mapped here too.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StorageError {
    #[serde(skip)]
    pub http: u16,
    #[serde(rename = "statusCode")]
    pub status_code: &'static str,
    pub error: String,
    pub message: String,
    pub code: &'static str,
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.status_code, self.message)
    }
}

impl ResponseError for StorageError {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.http).unwrap_or(StatusCode::BAD_REQUEST)
    }

    fn error_response(&self) -> HttpResponse {
        HttpResponse::build(self.status_code()).json(self)
    }
}

pub type StorageResult<T> = Result<T, StorageError>;

impl StorageError {
    /// A client error: HTTP 400 with the semantic status in the body.
    fn client(status_code: &'static str, error: &str, code: &'static str, message: &str) -> Self {
        Self {
            http: 400,
            status_code,
            error: error.to_owned(),
            message: message.to_owned(),
            code,
        }
    }

    pub fn no_such_bucket() -> Self {
        Self::client(
            "404",
            "Bucket not found",
            "NoSuchBucket",
            "Bucket not found",
        )
    }

    pub fn no_such_key() -> Self {
        Self::client("404", "not_found", "NoSuchKey", "Object not found")
    }

    /// The row exists but its bytes do not.
    pub fn bytes_missing() -> Self {
        Self::client(
            "404",
            "Not found",
            "NoSuchKey",
            "The resource was not found",
        )
    }

    pub fn key_exists() -> Self {
        Self::client(
            "409",
            "Duplicate",
            "KeyAlreadyExists",
            "The resource already exists",
        )
    }

    pub fn bucket_exists() -> Self {
        Self::client(
            "409",
            "Duplicate",
            "BucketAlreadyExists",
            "The resource already exists",
        )
    }

    pub fn resource_exists() -> Self {
        Self::client(
            "409",
            "Duplicate",
            "ResourceAlreadyExists",
            "The resource already exists",
        )
    }

    pub fn access_denied(message: &str) -> Self {
        Self::client("403", "Unauthorized", "AccessDenied", message)
    }

    /// A valid token whose role may not do this (the one real 403).
    pub fn invalid_role() -> Self {
        Self {
            http: 403,
            ..Self::access_denied("Access denied: Invalid role")
        }
    }

    pub fn invalid_key(key: &str) -> Self {
        Self::client(
            "400",
            "InvalidKey",
            "InvalidKey",
            &format!("Invalid key: {key}"),
        )
    }

    pub fn invalid_bucket_name() -> Self {
        Self::client(
            "400",
            "Invalid Input",
            "InvalidBucketName",
            "Bucket name invalid",
        )
    }

    pub fn entity_too_large() -> Self {
        Self::client(
            "413",
            "Payload too large",
            "EntityTooLarge",
            "The object exceeded the maximum allowed size",
        )
    }

    pub fn metadata_too_large() -> Self {
        Self::client(
            "413",
            "Payload too large",
            "EntityTooLarge",
            "The user_metadata exceeded the maximum allowed size",
        )
    }

    pub fn invalid_mime_type(mime: &str) -> Self {
        Self::client(
            "415",
            "invalid_mime_type",
            "InvalidMimeType",
            &format!("mime type {mime} is not supported"),
        )
    }

    pub fn bucket_not_empty() -> Self {
        Self::client(
            "409",
            "ResourceNotEmpty",
            "ResourceNotEmpty",
            "The bucket you tried to delete is not empty",
        )
    }

    pub fn related_missing() -> Self {
        Self::client(
            "404",
            "InvalidRequest",
            "InvalidRequest",
            "The related resource does not exist",
        )
    }

    pub fn still_referenced() -> Self {
        Self::client(
            "409",
            "ResourceReferenced",
            "ResourceReferenced",
            "The resource could not be updated or removed due to a foreign key constraint",
        )
    }

    /// Bad input: a missing field, a malformed body or query.
    pub fn invalid_request(message: &str) -> Self {
        Self::client("400", "Bad Request", "InvalidRequest", message)
    }

    pub fn invalid_jwt(message: &str) -> Self {
        Self::client("400", "InvalidJWT", "InvalidJWT", message)
    }

    pub fn invalid_signature(message: &str) -> Self {
        Self::client("400", "InvalidSignature", "InvalidSignature", message)
    }

    pub fn expired_token() -> Self {
        Self::client(
            "400",
            "ExpiredToken",
            "ExpiredToken",
            "The provided token has expired.",
        )
    }

    pub fn invalid_parameter(name: &str) -> Self {
        Self::client(
            "400",
            "InvalidParameter",
            "InvalidParameter",
            &format!("Invalid Parameter {name}"),
        )
    }

    pub fn invalid_range() -> Self {
        Self {
            http: 416,
            ..Self::client(
                "416",
                "invalid_range",
                "InvalidRange",
                "invalid range provided",
            )
        }
    }

    pub fn invalid_image() -> Self {
        Self::client(
            "400",
            "InvalidRequest",
            "InvalidRequest",
            "The source image is invalid or unsupported for rendering",
        )
    }

    pub fn lock_timeout() -> Self {
        Self::client(
            "503",
            "acquiring_lock_timeout",
            "LockTimeout",
            "acquiring lock timeout",
        )
    }

    /// A route storage/v1 does not have.
    pub fn no_route(method: &str, url: &str) -> Self {
        Self {
            http: 404,
            ..Self::client(
                "404",
                "Not Found",
                "InvalidRequest",
                &format!("Route {method}:{url} not found"),
            )
        }
    }

    pub fn internal() -> Self {
        Self {
            http: 500,
            status_code: "500",
            error: "Internal".to_owned(),
            message: "Internal Server Error".to_owned(),
            code: "InternalError",
        }
    }

    /// An unexpected failure: logged with its cause, answered without it.
    pub fn internal_because(cause: &dyn std::fmt::Display) -> Self {
        tracing::error!(%cause, "storage/v1 failed");
        Self::internal()
    }
}

/// What a database error means to a storage client. `unique` is the error a unique
/// violation stands for on this route (a duplicate object, bucket, ...).
pub fn database_error(error: &tokio_postgres::Error, unique: fn() -> StorageError) -> StorageError {
    let Some(db) = error.as_db_error() else {
        return StorageError::internal_because(error);
    };
    match db.code().code() {
        "42501" if db.message().contains("row-level security") => {
            StorageError::access_denied("new row violates row-level security policy")
        }
        "42501" => StorageError::access_denied(db.message()),
        "23505" => unique(),
        "23503" if db.message().contains("is still referenced") => StorageError::still_referenced(),
        "23503" => StorageError::related_missing(),
        "25006" => StorageError {
            http: 400,
            status_code: "503",
            error: "DatabaseReadOnly".to_owned(),
            message: "The database is currently in read-only mode. Please try again later."
                .to_owned(),
            code: "DatabaseReadOnly",
        },
        "55P03" => StorageError::lock_timeout(),
        // Raised by a trigger or policy: its own words are the answer.
        "P0001" => StorageError::client("400", "InvalidRequest", "InvalidRequest", db.message()),
        code => {
            tracing::error!(
                sqlstate = code,
                message = db.message(),
                "storage/v1 database error"
            );
            StorageError {
                http: 500,
                status_code: "500",
                error: "DatabaseError".to_owned(),
                message: format!("database error, code: {code}"),
                code: "DatabaseError",
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_errors_are_http_400_with_the_semantic_status_in_the_body() {
        let response = StorageError::no_such_bucket().error_response();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let body = serde_json::to_value(StorageError::no_such_bucket()).unwrap();
        assert_eq!(
            body,
            serde_json::json!({
                "statusCode": "404",
                "error": "Bucket not found",
                "message": "Bucket not found",
                "code": "NoSuchBucket",
            })
        );
    }

    #[test]
    fn ranges_roles_and_routes_keep_their_own_status() {
        assert_eq!(StorageError::invalid_range().status_code().as_u16(), 416);
        assert_eq!(StorageError::invalid_role().status_code().as_u16(), 403);
        assert_eq!(
            StorageError::no_route("GET", "/x").status_code().as_u16(),
            404
        );
        assert_eq!(StorageError::internal().status_code().as_u16(), 500);
    }
}
