use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use tool_sdk::{DynTool, TypedTool};

use super::*;
use crate::tools::fixture::Fixture;
use crate::workspace::Workspace;

/// Whether process `pid` is gone (absent, or a zombie waiting to be reaped).
fn is_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

/// Waits up to 5 s for the pid the command wrote to `file`.
async fn pid_in(file: &Path) -> u32 {
    for _ in 0..500 {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{} was never written", file.display());
}

async fn wait_gone(pid: u32) -> bool {
    for _ in 0..200 {
        if is_gone(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// A command whose grandchild (a `sleep` in the background) writes its pid to `pid.txt`.
const GRANDCHILD: &str = "sleep 60 & echo $! > pid.txt; wait";

#[tokio::test]
async fn runs_in_the_workspace_root_and_joins_stdout_and_stderr() {
    let fx = Fixture::new();
    let out = fx
        .call::<Bash>(json!({"command": "pwd; echo warning >&2"}))
        .await
        .unwrap();
    assert_eq!(out, format!("{}\nwarning", fx.root().display()));
    let silent = fx.call::<Bash>(json!({"command": "true"})).await.unwrap();
    assert_eq!(silent, "");
}

#[tokio::test]
async fn a_failing_command_is_a_shell_error() {
    let fx = Fixture::new();
    let error = fx
        .call::<Bash>(json!({"command": "echo out; echo err >&2; exit 3"}))
        .await
        .unwrap_err();
    assert_eq!(error, "Exit code 3\nerr\nout");
}

#[tokio::test]
async fn a_timeout_kills_the_command_and_what_it_started() {
    let fx = Fixture::new();
    let started = Instant::now();
    let call = fx.call::<Bash>(json!({"command": GRANDCHILD, "timeout": 500}));
    let error = call.await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        error,
        "Command timed out after 500 ms and was stopped with everything it started."
    );
    let pid = pid_in(&fx.root().join("pid.txt")).await;
    assert!(wait_gone(pid).await, "the background sleep {pid} survived");
}

#[tokio::test]
async fn a_child_outside_the_group_does_not_hold_the_result() {
    let fx = Fixture::new();
    for command in [
        "setsid sleep 30 & echo $! > pid.txt; echo started",
        "setsid sleep infinity & echo $! > pid.txt; echo started",
    ] {
        let started = Instant::now();
        let out = fx
            .call::<Bash>(json!({"command": command, "timeout": 2000}))
            .await
            .unwrap();
        let took = started.elapsed();
        let pid = pid_in(&fx.root().join("pid.txt")).await;
        let _ = std::process::Command::new("kill")
            .arg(pid.to_string())
            .status();
        assert_eq!(out, "started");
        assert!(took < Duration::from_secs(5), "{command:?} took {took:?}");
        std::fs::remove_file(fx.root().join("pid.txt")).unwrap();
    }
}

#[tokio::test]
async fn timeouts_out_of_range_are_refused() {
    let fx = Fixture::new();
    for timeout in [json!(0), json!(600_001), json!(-5)] {
        let error = fx
            .call::<Bash>(json!({"command": "true", "timeout": timeout}))
            .await
            .unwrap_err();
        assert!(error.contains("timeout"), "{error}");
    }
}

#[tokio::test]
async fn cancelling_kills_grandchildren() {
    let fx = Fixture::new();
    let abort = fx.abort.clone();
    let root = fx.root();
    let canceller = tokio::spawn(async move {
        let pid = pid_in(&root.join("pid.txt")).await;
        abort.cancel();
        pid
    });
    let error = fx
        .call::<Bash>(json!({"command": GRANDCHILD}))
        .await
        .unwrap_err();
    assert!(error.starts_with("Exit code 137\n"), "{error}");
    let pid = canceller.await.unwrap();
    assert!(wait_gone(pid).await, "the background sleep {pid} survived");
}

#[tokio::test]
async fn dropping_the_call_kills_grandchildren() {
    let fx = Fixture::new();
    let pid_file = fx.root().join("pid.txt");
    let pid = {
        let call = fx.call::<Bash>(json!({"command": GRANDCHILD}));
        tokio::pin!(call);
        tokio::select! {
            _ = &mut call => panic!("the command ended on its own"),
            pid = pid_in(&pid_file) => pid,
        }
        // The running call is dropped here.
    };
    assert!(wait_gone(pid).await, "the background sleep {pid} survived");
}

#[tokio::test]
async fn output_is_capped_keeping_both_ends() {
    let fx = Fixture::new();
    let out = fx
        .call::<Bash>(json!({"command": "echo FIRST; seq 1 200000; echo LAST"}))
        .await
        .unwrap();
    assert!(
        out.chars().count() <= process::MAX_OUTPUT_CHARS,
        "{}",
        out.len()
    );
    assert!(out.starts_with("FIRST\n1\n2\n"));
    assert!(out.ends_with("199999\n200000\nLAST"));
    let total = "FIRST\n".len()
        + (1..=200_000)
            .map(|n: u32| n.to_string().len() + 1)
            .sum::<usize>()
        + "LAST".len();
    let dropped = total
        - (out.chars().count()
            - out.find("\n\n... [").map_or(0, |at| {
                let marker_end = out[at..].find("] ...\n\n").unwrap() + at + "] ...\n\n".len();
                marker_end - at
            }));
    assert!(
        out.contains(&format!("\n\n... [{dropped} characters truncated] ...\n\n")),
        "expected {dropped} dropped: {}",
        &out[14_000..16_000]
    );
}

#[tokio::test]
async fn output_of_both_streams_is_capped_once_with_the_true_count() {
    let fx = Fixture::new();
    let out = fx
        .call::<Bash>(json!({
            "command": "echo FIRST; seq 1 200000; seq 1 100000 >&2; echo LAST >&2"
        }))
        .await
        .unwrap();
    assert_eq!(out.matches("characters truncated").count(), 1, "{out}");
    assert!(out.chars().count() <= process::MAX_OUTPUT_CHARS);
    assert!(out.starts_with("FIRST\n1\n2\n"));
    assert!(out.ends_with("99999\n100000\nLAST"));
    let lines = |n: u32| (1..=n).map(|n| n.to_string().len() + 1).sum::<usize>();
    let total = "FIRST\n".len() + lines(200_000) + lines(100_000) + "LAST".len();
    let at = out.find("\n\n... [").unwrap();
    let end = out[at..].find("] ...\n\n").unwrap() + at + "] ...\n\n".len();
    let shown = out.len() - (end - at);
    let dropped = total - shown;
    assert!(
        out.contains(&format!("\n\n... [{dropped} characters truncated] ...\n\n")),
        "expected {dropped}: {}",
        &out[at..end]
    );
}

#[test]
fn flags_follow_the_command() {
    let tool = TypedTool::of::<Bash>(None);
    let flags = |command: &str| {
        let call = tool.parse_input(&json!({"command": command})).unwrap();
        (call.is_read_only(), call.is_concurrency_safe())
    };
    assert_eq!(flags("git status"), (true, true));
    assert_eq!(flags("ls -la | wc -l"), (true, true));
    assert_eq!(flags("rm -rf target"), (false, false));
    assert_eq!(flags("echo x > f"), (false, false));
    let call = tool.parse_input(&json!({"command": "ls"})).unwrap();
    assert_eq!(call.interrupt_behavior(), InterruptBehavior::Cancel);
}

#[test]
fn the_permission_matcher_covers_rule_contents() {
    let tool = TypedTool::of::<Bash>(None);
    let call = tool
        .parse_input(&json!({"command": "git log --oneline -3"}))
        .unwrap();
    let matcher = call.prepare_permission_matcher().unwrap();
    assert!(matcher.matches("git *"));
    assert!(matcher.matches("git:*"));
    assert!(!matcher.matches("npm *"));
    assert!(!matcher.matches("git status"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_interrupt_stops_the_call_and_kills_its_group() {
    use std::sync::Arc;

    use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
    use tool_sdk::{CancellationToken, Extensions, ToolUseBlock};

    let fx = Fixture::new();
    let tools: Vec<Arc<dyn DynTool>> = vec![Arc::new(TypedTool::of::<Bash>(None))];
    let orchestrator = Orchestrator::new(&tools, OrchestratorConfig::default());
    let interrupt = CancellationToken::new();
    let turn = TurnState {
        extensions: Extensions::new().with(Workspace::new(fx.root()).unwrap()),
        interrupt: interrupt.clone(),
        ..TurnState::default()
    };
    let blocks: Vec<ToolUseBlock> = serde_json::from_value(json!([
        {"id": "toolu_long", "name": "Bash", "input": {"command": GRANDCHILD}}
    ]))
    .unwrap();
    let running = tokio::spawn(orchestrator.run_tools(blocks, turn).collect_results());
    let pid = pid_in(&fx.root().join("pid.txt")).await;
    interrupt.cancel();
    let outcome = tokio::time::timeout(Duration::from_secs(10), running)
        .await
        .expect("the interrupted call is answered at once")
        .unwrap();
    assert!(outcome.results[0].is_error, "{:?}", outcome.results[0]);
    assert!(wait_gone(pid).await, "the background sleep {pid} survived");
}

#[test]
fn the_timeout_schema_says_exactly_what_is_accepted() {
    let tool = TypedTool::of::<Bash>(None);
    let schema = tool.input_schema();
    let timeout = &schema["properties"]["timeout"];
    assert_eq!(timeout["type"], "number", "{timeout}");
    assert_eq!(timeout["exclusiveMinimum"], 0, "{timeout}");
    assert_eq!(timeout["maximum"], 600_000, "{timeout}");
    assert!(timeout.get("minimum").is_none(), "{timeout}");
    assert!(timeout.get("format").is_none(), "{timeout}");
    assert_eq!(
        timeout["description"],
        "Optional timeout in milliseconds (max 600000)"
    );
    let required = schema["required"].as_array().unwrap();
    assert_eq!(required, &[json!("command")]);
}
