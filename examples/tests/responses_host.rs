//! `tool-host definitions --format openai-responses --tool-search hosted|client`: the example
//! tools as top-level functions (deferred ones with `defer_loading`), a recorded MCP server's
//! tools as one `namespace`, and the `tool_search` tool; every entry accepted by the `openai`
//! Python SDK's `ToolParam` (the providers venv of `target/mcp-peers`).

mod common;
use common::host;

use std::io::Write as _;
use std::path::Path;

use serde_json::{Value, json};

/// A recorded `tools/list` of a server `crm` with the function of OpenAI's tool search guide.
fn crm_list(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("crm.json");
    let list = json!({"tools": [{
        "name": "list_open_orders",
        "description": "List open orders for a customer ID.",
        "inputSchema": {"type": "object", "properties": {"customer_id": {"type": "string"}}, "required": ["customer_id"], "additionalProperties": false}
    }]});
    std::fs::write(&path, list.to_string()).unwrap();
    format!("crm={}", path.display())
}

fn definitions(search: &str, mcp: &str) -> Vec<Value> {
    let (ok, stdout, stderr) = host(&[
        "definitions",
        "--format",
        "openai-responses",
        "--tool-search",
        search,
        "--mcp-tools-json",
        mcp,
    ]);
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn the_responses_definitions_with_tool_search_group_mcp_tools_into_a_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let mcp = crm_list(&dir);
    let tools = definitions("hosted", &mcp);
    let (last, rest) = tools.split_last().unwrap();
    assert_eq!(*last, json!({"type": "tool_search"}));
    let namespace = rest.last().unwrap();
    assert_eq!(namespace["type"], "namespace");
    assert_eq!(namespace["name"], "crm");
    assert_eq!(namespace.get("defer_loading"), None);
    assert_eq!(namespace["tools"][0]["name"], "list_open_orders");
    assert_eq!(namespace["tools"][0]["defer_loading"], true);
    let top: Vec<&str> = rest[..rest.len() - 1]
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(top.contains(&"Read") && top.contains(&"Bash"), "{top:?}");
    let client = definitions("client", &mcp);
    assert_eq!(client.last().unwrap()["execution"], "client");

    if let Some(python) = common::peers::peer("providers/bin/python") {
        check_tool_params(&python, tools.iter().chain(&client));
    }
}

#[test]
fn a_search_kind_of_another_api_is_refused_naming_the_right_ones() {
    let (ok, _, stderr) = host(&[
        "definitions",
        "--format",
        "openai-responses",
        "--tool-search",
        "bm25",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("--tool-search bm25 does not apply to --format openai-responses")
            && stderr.contains("hosted or client"),
        "{stderr}"
    );
    let (ok, stdout, stderr) = host(&[
        "definitions",
        "--format",
        "anthropic",
        "--tool-search",
        "bm25",
    ]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("anthropic-beta: advanced-tool-use-2025-11-20"),
        "{stderr}"
    );
    let tools: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    assert_eq!(tools[0]["type"], "tool_search_tool_bm25_20251119");
}

/// Each tool validated by pydantic as `openai.types.responses.ToolParam` and dumped back
/// unchanged (a key the SDK does not know would be dropped).
fn check_tool_params<'a>(python: &Path, tools: impl IntoIterator<Item = &'a Value>) {
    const SCRIPT: &str = r#"
import json, sys
from pydantic import TypeAdapter
from openai.types.responses import ToolParam
adapter = TypeAdapter(ToolParam)
failures = []
for tool in json.load(sys.stdin):
    try:
        back = json.loads(adapter.dump_json(adapter.validate_python(tool)))
    except Exception as error:
        failures.append(f"{json.dumps(tool)[:300]}: {error}")
        continue
    if back != tool:
        failures.append(f"changed: {json.dumps(tool)} -> {json.dumps(back)}")
print("\n".join(failures))
sys.exit(1 if failures else 0)
"#;
    let tools: Vec<&Value> = tools.into_iter().collect();
    let mut child = std::process::Command::new(python)
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&tools).unwrap().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "the openai SDK's ToolParam refuses our definitions:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `run --format openai-responses` answers client-executed `tool_search_call` items with their
/// `tool_search_output` (an MCP match inside its namespace, by the name the model saw), and a
/// malformed one with no tools, after the function outputs; none is dropped.
#[test]
fn run_answers_client_tool_search_calls_by_call_id() {
    let dir = tempfile::tempdir().unwrap();
    let mcp = crm_list(&dir);
    let file = dir.path().join("response.json");
    let response = json!({"output": [
        {"type": "tool_search_call", "id": "tsc_1", "call_id": "ts1", "execution": "client", "status": "completed", "arguments": {"query": "select:crm.list_open_orders"}},
        {"type": "tool_search_call", "id": "tsc_2", "call_id": "ts2", "execution": "client", "status": "completed", "arguments": {}},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "Glob", "arguments": "{\"pattern\": \"*.nothing\"}"}
    ]});
    std::fs::write(&file, response.to_string()).unwrap();
    let file = file.to_str().unwrap();
    let (ok, stdout, stderr) = host(&[
        "run",
        file,
        "--format",
        "openai-responses",
        "--mcp-tools-json",
        &mcp,
    ]);
    assert!(ok, "{stderr}");
    let answer: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    let kinds: Vec<(&str, &str)> = answer
        .iter()
        .map(|item| {
            (
                item["type"].as_str().unwrap(),
                item["call_id"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("function_call_output", "call_1"),
            ("tool_search_output", "ts1"),
            ("tool_search_output", "ts2")
        ]
    );
    assert_eq!(answer[1]["tools"][0]["type"], "namespace");
    assert_eq!(answer[1]["tools"][0]["name"], "crm");
    assert_eq!(
        answer[1]["tools"][0]["tools"][0]["name"],
        "list_open_orders"
    );
    assert_eq!(answer[2]["tools"], json!([]));
    assert!(
        stderr.contains("answered 2 client tool_search calls"),
        "{stderr}"
    );
    assert!(!stderr.contains("holds no tool call"), "{stderr}");
}
