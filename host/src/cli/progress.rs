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

/// Say so on stderr when running `target` will first compile its language's
/// runtime for this machine (15–30 s once; then it is cached in `cache`).
pub fn announce_first_compile(target: &hwf_host::Target, cache: Option<&std::path::Path>) {
    use hwf_host::scripts::{Language, runtime_compiled};
    let (hwf_host::Target::Path(path), Some(cache)) = (target, cache) else {
        return;
    };
    let lang = Language::of_path(path);
    if !matches!(lang, Language::Js | Language::Python | Language::Json) {
        return;
    }
    if runtime_compiled(lang, cache) == Some(false) {
        eprintln!(
            "hwf: compiling the {} runtime for this machine (once; can take 15-30 s), cached in {}",
            lang.as_str(),
            cache.display()
        );
    }
}
