//! A request body that can still be read after an upload gave up on it. Uploads are
//! refused mid-stream (too large, wrong type, not allowed); the client is then usually
//! still sending. Answering at once and leaving the rest unread breaks HTTP/1.1: a client
//! that keeps the connection for its next request (undici, tus-js-client) either never
//! reads the answer or has its next request read as the old body. So, as Node's HTTP
//! server does for Supabase Storage, the rest is read and discarded — within a budget;
//! past it the answer closes the connection instead.

use std::cell::RefCell;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::error::PayloadError;
use actix_web::http::ConnectionType;
use actix_web::{HttpResponse, ResponseError, web};
use bytes::Bytes;
use futures_util::{Stream, StreamExt};

use super::error::StorageError;

/// How long a refused body may keep the connection, and how much of it is read.
const DRAIN_TIME: Duration = Duration::from_secs(10);

#[derive(Clone)]
pub struct RequestBody {
    payload: Rc<RefCell<web::Payload>>,
}

impl std::fmt::Debug for RequestBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RequestBody")
    }
}

impl RequestBody {
    pub fn new(payload: web::Payload) -> Self {
        Self {
            payload: Rc::new(RefCell::new(payload)),
        }
    }

    /// Reads what is left, up to `budget` bytes and [`DRAIN_TIME`]; true when the body
    /// ended (or broke: then there is no connection to keep).
    pub async fn drain(&self, budget: u64) -> bool {
        let mut this = self.clone();
        let mut read = 0u64;
        let reading = async {
            while let Some(chunk) = this.next().await {
                match chunk {
                    Ok(chunk) => {
                        read += chunk.len() as u64;
                        if read > budget {
                            return false;
                        }
                    }
                    Err(_) => return true,
                }
            }
            true
        };
        tokio::time::timeout(DRAIN_TIME, reading)
            .await
            .unwrap_or(false)
    }

    /// The answer to a refused upload, after reading what is left of its body.
    pub async fn refuse(&self, error: StorageError, budget: u64) -> HttpResponse {
        self.refuse_with(error.error_response(), budget).await
    }

    pub async fn refuse_with(&self, mut response: HttpResponse, budget: u64) -> HttpResponse {
        if !self.drain(budget).await {
            response
                .head_mut()
                .set_connection_type(ConnectionType::Close);
        }
        response
    }
}

impl Stream for RequestBody {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.payload.borrow_mut().poll_next_unpin(cx)
    }
}
