//! SQL generation: plans become SQL text plus parameters. Pure: no I/O.

pub mod fragment;
pub mod read;
