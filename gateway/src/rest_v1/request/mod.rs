//! Turning an HTTP request into a typed rest/v1 request. Pure: no I/O.

pub mod api_request;
pub mod ast;
pub mod media;
pub mod parsec;
pub mod payload;
pub mod preferences;
pub mod query_params;
pub mod range;
