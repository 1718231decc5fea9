//! The controls watch: `LISTEN hwf_controls` on one connection per store
//! object (a trigger notifies with the run id on every control insert),
//! and a poll of the watched runs' control counts as the fallback.

use crate::Inner;
use futures_util::StreamExt;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio_postgres::AsyncMessage;

/// The fallback: every this often the watched runs' control counts are
/// read and a changed run's watch is bumped, and a lost listener
/// connection is reopened. A control appended through another store
/// object is normally seen through `NOTIFY` within a millisecond or two of
/// its commit; this is the most it can take when the listener is down.
pub const CONTROLS_POLL: Duration = Duration::from_millis(500);

/// The watched runs of one store object.
#[derive(Debug, Default)]
pub(crate) struct Watches {
    map: Mutex<HashMap<String, Watched>>,
    started: AtomicBool,
}

#[derive(Debug)]
struct Watched {
    tx: watch::Sender<u64>,
    /// The control count last seen by the poll.
    count: i64,
}

impl Watches {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Watched>> {
        self.map.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A receiver on the run's watch (`count`: its controls now).
    pub(crate) fn subscribe(&self, run: &str, count: i64) -> watch::Receiver<u64> {
        let mut map = self.lock();
        if let Some(w) = map.get(run) {
            return w.tx.subscribe();
        }
        let (tx, rx) = watch::channel(0);
        map.insert(run.to_owned(), Watched { tx, count });
        rx
    }

    /// A control was appended to `run`.
    pub(crate) fn bump(&self, run: &str) {
        if let Some(w) = self.lock().get(run) {
            w.tx.send_modify(|v| *v += 1);
        }
    }

    /// The watched runs (receivers all dropped: forgotten).
    fn watched(&self) -> Vec<String> {
        let mut map = self.lock();
        map.retain(|_, w| w.tx.receiver_count() > 0);
        map.keys().cloned().collect()
    }

    fn saw(&self, run: &str, count: i64) {
        if let Some(w) = self.lock().get_mut(run)
            && w.count != count
        {
            w.count = count;
            w.tx.send_modify(|v| *v += 1);
        }
    }
}

/// Start the store object's listener task unless it runs.
pub(crate) fn ensure_listener(inner: &Arc<Inner>) {
    if inner.watches.started.swap(true, Ordering::SeqCst) {
        return;
    }
    let weak = Arc::downgrade(inner);
    let config = inner.pg_config.clone();
    tokio::spawn(listen(weak, config, inner.tls.clone()));
}

/// Until the store is dropped: hold a LISTEN connection (reopened when
/// lost), bump runs as notifications arrive, and poll every
/// [`CONTROLS_POLL`].
async fn listen(weak: Weak<Inner>, config: tokio_postgres::Config, tls: crate::tls::Connector) {
    let mut tick = tokio::time::interval(CONTROLS_POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let (client, mut notes) = match subscribe(&config, &tls).await {
            Ok(c) => (Some(c.0), c.1),
            Err(e) => {
                tracing::debug!("controls listener: {e}; polling only");
                let (_tx, rx) = mpsc::unbounded_channel();
                (None, rx)
            }
        };
        loop {
            tokio::select! {
                note = notes.recv(), if client.is_some() => match note {
                    Some(run) => {
                        let Some(inner) = weak.upgrade() else { return };
                        inner.watches.bump(&run);
                    }
                    None => break, // the connection ended: reopen it
                },
                _ = tick.tick() => {
                    let Some(inner) = weak.upgrade() else { return };
                    poll(&inner).await;
                    if client.is_none() {
                        break; // try the listener again
                    }
                }
            }
        }
    }
}

type Listener = (tokio_postgres::Client, mpsc::UnboundedReceiver<String>);

async fn subscribe(
    config: &tokio_postgres::Config,
    tls: &crate::tls::Connector,
) -> Result<Listener, tokio_postgres::Error> {
    let (client, mut connection) = config.connect(tls.clone()).await?;
    let (tx, rx) = mpsc::unbounded_channel();
    let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
    tokio::spawn(async move {
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(n)) => {
                    if tx.send(n.payload().to_owned()).is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::debug!("controls listener connection: {e}");
                    return;
                }
            }
        }
    });
    client.batch_execute("LISTEN hwf_controls").await?;
    Ok((client, rx))
}

async fn poll(inner: &Inner) {
    let runs = inner.watches.watched();
    if runs.is_empty() {
        return;
    }
    let Ok(client) = inner.durable().await else { return };
    let rows = client
        .query(
            "SELECT run_id, count(*) FROM hwf_controls WHERE run_id = ANY($1) GROUP BY run_id",
            &[&runs],
        )
        .await;
    match rows {
        Ok(rows) => {
            for row in rows {
                inner.watches.saw(row.get(0), row.get(1));
            }
        }
        Err(e) => tracing::debug!("controls poll: {e}"),
    }
}
