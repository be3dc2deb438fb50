//! The progress display on a real terminal: `tool-host run` inside a tmux pane shows one
//! spinner per running call, then a finished line per call. Skips, saying so, when tmux is
//! not installed (`.ci/run` installs it).

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

/// A tmux server of our own (its own socket), killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "progress"]).stdout)
            .into_owned()
    }

    /// Polls the pane until `done` holds for its text, for up to `limit`.
    fn wait_for(&self, limit: Duration, done: impl Fn(&str) -> bool) -> Option<String> {
        let started = Instant::now();
        while started.elapsed() < limit {
            let screen = self.screen();
            if done(&screen) {
                return Some(screen);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

#[test]
fn running_calls_show_spinners_on_a_terminal() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!(
            "SKIPPED: tmux is not installed (apt-get install -y tmux), so no terminal was driven"
        );
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
    let tmux = Tmux {
        socket: format!("tool-host-test-{}", std::process::id()),
    };
    let started = tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "progress",
        "-x",
        "120",
        "-y",
        "20",
        &command,
    ]);
    assert!(
        started.status.success(),
        "{}",
        String::from_utf8_lossy(&started.stderr)
    );
    let running = tmux
        .wait_for(Duration::from_secs(20), |screen| {
            screen.contains("Bash(command: \"sleep 2; echo one\")")
                && screen.contains("Bash(command: \"sleep 2; echo two\")")
                && screen.contains("[00:00:0")
        })
        .unwrap_or_else(|| panic!("no spinners while the calls ran:\n{}", tmux.screen()));
    // Both calls are read-only, so they run at once: two spinner lines at the same time.
    let spinners = running
        .lines()
        .filter(|line| line.contains("Bash(command:"))
        .count();
    assert_eq!(spinners, 2, "{running}");
    let finished = tmux
        .wait_for(Duration::from_secs(20), |screen| {
            screen.contains("✓ done toolu_slow_a Bash ok in")
                && screen.contains("✓ done toolu_slow_b Bash ok in")
        })
        .unwrap_or_else(|| panic!("the calls never showed as finished:\n{}", tmux.screen()));
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
