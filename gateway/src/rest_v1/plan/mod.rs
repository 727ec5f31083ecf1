//! Planning: resolving a parsed request against the schema cache. Pure: no I/O.

pub mod call;
pub mod explain;
pub mod fuzzy;
pub mod mutate;
pub mod negotiate;
pub mod read;
pub mod relationship;
