//! A dedicated connection that `LISTEN`s on one channel for as long as the gateway runs,
//! reconnecting with back-off (1 s doubling to 32 s). The caller is told when it is listening
//! (again, after a drop: notifications may have been missed meanwhile) and given each
//! notification's payload.

use std::time::Duration;

use futures_util::StreamExt;
use tokio_postgres::AsyncMessage;

/// What a listener reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    /// `LISTEN` took effect; `again` after an earlier connection was lost or refused.
    Listening {
        again: bool,
    },
    Notification(&'a str),
}

/// Listens on `channel` forever; `what` names the listener in the logs.
pub async fn listen_forever(
    config: tokio_postgres::Config,
    channel: &'static str,
    what: &'static str,
    mut on: impl FnMut(Event<'_>),
) {
    let mut backoff = Duration::from_secs(1);
    let mut again = false;
    loop {
        match config.connect(tokio_postgres::NoTls).await {
            Ok((client, mut connection)) => {
                let mut messages =
                    futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                let listen_sql = format!("LISTEN {channel}");
                // The LISTEN only completes while the connection is being polled.
                let subscribed = {
                    let listening = client.batch_execute(&listen_sql);
                    let mut listening = std::pin::pin!(listening);
                    loop {
                        tokio::select! {
                            result = &mut listening => break result.is_ok(),
                            message = messages.next() => if message.is_none() { break false },
                        }
                    }
                };
                if subscribed {
                    backoff = Duration::from_secs(1);
                    on(Event::Listening { again });
                    while let Some(message) = messages.next().await {
                        match message {
                            Ok(AsyncMessage::Notification(notification)) => {
                                on(Event::Notification(notification.payload()));
                            }
                            Ok(_) => {}
                            Err(error) => {
                                tracing::warn!(%error, "{what} listener lost its connection");
                                break;
                            }
                        }
                    }
                }
            }
            Err(error) => {
                tracing::warn!(%error, "{what} listener could not connect");
            }
        }
        again = true;
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(32));
    }
}
