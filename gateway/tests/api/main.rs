//! Integration tests: the real gateway over HTTP against a real PostgreSQL cluster.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod api_keys;
mod auth_admin;
mod auth_mfa;
mod auth_signup;
mod auth_support;
mod auth_token;
mod auth_user;
mod batches;
mod binary;
mod cors;
mod database;
mod database_restart;
mod demo_seed;
mod functions;
mod generation;
mod generation_local;
mod health;
mod helpers;
mod request_limits;
mod rest_read;
mod rest_write;
mod services;
mod slow_clients;
mod typegen;
mod web_app;
