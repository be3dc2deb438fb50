//! `tool-host chat --programmatic` end to end against the local model server: a programmatic
//! tool calling turn in the shapes of Anthropic's guide (the fixture
//! `tool-registry/tests/data/programmatic/anthropic_turn.json`, see its README): code
//! execution calls a `--tools-json` tool twice, tool-host runs both calls and answers with
//! tool results only, in the code's container, then the model answers.

mod model_server;

use model_server::replay::KEY;
use model_server::{
    ChatProcess, ModelServer, REPLAY_CONTAINER, REPLAY_CONTAINER_EXPIRES, Reply, anthropic_stream,
};
use serde_json::{Value, json};

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tool-registry/tests/data/programmatic/anthropic_turn.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The fixture's `query_database` as a `--tools-json` file, callable by code only.
fn tools_file(fixture: &Value, dir: &std::path::Path) -> std::path::PathBuf {
    let mut definition = fixture["request_tools"][1].clone();
    definition["callers"] = json!(["programmatic"]);
    definition
        .as_object_mut()
        .unwrap()
        .remove("allowed_callers");
    let tools_file = dir.join("tools.json");
    std::fs::write(&tools_file, json!([definition]).to_string()).unwrap();
    tools_file
}

/// The model's reply to the results: the code's output and its answer.
fn final_turn() -> Vec<Value> {
    vec![
        json!({"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_abc123",
               "content": {"type": "code_execution_result", "stdout": "45000 38000",
                           "stderr": "", "return_code": 0, "content": []}}),
        json!({"type": "text", "text": "The West region had the highest revenue."}),
    ]
}

#[test]
fn a_programmatic_turn_runs_the_calls_code_made_and_answers_with_results_only() {
    let fixture = fixture();
    let dir = tempfile::tempdir().unwrap();
    let tools_file = tools_file(&fixture, dir.path());
    let final_turn = final_turn();
    let server = ModelServer::start(vec![
        Reply::Stream(anthropic_stream(
            fixture["response"]["content"].as_array().unwrap(),
            &[],
            None,
        )),
        Reply::Stream(anthropic_stream(&final_turn, &[], None)),
    ]);
    let root = dir.path().to_str().unwrap();
    let chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            root,
            "--programmatic",
            "--search",
            "off",
            "--tools-json",
            tools_file.to_str().unwrap(),
            "-p",
            "Query sales data for the West and East regions, then tell me which region had the highest revenue",
        ],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    let (status, stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    assert!(
        stdout.ends_with("The West region had the highest revenue.\n"),
        "{stdout}"
    );
    for id in ["toolu_def456", "toolu_ghi789"] {
        assert!(
            stderr.contains(&format!(
                "query_database ({id}) was called by code (code_execution_20260120 srvtoolu_abc123)"
            )),
            "{stderr}"
        );
    }

    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{stderr}");
    let tools = requests[0].body["tools"].as_array().unwrap();
    assert!(
        tools.contains(&fixture["request_tools"][0]),
        "the code execution tool is sent: {tools:?}"
    );
    let query = tools
        .iter()
        .find(|tool| tool["name"] == "query_database")
        .unwrap();
    assert_eq!(
        query["allowed_callers"],
        fixture["request_tools"][1]["allowed_callers"]
    );
    assert!(requests[0].body.get("container").is_none());

    let second = &requests[1].body;
    assert_eq!(second["container"], REPLAY_CONTAINER);
    let messages = second["messages"].as_array().unwrap();
    let assistant = &messages[messages.len() - 2];
    assert_eq!(assistant["content"][1]["type"], "server_tool_use");
    assert_eq!(
        assistant["content"][2]["caller"],
        fixture["response"]["content"][2]["caller"]
    );
    let answer = messages.last().unwrap();
    assert_eq!(answer["role"], "user");
    let blocks = answer["content"].as_array().unwrap();
    let ids: Vec<&str> = blocks
        .iter()
        .map(|block| {
            assert_eq!(block["type"], "tool_result", "results only: {answer}");
            block["tool_use_id"].as_str().unwrap()
        })
        .collect();
    assert_eq!(ids, ["toolu_def456", "toolu_ghi789"]);
    assert!(
        blocks.iter().all(|block| block.get("is_error").is_none()),
        "{answer}"
    );
}

/// The answer to calls made by code holds tool results only (Anthropic's programmatic tool
/// calling rule): when sending it fails, the next prompt is kept back and sent as a user
/// message of its own after the model has replied to the results.
#[test]
fn the_next_prompt_after_an_error_does_not_join_the_results_of_calls_made_by_code() {
    let fixture = fixture();
    let dir = tempfile::tempdir().unwrap();
    let tools_file = tools_file(&fixture, dir.path());
    let server = ModelServer::start(vec![
        Reply::Stream(anthropic_stream(
            fixture["response"]["content"].as_array().unwrap(),
            &[],
            None,
        )),
        Reply::Status {
            code: 400,
            headers: Vec::new(),
            body: json!({"type": "error", "error": {"type": "invalid_request_error", "message": "refused once"}}),
        },
        Reply::Stream(anthropic_stream(&final_turn(), &[], None)),
        Reply::Stream(anthropic_stream(
            &[json!({"type": "text", "text": "East: 38000."})],
            &[],
            None,
        )),
    ]);
    let root = dir.path().to_str().unwrap();
    let mut chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            root,
            "--programmatic",
            "--search",
            "off",
            "--tools-json",
            tools_file.to_str().unwrap(),
        ],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    chat.write_line("Which region had the highest revenue?");
    chat.wait_stderr("refused once");
    chat.write_line("And the East?");
    server.wait_for_requests(4);
    let (status, _stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    let requests = server.requests();
    assert_eq!(requests.len(), 4, "{stderr}");
    let results_only = |body: &Value| {
        let last = body["messages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["role"], "user");
        last["content"]
            .as_array()
            .unwrap()
            .iter()
            .all(|block| block["type"] == "tool_result")
    };
    assert!(results_only(&requests[1].body), "{}", requests[1].body);
    assert!(
        results_only(&requests[2].body),
        "the next prompt joined the results: {}",
        requests[2].body
    );
    assert_eq!(
        requests[2].body["messages"].as_array().unwrap().len(),
        requests[1].body["messages"].as_array().unwrap().len()
    );
    let messages = requests[3].body["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"][0]["text"], "And the East?", "{last}");
    assert_eq!(messages[messages.len() - 2]["role"], "assistant");
    assert_eq!(
        messages[messages.len() - 2]["content"][1]["text"],
        "The West region had the highest revenue."
    );
}

/// A container whose `expires_at` has passed is not sent again (the request would fail).
#[test]
fn an_expired_container_is_not_sent_again() {
    let fixture = fixture();
    let dir = tempfile::tempdir().unwrap();
    let tools_file = tools_file(&fixture, dir.path());
    let expired: Vec<(String, std::time::Duration)> = anthropic_stream(
        fixture["response"]["content"].as_array().unwrap(),
        &[],
        None,
    )
    .into_iter()
    .map(|(part, pause)| {
        (
            part.replace(REPLAY_CONTAINER_EXPIRES, "2000-01-01T00:00:00Z"),
            pause,
        )
    })
    .collect();
    assert!(
        expired
            .iter()
            .any(|(part, _)| part.contains("2000-01-01T00:00:00Z"))
    );
    let server = ModelServer::start(vec![
        Reply::Stream(expired),
        Reply::Stream(anthropic_stream(&final_turn(), &[], None)),
    ]);
    let chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            dir.path().to_str().unwrap(),
            "--programmatic",
            "--search",
            "off",
            "--tools-json",
            tools_file.to_str().unwrap(),
            "-p",
            "Which region had the highest revenue?",
        ],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    let (status, _stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{stderr}");
    assert!(
        requests[1].body.get("container").is_none(),
        "{}",
        requests[1].body
    );
}

#[test]
fn allow_programmatic_without_programmatic_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let server = ModelServer::start(vec![Reply::Stream(anthropic_stream(
        &[json!({"type": "text", "text": "hi"})],
        &[],
        None,
    ))]);
    let chat = ChatProcess::start(
        &[
            "--base-url",
            &server.url,
            "--root",
            dir.path().to_str().unwrap(),
            "--allow-programmatic",
            "Glob",
            "-p",
            "hi",
        ],
        &[("ANTHROPIC_API_KEY", KEY)],
    );
    let (status, _stdout, stderr) = chat.finish();
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("--allow-programmatic without --programmatic: the code execution tool is not sent, so no code can call Glob"),
        "{stderr}"
    );
}

#[test]
fn programmatic_calling_is_refused_for_openai() {
    let chat = ChatProcess::start(
        &[
            "--provider",
            "openai",
            "--base-url",
            "http://127.0.0.1:9",
            "--programmatic",
            "-p",
            "hi",
        ],
        &[],
    );
    let (status, _stdout, stderr) = chat.finish();
    assert!(!status.success());
    assert!(stderr.contains("--programmatic is Anthropic's"), "{stderr}");
}
