//! `tool-host search`, run as a real child process over recorded MCP `tools/list` results.

mod common;

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

fn fixtures() -> Option<PathBuf> {
    let dir = common::fixtures_dir().join("mcp-tools-lists");
    dir.is_dir().then_some(dir)
}

fn host(args: &[String]) -> (bool, String, String) {
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

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|arg| (*arg).to_owned()).collect()
}

#[test]
fn search_ranks_mcp_tools_from_a_recorded_list() {
    let Some(dir) = fixtures() else {
        eprintln!("SKIPPED: ../shared/fixtures is absent");
        return;
    };
    let git = format!(
        "git={}",
        dir.join("mcp-server-git-2026.10.19.json").display()
    );
    let (ok, stdout, stderr) = host(&args(&[
        "search",
        "+git diff",
        "--max-results",
        "3",
        "--mcp-tools-json",
        &git,
    ]));
    assert!(ok, "{stderr}");
    assert_eq!(
        stdout,
        "1. mcp__git__git_diff\n2. mcp__git__git_diff_staged\n3. mcp__git__git_diff_unstaged\n\
         searched 12 deferred tools in a pool of 22\n"
    );
    let (ok, stdout, stderr) = host(&args(&[
        "search",
        "select:mcp__git__git_status,Read,Nope",
        "--json",
        "--mcp-tools-json",
        &git,
    ]));
    assert!(ok, "{stderr}");
    let block: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        block,
        json!({"type": "tool_result", "tool_use_id": "toolu_tool_host_search", "content": [
            {"type": "tool_reference", "tool_name": "mcp__git__git_status"},
            {"type": "tool_reference", "tool_name": "Read"}
        ]})
    );
}

#[test]
fn search_without_deferred_tools_says_nothing_matched() {
    let (ok, stdout, _) = host(&args(&["search", "zebra"]));
    assert!(ok);
    assert_eq!(
        stdout,
        "No deferred tools matched the query\nsearched 0 deferred tools in a pool of 10\n"
    );
    let (ok, _, stderr) = host(&args(&["search", "x", "--max-results", "0"]));
    assert!(!ok);
    assert!(stderr.contains("--max-results"), "{stderr}");
}
