//! The work watch ([`PgStore::watch_work`]): idle runners wake when there
//! may be work — a run created, queued or parked, an event recorded
//! (`LISTEN hwf_work`, migration 2), a control appended
//! (`LISTEN hwf_controls`) — instead of only on their poll.

use crate::PgStore;
use futures_util::StreamExt;
use std::time::Duration;
use tokio::sync::watch;
use tokio_postgres::AsyncMessage;

/// How long a lost listener connection waits before it is reopened.
const RECONNECT: Duration = Duration::from_secs(1);

impl PgStore {
    /// A receiver whose value is bumped on every notification that there
    /// may be work. One `LISTEN` connection, reopened when lost, held until
    /// every receiver is dropped. Notifications are hints: a runner still
    /// polls (a notification sent while the connection was down is missed).
    /// Must be called inside a tokio runtime.
    pub fn watch_work(&self) -> watch::Receiver<u64> {
        let (tx, rx) = watch::channel(0u64);
        let config = self.inner.pg_config.clone();
        let tls = self.inner.tls.clone();
        tokio::spawn(async move {
            loop {
                match listen(&config, &tls, &tx).await {
                    Ok(()) => return, // every receiver is gone
                    Err(e) => tracing::debug!("work listener: {e}; reopening"),
                }
                tokio::select! {
                    () = tx.closed() => return,
                    () = tokio::time::sleep(RECONNECT) => {}
                }
                // A wake after a gap: whatever was notified meanwhile.
                tx.send_modify(|n| *n += 1);
            }
        });
        rx
    }
}

/// Forward notifications until the receivers are gone (`Ok`) or the
/// connection ends (`Err`).
async fn listen(
    config: &tokio_postgres::Config,
    tls: &crate::tls::Connector,
    tx: &watch::Sender<u64>,
) -> Result<(), String> {
    let (client, mut connection) = config.connect(tls.clone()).await.map_err(|e| e.to_string())?;
    let (note_tx, mut notes) = tokio::sync::mpsc::unbounded_channel::<()>();
    let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
    let pump = tokio::spawn(async move {
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(_)) => {
                    if note_tx.send(()).is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(_) => return,
            }
        }
    });
    let subscribed = client.batch_execute("LISTEN hwf_work; LISTEN hwf_controls").await;
    if let Err(e) = subscribed {
        pump.abort();
        return Err(e.to_string());
    }
    let result = loop {
        tokio::select! {
            () = tx.closed() => break Ok(()),
            note = notes.recv() => match note {
                Some(()) => tx.send_modify(|n| *n += 1),
                None => break Err("the connection ended".to_owned()),
            },
        }
    };
    pump.abort();
    drop(client);
    result
}
