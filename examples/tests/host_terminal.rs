//! The progress display on a real terminal: `tool-host run` inside a tmux pane shows one
//! spinner per running call, then a finished line per call. Skips, saying so, when tmux is
//! not installed (`.ci/run` installs it).

mod tmux_support;

use std::time::{Duration, Instant};

use serde_json::json;
use tmux_support::Tmux;

#[test]
fn running_calls_show_spinners_on_a_terminal() {
    if !tmux_support::installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let turn = dir.path().join("turn.json");
    std::fs::write(
        &turn,
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_slow_a", "name": "Bash", "input": {"command": "sleep 2; echo one"}},
            {"type": "tool_use", "id": "toolu_slow_b", "name": "Bash", "input": {"command": "sleep 2; echo two"}}
        ]})
        .to_string(),
    )
    .unwrap();
    let command = format!(
        "{} run {} --root {} --run-bash > {}; sleep 30",
        env!("CARGO_BIN_EXE_tool-host"),
        turn.display(),
        dir.path().display(),
        dir.path().join("out.json").display()
    );
    let tmux = Tmux::start("tool-host-test", "progress", (120, 20), &command);
    let running = tmux.wait_for("spinners while the calls ran", |screen| {
        screen.contains("Bash(command: \"sleep 2; echo one\")")
            && screen.contains("Bash(command: \"sleep 2; echo two\")")
            && screen.contains("[00:00:0")
    });
    // Both calls are read-only, so they run at once: two spinner lines at the same time.
    let spinners = running
        .lines()
        .filter(|line| line.contains("Bash(command:"))
        .count();
    assert_eq!(spinners, 2, "{running}");
    // The summary line follows the finished lines: wait for it too, not just for them.
    let finished = tmux.wait_for("both calls finished", |screen| {
        screen.contains("✓ done toolu_slow_a Bash ok in")
            && screen.contains("✓ done toolu_slow_b Bash ok in")
            && screen.contains("answered 2 tool_use blocks")
    });
    assert!(
        finished.contains("answered 2 tool_use blocks: 2 ok, 0 errors"),
        "{finished}"
    );
    // stdout (the user message) is written last, just after the summary line.
    let out_file = dir.path().join("out.json");
    let deadline = Instant::now() + Duration::from_secs(10);
    let out: serde_json::Value = loop {
        let text = std::fs::read_to_string(&out_file).unwrap_or_default();
        if let Ok(value) = serde_json::from_str(&text) {
            break value;
        }
        assert!(
            Instant::now() < deadline,
            "no JSON in {}: {text}",
            out_file.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(out["content"][0]["content"], "one");
}
