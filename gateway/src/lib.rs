//! Cielo's gateway: one HTTP server for auth/v1, rest/v1, storage/v1, functions/v1 and the
//! web app, over PostgreSQL (embedded by default).

pub mod auth_v1;
pub mod config;
pub mod db;
pub mod dev;
pub mod edge;
pub mod functions_v1;
pub mod generation;
pub mod health;
pub mod identity;
pub mod mail;
pub mod model_command;
pub mod realtime_v1;
pub mod rest_v1;
pub mod startup;
pub mod state;
pub mod storage_v1;
pub mod telemetry;
pub mod typegen;
pub mod web;
