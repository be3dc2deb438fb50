//! `tool-host chat` end to end against a local server that answers like the Anthropic
//! Messages and OpenAI Chat Completions streaming APIs, replaying the assistant turns of a
//! recorded Claude Code session (`transcripts/03`, paths moved into a temporary workspace).
//! Every tool really runs in the `tool-host` child. Without the fixtures each test says it
//! skips and passes. Cancellation is in `chat_cancel.rs`.

mod model_server;

use std::time::Duration;

use model_server::openai_stream;
use model_server::replay::{
    EDIT_A, EDIT_B, KEY, READ_A, READ_B, Replay, assert_key_hidden, last_results, result_text,
    tool_input,
};
use model_server::{ChatProcess, ModelServer, Reply, anthropic_stream, transcript};
use serde_json::{Value, json};

#[test]
fn anthropic_turns_run_tools_while_the_response_streams() {
    let Some(replay) = Replay::load() else { return };
    let server = ModelServer::start(vec![
        Reply::Stream(anthropic_stream(&replay.content(1), &[], None)),
        // A pause after the first Read: it must start before the response has ended.
        Reply::Stream(anthropic_stream(
            &replay.content(3),
            &[(0, Duration::from_millis(700))],
            None,
        )),
        Reply::Stream(anthropic_stream(&replay.content(5), &[], None)),
        Reply::Stream(anthropic_stream(&replay.final_text(), &[], None)),
    ]);
    let prompt = replay.messages[0]["content"].as_str().unwrap().to_owned();
    let chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            replay.root(),
            "-p",
            &prompt,
        ],
        // Every log line included: the key must not show in any of them.
        &[("ANTHROPIC_API_KEY", KEY), ("RUST_LOG", "trace")],
    );
    let (started_read, _) = chat.wait_stderr(&format!("start {READ_A}"));
    let (status, stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    let final_text = replay.final_text()[0]["text"].as_str().unwrap().to_owned();
    assert_eq!(
        stdout,
        format!("{final_text}\n"),
        "stdout holds only the answer"
    );
    assert_key_hidden(&stdout, &stderr);

    let requests = server.requests();
    assert_eq!(requests.len(), 4, "{stderr}");
    let read_turn_ended = requests[1].answered.expect("the stream was sent");
    assert!(
        started_read < read_turn_ended,
        "the first Read started only after the response ended"
    );
    for request in &requests {
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(request.header("x-api-key"), Some(KEY));
        assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
        assert_eq!(request.body["stream"], true);
    }
    let first = &requests[0].body;
    assert_eq!(first["messages"][0]["content"][0]["text"], prompt.as_str());
    assert_eq!(first["max_tokens"], 8192);
    assert_eq!(
        first["system"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
    let tools = first["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    for name in ["Bash", "Edit", "Glob", "Grep", "Read", "Write"] {
        assert!(names.contains(&name), "{names:?}");
    }
    assert_eq!(
        tools
            .iter()
            .filter(|tool| tool.get("cache_control").is_some())
            .count(),
        1,
        "one breakpoint on the last built-in tool"
    );

    // Glob really ran over the workspace.
    let glob = last_results(&requests[1].body);
    assert_eq!(glob.len(), 1);
    assert!(result_text(&glob[0]).contains("math_utils.py"), "{glob:?}");
    // Both Reads answered, in order, with the files' text.
    let reads = last_results(&requests[2].body);
    assert_eq!(reads[0]["tool_use_id"], READ_A);
    assert_eq!(reads[1]["tool_use_id"], READ_B);
    assert!(
        result_text(&reads[0]).contains("def add_numbers"),
        "{reads:?}"
    );
    assert!(
        result_text(&reads[1]).contains("test_add_numbers")
            || result_text(&reads[1]).contains("add_numbers")
    );
    // The assistant turn is in the history as sent.
    let history = requests[2].body["messages"].as_array().unwrap();
    let assistant = &history[history.len() - 2];
    assert_eq!(assistant["content"][0]["id"], READ_A);
    assert_eq!(
        assistant["content"][0]["input"],
        tool_input(&replay.messages[3], READ_A)
    );
    // Both Edits ran (each after its Read) and changed the files.
    let edits = last_results(&requests[3].body);
    assert_eq!(edits.len(), 2);
    for edit in &edits {
        assert!(edit.get("is_error").is_none(), "{edit}");
    }
    assert!(
        replay
            .file("src/math_utils.py")
            .contains("def multiply_numbers")
    );
    assert!(
        replay
            .file("tests/test_math_utils.py")
            .contains("multiply_numbers")
    );
}

fn anthropic_error(kind: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

#[test]
fn rate_limits_and_overload_are_retried_as_the_api_says() {
    let Some(replay) = Replay::load() else { return };
    let server = ModelServer::start(vec![
        Reply::Status {
            code: 429,
            headers: vec![("retry-after".into(), "0".into())],
            body: anthropic_error(
                "rate_limit_error",
                "Number of requests has exceeded your rate limit",
            ),
        },
        Reply::Status {
            code: 529,
            headers: Vec::new(),
            body: anthropic_error("overloaded_error", "Overloaded"),
        },
        // Overloaded after the stream began, before any content: sent again too.
        Reply::Stream(vec![(
            anthropic_stream(&[], &[], None)[0].0.clone()
                + &format!(
                    "event: error\ndata: {}\n\n",
                    anthropic_error("overloaded_error", "Overloaded")
                ),
            Duration::ZERO,
        )]),
        Reply::Stream(anthropic_stream(&replay.final_text(), &[], None)),
    ]);
    let chat = ChatProcess::print_answer(&server.url, replay.root(), "hello");
    let (status, stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("rate limited (429): Number of requests"),
        "{stderr}"
    );
    assert!(
        stderr.contains("retrying in 0.0s (attempt 2 of 4)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the API is overloaded (529): Overloaded"),
        "{stderr}"
    );
    assert!(
        stderr.contains("retrying in 1.0s (attempt 3 of 4)"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "the API stopped the response (overloaded_error): Overloaded; retrying in 2.0s (attempt 4 of 4)"
        ),
        "{stderr}"
    );
    assert!(stdout.starts_with("I can see the structure."), "{stdout}");
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(requests[3].body["messages"], requests[2].body["messages"]);
    assert_key_hidden(&stdout, &stderr);
}

#[test]
fn a_refused_key_is_reported_without_retrying() {
    let server = ModelServer::start(vec![Reply::Status {
        code: 401,
        headers: Vec::new(),
        body: anthropic_error("authentication_error", "invalid x-api-key"),
    }]);
    let dir = tempfile::tempdir().unwrap();
    let chat = ChatProcess::print_answer(&server.url, dir.path().to_str().unwrap(), "hello");
    let (status, stdout, stderr) = chat.finish();
    assert!(!status.success());
    assert!(
        stderr.contains(
            "authentication failed (401): the API refused the key; check ANTHROPIC_API_KEY: invalid x-api-key"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("retrying"), "{stderr}");
    assert_eq!(server.requests().len(), 1);
    assert_key_hidden(&stdout, &stderr);
}

#[test]
fn openai_asks_are_answered_and_a_denial_reaches_the_model() {
    let Some(replay) = Replay::load() else { return };
    let server = ModelServer::start(vec![
        Reply::Status {
            code: 500,
            headers: vec![("retry-after-ms".into(), "50".into())],
            body: json!({"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}),
        },
        // A pause after each call: the first Read must start while the response streams.
        Reply::Stream(openai_stream(
            &replay.content(3),
            Duration::from_millis(400),
        )),
        Reply::Stream(openai_stream(&replay.content(5), Duration::ZERO)),
        Reply::Stream(openai_stream(&replay.final_text(), Duration::ZERO)),
    ]);
    let mut chat = ChatProcess::start(
        &[
            "--provider",
            "openai",
            "--model",
            "gpt-test",
            "--base-url",
            &server.url,
            "--root",
            replay.root(),
            "--ask",
            "Edit",
            "--permission-prompt",
            "stdin",
            "-p",
            "add multiply_numbers",
        ],
        &[("OPENAI_API_KEY", KEY)],
    );
    let (started_read, _) = chat.wait_stderr(&format!("start {READ_A}"));
    chat.wait_stderr("Edit needs your approval to run.");
    chat.write_line("1");
    chat.wait_stderr(&format!("done {EDIT_A}"));
    chat.write_line("n");
    let (status, stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("the API failed (500): The server had an error"),
        "{stderr}"
    );
    assert!(stdout.starts_with("I can see the structure."), "{stdout}");
    assert_key_hidden(&stdout, &stderr);

    let requests = server.requests();
    assert!(
        started_read < requests[1].answered.expect("the stream was sent"),
        "the first Read started only after the response ended"
    );
    assert_eq!(
        requests.len(),
        4,
        "one retry, then two tool turns and the answer"
    );
    for request in &requests {
        assert_eq!(request.path, "/chat/completions");
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {KEY}").as_str())
        );
    }
    let first = &requests[1].body;
    assert_eq!(first["model"], "gpt-test");
    assert!(first.get("max_tokens").is_none(), "sent only when given");
    assert_eq!(first["messages"][0]["role"], "system");
    assert_eq!(first["tools"][0]["type"], "function");
    let after_edits = requests[3].body["messages"].as_array().unwrap();
    let tool_messages: Vec<&Value> = after_edits
        .iter()
        .filter(|message| message["role"] == "tool")
        .collect();
    let allowed = tool_messages
        .iter()
        .find(|message| message["tool_call_id"] == EDIT_A)
        .unwrap();
    assert!(
        allowed["content"]
            .as_str()
            .unwrap()
            .contains("has been updated"),
        "{allowed}"
    );
    let denied = tool_messages
        .iter()
        .find(|message| message["tool_call_id"] == EDIT_B)
        .unwrap();
    assert!(
        denied["content"]
            .as_str()
            .unwrap()
            .starts_with("The user does not want to go ahead with this tool use"),
        "{denied}"
    );
    assert!(
        replay
            .file("src/math_utils.py")
            .contains("def multiply_numbers")
    );
    assert!(
        !replay
            .file("tests/test_math_utils.py")
            .contains("multiply_numbers")
    );
}

#[test]
fn deferred_mcp_tools_are_announced_once_and_found_by_search() {
    let Some(replay) = Replay::load() else { return };
    let fixtures = std::env::var("TOOL_SDK_FIXTURES")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/fixtures").into());
    let tools_list = format!("fs={fixtures}/mcp-tools-lists/server-filesystem-2026.8.31.json");
    let server = ModelServer::start(vec![
        Reply::Stream(anthropic_stream(&replay.final_text(), &[], None)),
        Reply::Stream(anthropic_stream(&replay.final_text(), &[], None)),
        Reply::Stream(anthropic_stream(&replay.final_text(), &[], None)),
    ]);
    let env = [("ANTHROPIC_API_KEY", KEY), ("ENABLE_TOOL_SEARCH", "true")];
    let common = [
        "--base-url",
        &server.url,
        "--root",
        replay.root(),
        "--mcp-tools-json",
        &tools_list,
    ];
    let mut chat = ChatProcess::start(&common, &env);
    chat.write_line("hello");
    server.wait_for_requests(1);
    chat.write_line("again");
    server.wait_for_requests(2);
    let (status, _stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    // Client-side search: ToolSearch is sent, the deferred MCP tools are not, and the first
    // request announces them in a delta before the prompt; the second does not repeat it.
    let mut server_search = common.to_vec();
    server_search.extend(["--search", "bm25", "-p", "hello"]);
    let (status, _stdout, stderr) = ChatProcess::start(&server_search, &env).finish();
    assert!(status.success(), "{stderr}");
    let requests = server.requests();
    let first = &requests[0].body;
    let names: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(names.contains(&"ToolSearch"), "{names:?}");
    assert!(
        !names.iter().any(|name| name.starts_with("mcp__")),
        "{names:?}"
    );
    let opening = first["messages"][0]["content"].as_array().unwrap();
    let reminder = opening[0]["text"].as_str().unwrap();
    assert!(
        reminder.starts_with(
            "<system-reminder>\nThese deferred tools can now be loaded with ToolSearch:\nmcp__fs__"
        ),
        "{reminder}"
    );
    assert_eq!(opening[1]["text"], "hello");
    let second = requests[1].body["messages"].to_string();
    assert_eq!(
        second
            .matches("These deferred tools can now be loaded")
            .count(),
        1
    );
    // Anthropic's server-side search: its tool first, every MCP tool sent deferred, the beta
    // header on.
    let bm25 = &requests[2];
    assert_eq!(
        bm25.header("anthropic-beta"),
        Some("advanced-tool-use-2025-11-20")
    );
    let tools = bm25.body["tools"].as_array().unwrap();
    assert_eq!(tools[0]["type"], "tool_search_tool_bm25_20251119");
    let mcp: Vec<&Value> = tools
        .iter()
        .filter(|tool| {
            tool["name"]
                .as_str()
                .is_some_and(|name| name.starts_with("mcp__fs__"))
        })
        .collect();
    assert!(!mcp.is_empty());
    assert!(mcp.iter().all(|tool| tool["defer_loading"] == true));
}

#[test]
fn without_a_key_or_a_base_url_nothing_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let chat = ChatProcess::start(
        &["--root", dir.path().to_str().unwrap(), "-p", "hello"],
        &[],
    );
    let (status, _stdout, stderr) = chat.finish();
    assert!(!status.success());
    assert!(
        stderr.contains(
            "set ANTHROPIC_API_KEY to your API key (it is read only from the environment)"
        ),
        "{stderr}"
    );
}

#[test]
fn without_a_terminal_a_call_that_needs_approval_is_denied() {
    let Some(replay) = Replay::load() else { return };
    let Some(recorded) = transcript("05-cc2.1-bash-readonly-write-parallel-error.json") else {
        return;
    };
    // The recorded deletions, pointed at the workspace: they must not run.
    let content: Value = serde_json::from_str(
        &recorded["content"]
            .to_string()
            .replace("/home/user/project", replay.root()),
    )
    .unwrap();
    let server = ModelServer::start(vec![
        Reply::Stream(anthropic_stream(content.as_array().unwrap(), &[], None)),
        Reply::Stream(anthropic_stream(&replay.final_text(), &[], None)),
    ]);
    let chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            replay.root(),
            "--ask",
            "Bash",
            "-p",
            "delete the python files",
        ],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    let (status, _stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("denied Bash: it needs approval and there is no terminal to ask on"),
        "{stderr}"
    );
    let results = last_results(&server.requests()[1].body);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["is_error"], true);
    // The reference's rejection result, as if the user had said no.
    assert!(
        result_text(&results[0]).starts_with(
            "The user does not want to go ahead with this tool use, so it was rejected"
        ),
        "{}",
        results[0]
    );
    // A failed Bash call cancels its sibling (SPEC §5.5).
    assert_eq!(results[1]["is_error"], true);
    assert!(
        result_text(&results[1]).contains("Cancelled: the parallel tool call Bash(rm "),
        "{}",
        results[1]
    );
    assert!(replay.dir.path().join("src/math_utils.py").exists());
    assert!(replay.dir.path().join("tests").exists());
}

#[test]
fn live_mcp_servers_join_the_pool_as_deferred_tools() {
    let Some(replay) = Replay::load() else { return };
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: python3 is not installed, so no MCP server was started");
        return;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tool-registry/tests/mcp_peers/hostile_server.py"
    );
    let spec = format!("h=python3 '{script}' bad-entries");
    let server = ModelServer::start(vec![Reply::Stream(anthropic_stream(
        &replay.final_text(),
        &[],
        None,
    ))]);
    let chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            replay.root(),
            "--mcp-server",
            &spec,
            "-p",
            "hello",
        ],
        &[("ANTHROPIC_API_KEY", KEY), ("ENABLE_TOOL_SEARCH", "true")],
    );
    let (status, _stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    let body = &server.requests()[0].body;
    let reminder = body["messages"][0]["content"][0]["text"].as_str().unwrap();
    assert!(reminder.contains("\nmcp__h__echo"), "{reminder}");
    let names = body["tools"].to_string();
    assert!(names.contains("\"ToolSearch\"") && !names.contains("mcp__h__"));
}
