//! `tool-host chat --programmatic` end to end against the local model server: a programmatic
//! tool calling turn in the shapes of Anthropic's guide (the fixture
//! `tool-registry/tests/data/programmatic/anthropic_turn.json`, see its README): code
//! execution calls a `--tools-json` tool twice, tool-host runs both calls and answers with
//! tool results only, in the code's container, then the model answers.

mod model_server;

use model_server::replay::KEY;
use model_server::{ChatProcess, ModelServer, REPLAY_CONTAINER, Reply, anthropic_stream};
use serde_json::{Value, json};

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tool-registry/tests/data/programmatic/anthropic_turn.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_programmatic_turn_runs_the_calls_code_made_and_answers_with_results_only() {
    let fixture = fixture();
    let dir = tempfile::tempdir().unwrap();
    let mut definition = fixture["request_tools"][1].clone();
    definition["callers"] = json!(["programmatic"]);
    definition
        .as_object_mut()
        .unwrap()
        .remove("allowed_callers");
    let tools_file = dir.path().join("tools.json");
    std::fs::write(&tools_file, json!([definition]).to_string()).unwrap();

    let final_turn = vec![
        json!({"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_abc123",
               "content": {"type": "code_execution_result", "stdout": "45000 38000",
                           "stderr": "", "return_code": 0, "content": []}}),
        json!({"type": "text", "text": "The West region had the highest revenue."}),
    ];
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
