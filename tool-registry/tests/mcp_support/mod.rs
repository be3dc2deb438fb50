//! Finding the pinned MCP peers in `target/mcp-peers/` and running a turn through
//! `run_tools`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tool_registry::ToolPermissionContext;
use tool_registry::mcp::McpServerConfig;
use tool_registry::orchestration::TurnOutcome;
use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
use tool_registry::test_support::normalize_name_for_mcp;
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::{CancellationToken, DynTool, Extensions, ToolUseBlock};

/// `target/mcp-peers/` of the workspace.
pub fn peers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/mcp-peers")
}

/// This crate's `tests/mcp_peers/` (our own scripted peers).
pub fn own_peers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_peers")
}

fn skip(what: &str) {
    assert!(
        std::env::var_os("TOOL_SDK_REQUIRE_PEERS").is_none(),
        "{what} is missing, and TOOL_SDK_REQUIRE_PEERS says the peers are installed"
    );
    eprintln!(
        "SKIPPED: {what} is not installed; run scripts/install-mcp-peers.sh (CI does) to run this test"
    );
}

fn npm_entry(package: &str) -> Option<PathBuf> {
    let entry = peers_dir()
        .join("npm/node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    if entry.is_file() && which("node").is_some() {
        Some(entry)
    } else {
        skip(&format!("@modelcontextprotocol/{package} (or node)"));
        None
    }
}

/// `program` on `PATH`.
pub fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())
    })
}

/// server-everything over stdio, or `None` (with a message) when it is not installed.
pub fn everything_stdio(name: &str) -> Option<McpServerConfig> {
    let entry = npm_entry("server-everything")?;
    Some(McpServerConfig::stdio(
        name,
        "node",
        vec![entry.display().to_string(), "stdio".into()],
    ))
}

/// server-filesystem over stdio, allowed `dir` only.
pub fn filesystem_stdio(name: &str, dir: &Path) -> Option<McpServerConfig> {
    let entry = npm_entry("server-filesystem")?;
    Some(McpServerConfig::stdio(
        name,
        "node",
        vec![entry.display().to_string(), dir.display().to_string()],
    ))
}

/// mcp-server-git from the virtualenv.
pub fn git_stdio(name: &str) -> Option<McpServerConfig> {
    let program = peers_dir().join("venv/bin/mcp-server-git");
    if !program.is_file() {
        skip("mcp-server-git (PyPI, in target/mcp-peers/venv)");
        return None;
    }
    Some(McpServerConfig::stdio(
        name,
        program.display().to_string(),
        Vec::new(),
    ))
}

/// Our hostile server in `mode`, or `None` without python3.
pub fn hostile(name: &str, mode: &str) -> Option<McpServerConfig> {
    if which("python3").is_none() {
        skip("python3");
        return None;
    }
    let script = own_peers_dir().join("hostile_server.py");
    Some(McpServerConfig::stdio(
        name,
        "python3",
        vec![script.display().to_string(), mode.to_owned()],
    ))
}

/// A git repository with one commit, or `None` without git.
pub fn init_git_repo() -> Option<tempfile::TempDir> {
    which("git")?;
    let dir = tempfile::tempdir().ok()?;
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .output()
            .is_ok_and(|out| out.status.success())
    };
    std::fs::write(dir.path().join("a.txt"), "a\n").ok()?;
    (git(&["init", "-q", "-b", "main"])
        && git(&["add", "a.txt"])
        && git(&["commit", "-q", "-m", "one"]))
    .then_some(dir)
}

/// server-everything's streamable HTTP mode on a free loopback port; the child is killed when
/// the returned handle drops. With `header_log`, each request's method and `authorization`
/// and `x-probe` headers are appended there as JSON lines (`tests/mcp_peers/loopback.cjs`).
pub async fn everything_http(
    name: &str,
    header_log: Option<&Path>,
) -> Option<(McpServerConfig, tokio::process::Child)> {
    let entry = npm_entry("server-everything")?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()?
        .port();
    let mut command = tokio::process::Command::new("node");
    if let Some(log) = header_log {
        command.env("MCP_HEADER_LOG", log);
    }
    let child = command
        .arg("-r")
        .arg(own_peers_dir().join("loopback.cjs"))
        .arg(&entry)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .ok()?;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            let url = format!("http://127.0.0.1:{port}/mcp");
            return Some((McpServerConfig::http(name, url), child));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("server-everything did not listen on 127.0.0.1:{port} within 10 s");
}

/// The primary names of `tools`.
pub fn tool_names(tools: &[Arc<dyn DynTool>]) -> Vec<String> {
    tools.iter().map(|tool| tool.name().to_owned()).collect()
}

/// Runs `(id, name, input)` blocks through `run_tools` and collects the turn.
pub async fn run_turn(
    tools: &[Arc<dyn DynTool>],
    blocks: &[(&str, &str, Value)],
    extensions: Extensions,
    abort: Option<CancellationToken>,
) -> TurnOutcome {
    let blocks: Vec<ToolUseBlock> = blocks
        .iter()
        .map(|(id, name, input)| ToolUseBlock {
            id: (*id).to_owned(),
            name: (*name).to_owned(),
            input: input.clone(),
        })
        .collect();
    let mut state = TurnState {
        extensions,
        ..TurnState::default()
    };
    if let Some(abort) = abort {
        state.abort = abort;
    }
    // The host's user allowed every connected server (`mcp__SERVER` rules, SPEC §6).
    let mut permissions = ToolPermissionContext::default();
    let mut servers: Vec<String> = tools
        .iter()
        .filter_map(|tool| {
            tool.meta()
                .mcp_info
                .as_ref()
                .map(|info| info.server_name.clone())
        })
        .collect();
    servers.dedup();
    for server in servers {
        permissions.add_rule_str(
            PermissionRuleSource::CliArg,
            PermissionBehavior::Allow,
            &format!("mcp__{}", normalize_name_for_mcp(&server)),
            &AliasTable::default(),
        );
    }
    Orchestrator::new(tools, OrchestratorConfig::default())
        .with_permissions(permissions)
        .run_tools(blocks, state)
        .collect_results()
        .await
}
