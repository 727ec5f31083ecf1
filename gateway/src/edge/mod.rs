//! The edge: what every request meets before any service runs, as Supabase's API gateway
//! applies it. Request heads over the size limits are refused ([`request_limits`]), the
//! `apikey` is checked where required and mapped to a bearer token ([`api_key_gate`]),
//! bodies that arrive too slowly are cut off ([`slow_clients`]), and middleware with
//! nothing to do for a request is skipped ([`selective`]). Who the client is, by address, is
//! told in one place ([`client_address`]).

pub mod api_key_gate;
pub mod client_address;
pub mod request_limits;
pub mod selective;
pub mod slow_clients;
