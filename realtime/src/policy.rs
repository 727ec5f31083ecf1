//! Realtime Authorization: private channels (`config.private: true`) are allowed by RLS
//! policies on `realtime.messages`, read at join (broadcast and presence) and write on the
//! first broadcast or track, each evaluated as the channel's token. The checks run in the
//! database; the gateway implements them.

use std::future::Future;
use std::pin::Pin;

use crate::connection::Claims;

pub type PolicyFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a token may read on a private topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadAccess {
    pub broadcast: bool,
    pub presence: bool,
}

pub trait Policies: Send + Sync {
    /// Whether `claims` may read broadcasts and presence of `topic` (the bare name).
    fn read<'a>(
        &'a self,
        topic: &'a str,
        claims: &'a Claims,
    ) -> PolicyFuture<'a, Result<ReadAccess, String>>;

    /// Whether `claims` may write `extension` (`broadcast` or `presence`) on `topic`.
    fn write<'a>(
        &'a self,
        topic: &'a str,
        claims: &'a Claims,
        extension: &'a str,
    ) -> PolicyFuture<'a, Result<bool, String>>;
}
