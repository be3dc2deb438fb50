//! `tool-host` with a live MCP server: our scripted stdio server
//! (`tool-registry/tests/mcp_peers/hostile_server.py`), so only python3 is needed; the test
//! says so and passes when it is missing.

use std::path::Path;
use std::process::Command;

mod common;

/// The scripted stdio server.
fn hostile_script() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-registry/tests/mcp_peers/hostile_server.py")
}

fn server_spec(name: &str) -> Option<String> {
    let script = hostile_script();
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
        stdout.starts_with("hostile: connected (MCP 2025-06-18, 7 tools)"),
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
    let script = hostile_script();
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
    assert!(
        stdout.contains("fromfile: connected (MCP 2025-06-18, 7 tools)"),
        "{stdout}"
    );
    assert!(stdout.contains("mcp__fromfile__echo"), "{stdout}");
    assert!(
        stdout.contains("silent: failed: no answer to server/discover or initialize and tools/list within 1000 ms"),
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

/// A recorded `tools/list` and a live server serving the very same list give the same pool:
/// one import normaliser reads both. The list holds what breaks a careless import: a `null`
/// entry, a non-string name, a missing schema, a repeated name, two names equal after
/// cleaning, a root-`$ref` schema and an untyped one.
#[test]
fn a_recorded_list_and_a_live_server_give_the_same_definitions() {
    if server_spec("x").is_none() {
        return;
    }
    let script = hostile_script();
    let object = serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}});
    let list = serde_json::json!({"tools": [
        {"name": "echo", "description": "Echoes text.", "inputSchema": object},
        null,
        {"name": 7, "inputSchema": object},
        {"name": "no_schema"},
        {"name": "refd", "description": "Takes a number.", "inputSchema": {
            "$ref": "#/$defs/In",
            "$defs": {"In": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}},
        {"name": "untyped", "inputSchema": {"properties": {"a": {"type": "string"}}}},
        {"name": "a.b", "inputSchema": object},
        {"name": "a_b", "inputSchema": object},
        {"name": "echo", "description": "A second echo.", "inputSchema": object},
        {"name": "read", "inputSchema": object, "annotations": {"readOnlyHint": true}}
    ]});
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.json");
    std::fs::write(&file, list.to_string()).unwrap();
    let recorded = format!("s={}", file.display());
    let live = format!(
        "s=python3 '{}' from-file '{}'",
        script.display(),
        file.display()
    );
    for format in ["anthropic", "openai-chat", "mcp"] {
        let from_file = tool_host(&[
            "definitions",
            "--format",
            format,
            "--mcp-tools-json",
            &recorded,
        ]);
        let from_server = tool_host(&["definitions", "--format", format, "--mcp-server", &live]);
        assert!(from_file.0, "{}", from_file.2);
        assert!(from_server.0, "{}", from_server.2);
        assert_eq!(from_file.1, from_server.1, "--format {format}");
        // Both say which entries were skipped, in the same words.
        let warnings = |stderr: &str| -> Vec<String> {
            stderr
                .lines()
                .filter(|line| line.contains("skipped"))
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(warnings(&from_file.2), warnings(&from_server.2));
        let skipped = warnings(&from_file.2);
        for index in [1, 2, 3, 8] {
            assert!(
                skipped
                    .iter()
                    .any(|line| line.contains(&format!("tool #{index}: skipped"))),
                "#{index} in {skipped:?}"
            );
        }
        assert_eq!(skipped.len(), 4, "{skipped:?}");
    }
    let (_, stdout, _) = tool_host(&[
        "definitions",
        "--format",
        "mcp",
        "--mcp-tools-json",
        &recorded,
    ]);
    let definitions: Vec<serde_json::Value> = serde_json::from_str(&stdout).unwrap();
    let mcp: Vec<&serde_json::Value> = definitions
        .iter()
        .filter(|tool| tool["name"].as_str().unwrap().starts_with("mcp__s__"))
        .collect();
    let names: Vec<&str> = mcp
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 6, "{names:?}");
    assert!(names.contains(&"mcp__s__a_b"), "{names:?}");
    assert!(
        names.iter().any(|name| name.starts_with("mcp__s__a_b_")),
        "the colliding name gets a suffix: {names:?}"
    );
    let refd = mcp
        .iter()
        .find(|tool| tool["name"] == "mcp__s__refd")
        .unwrap();
    assert_eq!(refd["inputSchema"]["properties"]["n"]["type"], "integer");
    assert_eq!(refd["inputSchema"]["required"], serde_json::json!(["n"]));
    let echo = mcp
        .iter()
        .find(|tool| tool["name"] == "mcp__s__echo")
        .unwrap();
    assert_eq!(
        echo["description"], "Echoes text.",
        "the first of two `echo`s is kept"
    );
}

/// An imported MCP 2026-07-28 server's questions, answered by `tool-host run`: a roots
/// request gets the `--root` directory, and an elicitation is declined (there is nobody to
/// ask in a batch run), which the tool sees.
#[test]
fn run_answers_an_imported_servers_questions_with_its_root_and_a_decline() {
    let server = common::peers::start_http(
        env!("CARGO_BIN_EXE_mcp-conformance-server"),
        &["--http", "127.0.0.1:0"],
    );
    let root = tempfile::tempdir().unwrap();
    let message = serde_json::json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_roots", "name": "mcp__conf__test_input_required_result_list_roots", "input": {}},
        {"type": "tool_use", "id": "toolu_name", "name": "mcp__conf__test_input_required_result_elicitation", "input": {}}
    ]});
    let file = root.path().join("message.json");
    std::fs::write(&file, message.to_string()).unwrap();
    let root_text = root.path().to_str().unwrap();
    let (ok, stdout, stderr) = tool_host(&[
        "run",
        file.to_str().unwrap(),
        "--root",
        root_text,
        "--json",
        "--mcp-url",
        &format!("conf={}", server.url),
        "--allow",
        "mcp__conf",
    ]);
    assert!(ok, "{stderr}");
    let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let results = answer["content"].as_array().unwrap();
    let uri = url_of(root.path());
    assert_eq!(
        results[0]["content"],
        format!("Client roots: [{uri}]"),
        "{answer}"
    );
    assert_eq!(results[1]["content"], "Hello, (declined)!", "{answer}");
}

/// `path` as the `file://` URI of a directory, as the roots list gives it.
fn url_of(path: &Path) -> String {
    format!("file://{}/", path.display())
}
