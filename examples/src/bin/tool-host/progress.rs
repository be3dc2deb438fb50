//! Showing running calls: an `indicatif` spinner per running call when stderr is a terminal,
//! plain `start` / `done` lines otherwise. Driven by the orchestrator's observer hooks.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use tool_registry::orchestration::{PostToolUse, PreToolUse, PreToolUseDecision, ToolObserver};

/// Where progress goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    /// A spinner per running call on the terminal (stderr).
    Spinners,
    /// One line when a call starts and one when it ends, on stderr.
    Lines,
    /// Nothing.
    Quiet,
}

impl Display {
    /// Spinners when stderr is a terminal, plain lines otherwise; nothing with `quiet`.
    pub fn detect(quiet: bool) -> Self {
        if quiet {
            Self::Quiet
        } else if std::io::stderr().is_terminal() {
            Self::Spinners
        } else {
            Self::Lines
        }
    }
}

/// The observer that shows calls as they run.
pub struct Progress {
    display: Display,
    bars: MultiProgress,
    running: Mutex<HashMap<String, (ProgressBar, Instant)>>,
}

impl Progress {
    /// A display of the given kind.
    pub fn new(display: Display) -> Self {
        let target = match display {
            Display::Spinners => ProgressDrawTarget::stderr(),
            Display::Lines | Display::Quiet => ProgressDrawTarget::hidden(),
        };
        Self {
            display,
            bars: MultiProgress::with_draw_target(target),
            running: Mutex::new(HashMap::new()),
        }
    }

    /// Finishes the display of every call that got no `post_tool_use` (a call refused before
    /// it ran, by a permission rule or a hook) with its result's outcome.
    pub fn finish_unfinished(&self, results: &[tool_sdk::ToolResultBlock]) {
        for result in results {
            let Some((bar, started)) = self.running().remove(&result.tool_use_id) else {
                continue;
            };
            let outcome = if result.is_error { "error" } else { "ok" };
            let line = format!(
                "done {} {outcome} in {} ms",
                result.tool_use_id,
                started.elapsed().as_millis()
            );
            self.finish(&bar, result.is_error, line);
        }
    }

    /// Prints `line` on stderr without breaking the spinners: above them while some run,
    /// below the finished ones otherwise.
    pub fn println(&self, line: &str) {
        match self.display {
            Display::Spinners if !self.running().is_empty() => {
                if self.bars.println(line).is_err() {
                    eprintln!("{line}");
                }
            }
            Display::Spinners | Display::Lines | Display::Quiet => eprintln!("{line}"),
        }
    }

    fn finish(&self, bar: &ProgressBar, is_error: bool, line: String) {
        match self.display {
            Display::Quiet => {}
            Display::Lines => eprintln!("{line}"),
            Display::Spinners => {
                let mark = if is_error { "✗" } else { "✓" };
                bar.set_style(
                    ProgressStyle::with_template("{msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.finish_with_message(format!("{mark} {line}"));
            }
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, (ProgressBar, Instant)>> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// `Name(key: value, ...)` cut to 60 chars, for one line.
fn label(name: &str, input: &serde_json::Value) -> String {
    let mut text = tool_sdk::render::tool_use_message(name, input);
    if let Some((cut, _)) = text.char_indices().nth(60) {
        text.truncate(cut);
        text.push('…');
    }
    text
}

impl ToolObserver for Progress {
    fn pre_tool_use<'a>(&'a self, event: &'a PreToolUse) -> BoxFuture<'a, PreToolUseDecision> {
        let label = label(&event.tool_name, &event.input);
        match self.display {
            Display::Quiet => {}
            Display::Lines => eprintln!("start {} {label}", event.tool_use_id),
            Display::Spinners => {
                let bar = self.bars.add(ProgressBar::new_spinner());
                bar.set_style(
                    ProgressStyle::with_template("{spinner:.cyan} {msg} [{elapsed_precise}]")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.set_message(label);
                bar.enable_steady_tick(Duration::from_millis(100));
                self.running()
                    .insert(event.tool_use_id.clone(), (bar, Instant::now()));
                return Box::pin(async { PreToolUseDecision::Continue });
            }
        }
        self.running().insert(
            event.tool_use_id.clone(),
            (ProgressBar::hidden(), Instant::now()),
        );
        Box::pin(async { PreToolUseDecision::Continue })
    }

    fn post_tool_use<'a>(&'a self, event: &'a PostToolUse) -> BoxFuture<'a, ()> {
        let id = &event.result.tool_use_id;
        if let Some((bar, started)) = self.running().remove(id) {
            let outcome = if event.result.is_error { "error" } else { "ok" };
            let line = format!(
                "done {id} {} {outcome} in {} ms",
                event.tool_name,
                started.elapsed().as_millis()
            );
            self.finish(&bar, event.result.is_error, line);
        }
        Box::pin(async {})
    }
}
