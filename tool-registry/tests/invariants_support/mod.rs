//! The tool, observer and drop guard of `orchestration_invariants.rs`.

use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tool_registry::orchestration::{PostToolUse, PreToolUse, PreToolUseDecision, ToolObserver};
use tool_sdk::InterruptBehavior;
use tool_sdk::prelude::*;

/// How many calls and observer hooks are running, per case (handed to calls through the
/// turn's extensions).
#[derive(Clone, Default)]
pub struct Live(pub Arc<AtomicIsize>);

/// Counts one running piece of work for as long as it lives.
pub struct Guard(Arc<AtomicIsize>);

impl Live {
    pub fn enter(&self) -> Guard {
        self.0.fetch_add(1, Ordering::SeqCst);
        Guard(Arc::clone(&self.0))
    }
    pub fn count(&self) -> isize {
        self.0.load(Ordering::SeqCst)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The panics these tests cause start with this, so the panic hook can keep them quiet.
pub const PANIC: &str = "chaos:";

/// Does what its input says; `panic_at` names the hook that panics.
#[tool(name = "Chaos", max_result_size_chars = 1_000, concurrency_safe = Self::safe)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Chaos {
    /// Runs alongside other safe calls.
    safe: bool,
    /// Milliseconds of work.
    ms: u64,
    /// Stops early when the call's abort signal fires (else finishes its `ms` regardless).
    watch_abort: bool,
    /// Never returns (only a stop ends it).
    hang: bool,
    /// Returns an error.
    fail: bool,
    /// Denied by `check_permissions`.
    deny: bool,
    /// Stopped by a user interrupt while running.
    cancel: bool,
    /// The hook that panics: safe, validate, permissions, interrupt, backfill, call,
    /// modifier; empty for none.
    panic_at: String,
    /// What the PreToolUse observer does: stop, rewrite, rewrite-bad, panic; empty for
    /// nothing.
    #[expect(dead_code, reason = "read by ChaosObserver from the input")]
    pre: String,
    /// The PostToolUse observer panics.
    #[expect(dead_code, reason = "read by ChaosObserver from the input")]
    post_panic: bool,
    /// Chars of output (`0`: whitespace only).
    size: usize,
    /// Set by the rewriting observer.
    #[serde(default)]
    rewritten: bool,
}

impl Chaos {
    fn safe(&self) -> bool {
        assert!(self.panic_at != "safe", "{PANIC} safe");
        self.safe
    }
}

#[tool]
impl Tool for Chaos {
    type Output = String;

    async fn validate_input(&self, _ctx: &ToolUseContext) -> ValidationResult {
        assert!(self.panic_at != "validate", "{PANIC} validate");
        ValidationResult::Ok
    }

    async fn check_permissions(&self, _ctx: &ToolUseContext) -> PermissionResult {
        assert!(self.panic_at != "permissions", "{PANIC} permissions");
        if self.deny {
            return PermissionResult::Deny {
                message: "Chaos may not run here.".into(),
            };
        }
        PermissionResult::allow()
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        assert!(self.panic_at != "interrupt", "{PANIC} interrupt");
        if self.cancel {
            InterruptBehavior::Cancel
        } else {
            InterruptBehavior::Block
        }
    }

    fn backfill_observable_input(&self, _input: &mut Value) {
        assert!(self.panic_at != "backfill", "{PANIC} backfill");
    }

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let _guard = ctx.get::<Live>().expect("the turn carries Live").enter();
        if self.hang {
            std::future::pending::<()>().await;
        }
        let work = tokio::time::sleep(Duration::from_millis(self.ms));
        if self.watch_abort {
            tokio::select! {
                () = work => {}
                () = ctx.abort().cancelled() => return Err(ToolError::aborted("")),
            }
        } else {
            work.await;
        }
        assert!(self.panic_at != "call", "{PANIC} call");
        if self.fail {
            return Err(ToolError::new("chaos failed"));
        }
        let text = if self.rewritten {
            "rewritten".to_owned()
        } else if self.size == 0 {
            " \n".to_owned()
        } else {
            "c".repeat(self.size)
        };
        let panics = self.panic_at == "modifier";
        Ok(ToolResult::new(text).with_context_modifier(move |_| {
            assert!(!panics, "{PANIC} modifier");
        }))
    }
}

/// Always allowed by itself; a deny rule in every case names it.
#[tool(
    name = "Locked",
    read_only,
    concurrency_safe,
    max_result_size_chars = 100
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Locked {}

#[tool]
impl Tool for Locked {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("opened".to_owned()))
    }
}

/// Follows the `pre` and `post_panic` fields of the input it is shown.
pub struct ChaosObserver(pub Live);

impl ToolObserver for ChaosObserver {
    fn pre_tool_use<'a>(&'a self, event: &'a PreToolUse) -> BoxFuture<'a, PreToolUseDecision> {
        Box::pin(async move {
            let _guard = self.0.enter();
            tokio::task::yield_now().await;
            let mut input = event.input.clone();
            match input["pre"].as_str().unwrap_or("") {
                "stop" => PreToolUseDecision::Stop {
                    reason: "test".into(),
                },
                "rewrite" => {
                    input["pre"] = json!("");
                    input["rewritten"] = json!(true);
                    PreToolUseDecision::ReplaceInput(input)
                }
                "rewrite-bad" => PreToolUseDecision::ReplaceInput(json!({"safe": "no"})),
                "panic" => panic!("{PANIC} pre"),
                _ => PreToolUseDecision::Continue,
            }
        })
    }

    fn post_tool_use<'a>(&'a self, event: &'a PostToolUse) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let _guard = self.0.enter();
            assert!(event.input["post_panic"] != json!(true), "{PANIC} post");
        })
    }
}

/// Keeps the panics of [`PANIC`] payloads off the output; others still print.
pub fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let text = info
                .payload()
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| info.payload().downcast_ref::<&str>().copied())
                .unwrap_or("");
            if !text.starts_with(PANIC) {
                default(info);
            }
        }));
    });
}
