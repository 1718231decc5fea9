//! Live progress on a terminal: one spinner line with the phase and call
//! counts (only when stderr is a tty and `--json` is off).

use hwf_host::Progress;
use hwf_host::runtime::ProgressFn;
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Arc;
use std::time::Duration;

/// The spinner.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    pub fn new() -> Self {
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed:>4} {msg}") {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(120));
        Self { bar }
    }

    /// A callback the run calls with live figures.
    pub fn callback(&self) -> ProgressFn {
        let bar = self.bar.clone();
        Arc::new(move |p: &Progress| {
            bar.set_message(format!(
                "{}  {} calls · {} running · {} queued · {} failed · {} tokens",
                p.phase.as_deref().unwrap_or("starting"),
                p.counts.agent_calls + p.counts.capability_calls,
                p.running,
                p.queued,
                p.counts.failed,
                p.counts.tokens
            ));
        })
    }

    /// Clear the line.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}
