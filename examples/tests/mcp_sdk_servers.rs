//! `tool-host` importing servers written with the official MCP SDKs, over the revision each
//! speaks: a server written with the Python SDK (PyPI `mcp` 2.3.0,
//! `tests/mcp_peers/python_server.py`, the SDK README's kind) speaks MCP 2026-07-28, over
//! stdio and streamable HTTP; the TypeScript SDK's server-everything (npm, pinned) speaks
//! 2025-11-25. Each is listed with its revision and its tools are called through `tool-host
//! run`, including a question the Python server asks (an `InputRequiredResult` round, which a
//! batch run declines). The peers are installed by `scripts/install-mcp-peers.sh`; each test
//! says plainly when one is missing and passes without running.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod common;
use common::peers::peer;

fn tool_host(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tool-host"))
        .args(args)
        .output()
        .expect("tool-host runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn python_server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_peers/python_server.py")
}

/// Runs one assistant message of `calls` (name, input) through `tool-host run --json` with
/// the server option `server` (`--mcp-server NAME=CMD` or `--mcp-url NAME=URL`), every MCP
/// tool allowed; returns the `tool_result` blocks.
fn run(server: [&str; 2], calls: &[(&str, Value)]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let content: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(index, (name, input))| {
            json!({"type": "tool_use", "id": format!("toolu_{index}"), "name": name, "input": input})
        })
        .collect();
    let file = dir.path().join("message.json");
    std::fs::write(
        &file,
        json!({"role": "assistant", "content": content}).to_string(),
    )
    .unwrap();
    let (ok, stdout, stderr) = tool_host(&[
        "run",
        file.to_str().unwrap(),
        "--root",
        dir.path().to_str().unwrap(),
        "--json",
        server[0],
        server[1],
        "--allow",
        "mcp__py",
        "--allow",
        "mcp__ev",
    ]);
    assert!(ok, "{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    answer["content"].as_array().unwrap().clone()
}

fn check_python_server(server: [&str; 2]) {
    let (ok, stdout, stderr) = tool_host(&["mcp", "list", server[0], server[1]]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.starts_with("py: connected (MCP 2026-07-28, 2 tools)"),
        "{stdout}"
    );
    let results = run(
        server,
        &[
            ("mcp__py__add", json!({"a": 2, "b": 3})),
            ("mcp__py__greet", json!({})),
        ],
    );
    assert_eq!(results[0]["content"], "5", "{results:?}");
    assert!(results[0].get("is_error").is_none(), "{results:?}");
    // The server asked for a name; a batch run has nobody to ask, so it declined, and the
    // server ended the call.
    assert_eq!(results[1]["is_error"], true, "{results:?}");
}

#[test]
fn tool_host_imports_a_python_sdk_server_over_stdio_at_2026_07_28() {
    let Some(python) = peer("venv/bin/python") else {
        return;
    };
    let spec = format!(
        "py={} {} stdio",
        python.display(),
        python_server().display()
    );
    check_python_server(["--mcp-server", &spec]);
}

/// The Python server over HTTP, killed when dropped.
struct HttpServer(Child);

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn tool_host_imports_a_python_sdk_server_over_streamable_http_at_2026_07_28() {
    let Some(python) = peer("venv/bin/python") else {
        return;
    };
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _server = HttpServer(
        Command::new(&python)
            .arg(python_server())
            .args(["http", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the Python server starts"),
    );
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the Python server did not listen"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let url = format!("py=http://127.0.0.1:{port}/mcp");
    check_python_server(["--mcp-url", &url]);
}

#[test]
fn tool_host_imports_server_everything_at_2025_11_25() {
    let Some(everything) = peer("npm/node_modules/.bin/mcp-server-everything") else {
        return;
    };
    let spec = format!("ev={}", everything.display());
    let (ok, stdout, stderr) = tool_host(&["mcp", "list", "--mcp-server", &spec]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.starts_with("ev: connected (MCP 2025-11-25, "),
        "{stdout}"
    );
    let results = run(
        ["--mcp-server", &spec],
        &[("mcp__ev__echo", json!({"message": "from tool-host"}))],
    );
    assert!(
        results[0]["content"]
            .as_str()
            .is_some_and(|text| text.contains("from tool-host")),
        "{results:?}"
    );
}
