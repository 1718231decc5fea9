//! Live progress on a terminal (only when stderr is a tty and `--json` is
//! off): a spinner line with the phase, counts, tokens and elapsed time,
//! the declared phases as a checklist (✓ done, ▶ current, ○ pending), and
//! the labels of the agents running now; a summary line at the end
//! (state, duration, calls, failed, tokens, cost when agents reported it).

use hwf_core::journal::{Entry, JournalEntry};
use hwf_host::Progress;
use hwf_host::ids::RunId;
use hwf_host::runtime::ProgressFn;
use hwf_host::store::RunSnapshot;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the journal is read for the running agents' labels.
const LABELS_EVERY: Duration = Duration::from_millis(400);
/// A journal larger than this is not read for labels.
const LABELS_MAX_BYTES: u64 = 8 << 20;

/// What the display knows besides the live figures.
#[derive(Default)]
struct Tracked {
    run: Option<(PathBuf, RunId)>,
    declared: Option<Vec<String>>,
    entered: Vec<String>,
    running: Vec<String>,
    read_at: Option<Instant>,
}

/// The spinner and its checklist.
pub struct Bar {
    bar: ProgressBar,
    tracked: Arc<Mutex<Tracked>>,
}

fn lock(m: &Mutex<Tracked>) -> std::sync::MutexGuard<'_, Tracked> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Labels of the agent calls started and not completed, from a journal.
fn running_labels(journal: &Path) -> Vec<String> {
    let Ok(meta) = std::fs::metadata(journal) else {
        return Vec::new();
    };
    if meta.len() > LABELS_MAX_BYTES {
        return Vec::new();
    }
    let text = std::fs::read_to_string(journal).unwrap_or_default();
    let mut open: BTreeMap<String, String> = BTreeMap::new();
    // A line being written (or damaged) is skipped: this is a live view.
    for e in text.lines().filter_map(|l| JournalEntry::parse(l.as_bytes()).ok()) {
        match e.entry {
            Entry::CallStarted {
                call,
                kind,
                label,
                request,
                ..
            } if kind == "agent" => {
                let label = label
                    .or_else(|| request.get("agent").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_else(|| "agent".to_owned());
                open.insert(call, label);
            }
            Entry::CallCompleted { call, .. } | Entry::WaitStarted { call, .. } => {
                open.remove(&call);
            }
            Entry::RunStarted { .. } => open.clear(),
            _ => {}
        }
    }
    open.into_values().collect()
}

/// The checklist line: each declared phase done, current or pending.
fn checklist(declared: &[String], entered: &[String], current: Option<&str>) -> String {
    let matches = |t: &str, d: &str| t == d || t.ends_with(&format!(" {d}"));
    declared
        .iter()
        .map(|d| {
            let mark = if current.is_some_and(|c| matches(c, d)) {
                "▶"
            } else if entered.iter().any(|t| matches(t, d)) {
                "✓"
            } else {
                "○"
            };
            format!("{mark} {d}")
        })
        .collect::<Vec<_>>()
        .join("  ")
}

impl Bar {
    pub fn new() -> Self {
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed:>4} {msg}") {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(120));
        Self {
            bar,
            tracked: Arc::default(),
        }
    }

    /// Follow run `id` in the state dir `root` (declared phases, running
    /// agents' labels).
    pub fn track(&self, root: &Path, id: &RunId) {
        lock(&self.tracked).run = Some((root.to_path_buf(), id.clone()));
    }

    /// A callback the run calls with live figures.
    pub fn callback(&self) -> ProgressFn {
        let (bar, tracked) = (self.bar.clone(), self.tracked.clone());
        Arc::new(move |p: &Progress| {
            let mut t = lock(&tracked);
            if let Some(ph) = &p.phase
                && t.entered.last() != Some(ph)
            {
                t.entered.push(ph.clone());
            }
            if let Some((root, id)) = t.run.clone() {
                let dir = root.join("runs").join(id.as_str());
                if t.declared.is_none()
                    && let Ok(text) = std::fs::read_to_string(dir.join("run.json"))
                    && let Ok(snap) = serde_json::from_str::<RunSnapshot>(&text)
                {
                    t.declared = Some(snap.declared_phases);
                }
                if t.read_at.is_none_or(|at| at.elapsed() >= LABELS_EVERY) {
                    t.running = running_labels(&dir.join("journal.jsonl"));
                    t.read_at = Some(Instant::now());
                }
            }
            let mut msg = format!(
                "{}  {} calls · {} running · {} queued · {} failed · {} tokens",
                p.phase.as_deref().unwrap_or("starting"),
                p.counts.agent_calls + p.counts.capability_calls,
                p.running,
                p.queued,
                p.counts.failed,
                p.counts.tokens
            );
            let declared = t.declared.clone().unwrap_or_default();
            if !declared.is_empty() {
                msg.push_str("\n       ");
                msg.push_str(&checklist(&declared, &t.entered, p.phase.as_deref()));
            }
            if !t.running.is_empty() && p.running > 0 {
                let shown: Vec<&str> = t.running.iter().take(6).map(String::as_str).collect();
                let more = t.running.len().saturating_sub(shown.len());
                msg.push_str(&format!(
                    "\n       running: {}{}",
                    shown.join(", "),
                    if more > 0 { format!(" (+{more})") } else { String::new() }
                ));
            }
            bar.set_message(super::output::terminal_safe(&msg).into_owned());
        })
    }

    /// Clear the display.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}

/// The summary line after a run on a terminal: state, duration, calls,
/// failed, tokens, and the agents' reported cost when there is one.
pub fn summary(s: &RunSnapshot, state_dir: &Path) -> String {
    let ms = hwf_host::review::duration_ms(s, hwf_host::store::now_ms());
    let c = &s.counts;
    let cost: f64 = std::fs::read_to_string(state_dir.join("runs").join(s.run_id.as_str()).join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("cost_usd"))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|e| {
            e.pointer("/result/cost_usd")
                .or(e.get("cost_usd"))
                .and_then(Value::as_f64)
        })
        .sum();
    format!(
        "{} in {:.1}s · {} calls · {} failed · {} tokens{}",
        s.state.as_str(),
        ms as f64 / 1000.0,
        c.agent_calls + c.capability_calls,
        c.failed,
        c.tokens,
        if cost > 0.0 {
            format!(" · ${cost:.4}")
        } else {
            String::new()
        }
    )
}
