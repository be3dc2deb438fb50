//! Shared by the tool-host tests: running the real binary, and where the recorded fixtures
//! are (`$TOOL_SDK_FIXTURES` when set, otherwise `../shared/fixtures` beside the repository,
//! the CI layout). Each test file uses part of it.

#![allow(dead_code)]

pub mod peers;

use std::path::PathBuf;
use std::process::Command;

/// The fixtures directory (it may not exist; tests skip, saying so).
pub fn fixtures_dir() -> PathBuf {
    std::env::var_os("TOOL_SDK_FIXTURES").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures"),
        PathBuf::from,
    )
}

/// Runs the `tool-host` binary with `args`: whether it exited 0, its stdout and its stderr.
pub fn host(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_tool-host"))
        .args(args)
        .output()
        .expect("tool-host runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Writes `message` (an assistant message) to `turn.json` in `dir` and answers it with
/// `tool-host run --root DIR`: whether it exited 0, its stdout and its stderr.
pub fn run_message(dir: &std::path::Path, message: &serde_json::Value) -> (bool, String, String) {
    let file = dir.join("turn.json");
    std::fs::write(&file, message.to_string()).expect("turn.json is written");
    host(&[
        "run",
        file.to_str().expect("a UTF-8 path"),
        "--root",
        dir.to_str().expect("a UTF-8 path"),
    ])
}
