//! `tool-host` with a live MCP server: our scripted stdio server
//! (`tool-registry/tests/mcp_peers/hostile_server.py`), so only python3 is needed; the test
//! says so and passes when it is missing.

use std::path::Path;
use std::process::Command;

fn server_spec(name: &str) -> Option<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tool-registry/tests/mcp_peers/hostile_server.py");
    let has_python = Command::new("python3").arg("--version").output().is_ok();
    if !has_python {
        eprintln!("SKIPPED: python3 is not installed");
        return None;
    }
    Some(format!("{name}=python3 '{}' bad-entries", script.display()))
}

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

#[test]
fn mcp_list_prints_status_tools_and_skipped_entries() {
    let Some(spec) = server_spec("hostile") else {
        return;
    };
    let (ok, stdout, stderr) = tool_host(&["mcp", "list", "--mcp-server", &spec]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.starts_with("hostile: connected (7 tools)"),
        "{stdout}"
    );
    assert!(stdout.contains("mcp__hostile__echo"), "{stdout}");
    assert!(stdout.contains("skipped #1"), "{stdout}");
}

#[test]
fn mcp_config_files_use_the_mcp_servers_shape() {
    if server_spec("x").is_none() {
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tool-registry/tests/mcp_peers/hostile_server.py");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp.json");
    let document = serde_json::json!({"mcpServers": {
        "fromfile": {"command": "python3", "args": [script, "bad-entries"]},
        "silent": {"command": "python3", "args": [script, "no-init"], "connectTimeout": 1000}
    }});
    std::fs::write(&config, document.to_string()).unwrap();
    let (ok, stdout, stderr) =
        tool_host(&["mcp", "list", "--mcp-config", &config.display().to_string()]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("fromfile: connected (7 tools)"), "{stdout}");
    assert!(stdout.contains("mcp__fromfile__echo"), "{stdout}");
    assert!(
        stdout.contains("silent: failed: no answer to initialize and tools/list within 1000 ms"),
        "{stdout}"
    );
}

#[test]
fn pool_and_run_use_the_live_tools() {
    let Some(spec) = server_spec("h") else {
        return;
    };
    let (ok, stdout, stderr) = tool_host(&["pool", "--mcp-server", &spec]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("mcp__h__echo") && stdout.contains("mcp:h"),
        "{stdout}"
    );
    let dir = tempfile::tempdir().unwrap();
    let message = dir.path().join("message.json");
    std::fs::write(
        &message,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"mcp__h__echo","input":{"text":"hi"}}]}"#,
    )
    .unwrap();
    let root = dir.path().display().to_string();
    let file = message.display().to_string();
    // Without a rule the MCP tool needs approval, which tool-host cannot ask for.
    let (_, stdout, _) = tool_host(&["run", &file, "--root", &root, "--mcp-server", &spec]);
    assert!(stdout.contains("\"is_error\": true"), "{stdout}");
    let (ok, stdout, stderr) = tool_host(&[
        "run",
        &file,
        "--root",
        &root,
        "--mcp-server",
        &spec,
        "--allow",
        "mcp__h",
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains(r#"\"text\": \"hi\""#), "{stdout}");
    assert!(!stdout.contains("is_error"), "{stdout}");
}
