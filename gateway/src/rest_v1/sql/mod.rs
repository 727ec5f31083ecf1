//! SQL generation: plans become SQL text plus parameters. Pure: no I/O.

pub mod call;
pub mod fragment;
pub mod mutate;
pub mod read;
