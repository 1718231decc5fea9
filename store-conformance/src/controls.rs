//! Controls: idempotent by id, in order, redacted, and the watch.

use crate::{CREDENTIAL, Check, Outcome, Subject, Verdict, created, ensure, fails_with, ok};
use hwf_core::control::{Action, Control};
use hwf_core::error::ErrorCode;

pub(crate) const CHECKS: [(&str, Check); 4] = [
    ("controls: idempotent by id, returned in append order", |s| {
        Box::pin(idempotent(s))
    }),
    (
        "controls: free text stored redacted, credential-shaped ids refused",
        |s| Box::pin(redacted(s)),
    ),
    (
        "controls: the watch grows at once on an append through the store",
        |s| Box::pin(watch_here(s)),
    ),
    (
        "controls: the watch grows within the documented delay on an append through another handle",
        |s| Box::pin(watch_other(s)),
    ),
];

async fn idempotent(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let id = created(s).await?;
    let pause = Control::new(Action::Pause, "alice");
    let mut resume = Control::new(Action::Unpause, "bob");
    resume.reason = Some("go on".into());
    ensure!(
        ok(runs.append_control(&id, &pause).await, "append")?,
        "a new control is stored"
    );
    ensure!(
        ok(runs.append_control(&id, &resume).await, "append")?,
        "a second control is stored"
    );
    let mut again = pause.clone();
    again.actor = "mallory".into();
    ensure!(
        !ok(runs.append_control(&id, &again).await, "repeat")?,
        "a control with a stored id returned true"
    );
    let stored = ok(runs.controls(&id).await, "controls")?;
    ensure!(stored == [pause, resume], "controls: {stored:?}");
    // Controls are per run.
    let other = created(s).await?;
    ensure!(
        ok(runs.controls(&other).await, "controls")?.is_empty(),
        "another run's controls"
    );
    Ok(Verdict::Pass)
}

async fn redacted(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let id = created(s).await?;
    let mut c = Control::new(Action::Stop, format!("ops {CREDENTIAL}"));
    c.reason = Some(format!("key {CREDENTIAL} leaked"));
    c.value = Some(serde_json::json!({"token": CREDENTIAL}));
    ensure!(ok(runs.append_control(&id, &c).await, "append")?, "stored");
    let stored = ok(runs.controls(&id).await, "controls")?;
    let text = serde_json::to_string(&stored).map_err(|e| e.to_string())?;
    ensure!(!text.contains(CREDENTIAL), "a credential was stored: {text}");
    ensure!(stored.len() == 1 && stored[0].id == c.id, "the control keeps its id");
    let mut bad = Control::new(Action::Pause, "t");
    bad.id = CREDENTIAL.into();
    fails_with(
        runs.append_control(&id, &bad).await,
        ErrorCode::InvalidArgs,
        "a credential-shaped id",
    )?;
    Ok(Verdict::Pass)
}

async fn watch_here(s: &Subject) -> Outcome {
    let runs = &s.stores.runs;
    let id = created(s).await?;
    let mut rx = ok(runs.watch_controls(&id).await, "watch")?;
    let mut rx2 = ok(runs.watch_controls(&id).await, "second watch")?;
    let before = *rx.borrow_and_update();
    rx2.borrow_and_update();
    ensure!(
        ok(
            runs.append_control(&id, &Control::new(Action::Pause, "t")).await,
            "append"
        )?,
        "stored"
    );
    ensure!(
        rx.has_changed().unwrap_or(false),
        "the watch did not change when append returned"
    );
    ensure!(rx2.has_changed().unwrap_or(false), "a second receiver did not change");
    let after = *rx.borrow_and_update();
    ensure!(after > before, "the watch went from {before} to {after}");
    Ok(Verdict::Pass)
}

async fn watch_other(s: &Subject) -> Outcome {
    let Some(other) = &s.other else {
        return Ok(Verdict::Skip("the backend opens no second handle".into()));
    };
    let id = created(s).await?;
    let mut rx = ok(s.stores.runs.watch_controls(&id).await, "watch")?;
    rx.borrow_and_update();
    ensure!(
        ok(
            other.runs.append_control(&id, &Control::new(Action::Stop, "cli")).await,
            "append"
        )?,
        "stored"
    );
    // The documented delay plus slack for a loaded machine.
    let limit = s.watch_delay * 5 + std::time::Duration::from_secs(1);
    match tokio::time::timeout(limit, rx.changed()).await {
        Ok(Ok(())) => {}
        Ok(Err(_)) => return Err("the watch's sender was dropped".into()),
        Err(_) => return Err(format!("no change within {limit:?}")),
    }
    let seen = ok(s.stores.runs.controls(&id).await, "controls")?;
    ensure!(seen.len() == 1, "the other handle's control reads back here: {seen:?}");
    Ok(Verdict::Pass)
}
