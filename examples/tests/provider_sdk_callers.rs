//! Programmatic tool calling checked against the model APIs' official Python SDKs (the
//! `providers` venv of the installed peers: anthropic 2.16.0, openai 3.60.0): the definitions
//! `tool-host definitions` prints for tools that allow calls from code (a `--tools-json`
//! definition's `callers`, `--allow-programmatic` on a built-in tool) validate as the SDKs'
//! tool parameter types, with `allowed_callers` in each SDK's own values; the fixture's calls
//! validate as the SDKs' call types, and tool-registry's own answers to them as the SDKs'
//! result types, each with undeclared keys refused. Without the venv the test says it skips (and fails when `TOOL_SDK_REQUIRE_PEERS`
//! is set).

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use tool_registry::providers::{ModelApi, ToolCalls};
use tool_sdk::ToolResultBlock;

/// Validates each `(type path, value)` against the SDK type, with `extra='forbid'`
/// semantics: pydantic's `TypeAdapter` drops keys a `TypedDict` does not declare, and the
/// SDKs' models keep them as extras, so a misspelled key (`allowed_caller`) would pass a
/// plain validation. Here a key of the value that the validated object does not hold as a
/// declared field (in its `model_dump(exclude_unset)` / `dump_python` round trip, at any
/// depth), or that a model keeps as an extra, fails the check. `Literal`s are strict, so an
/// `allowed_callers` value the SDK does not list fails too.
fn validate(python: &Path, checks: &[(&str, Value)]) {
    let script = r#"
import importlib, json, sys
import pydantic

def extras(obj, path):
    if isinstance(obj, pydantic.BaseModel):
        if obj.model_extra:
            yield f"{path}: undeclared {sorted(obj.model_extra)}"
        for name in type(obj).model_fields:
            yield from extras(getattr(obj, name), f"{path}.{name}")
    elif isinstance(obj, (list, tuple)):
        for i, item in enumerate(obj):
            yield from extras(item, f"{path}[{i}]")
    elif isinstance(obj, dict):
        for key, item in obj.items():
            yield from extras(item, f"{path}.{key}")

def dropped(given, kept, path):
    if isinstance(given, dict) and isinstance(kept, dict):
        for key, item in given.items():
            if key not in kept:
                yield f"{path}.{key}: dropped by the SDK type"
            else:
                yield from dropped(item, kept[key], f"{path}.{key}")
    elif isinstance(given, list) and isinstance(kept, list):
        for i, (a, b) in enumerate(zip(given, kept)):
            yield from dropped(a, b, f"{path}[{i}]")

checks = json.load(sys.stdin)
problems = []
for path, value in checks:
    module, name = path.rsplit(".", 1)
    kind = getattr(importlib.import_module(module), name)
    if isinstance(kind, type) and issubclass(kind, pydantic.BaseModel):
        model = kind.model_validate(value, strict=False)
        problems += extras(model, path)
        kept = model.model_dump(mode="json", exclude_unset=True, by_alias=True)
    else:
        adapter = pydantic.TypeAdapter(kind)
        kept = adapter.dump_python(adapter.validate_python(value), mode="json", by_alias=True)
    problems += dropped(value, kept, path)
    print("ok", path)
if problems:
    sys.exit("\n".join(problems))
"#;
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(json!(checks).to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tool-registry/tests/data/programmatic")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn definitions(format: &str, tools_file: &Path) -> Vec<Value> {
    let (ok, stdout, stderr) = common::host(&[
        "definitions",
        "--format",
        format,
        "--tools-json",
        tools_file.to_str().unwrap(),
        "--allow-programmatic",
        "Glob",
    ]);
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// Results for the fixture's two calls: the first a success, the second an error.
fn results(calls: &ToolCalls) -> Vec<ToolResultBlock> {
    let ids: Vec<&str> = calls.calls.iter().map(|call| call.id.as_str()).collect();
    assert_eq!(ids.len(), 2, "{calls:?}");
    let mut refused = ToolResultBlock::success(ids[1], "<tool_use_error>refused</tool_use_error>");
    refused.is_error = true;
    vec![
        ToolResultBlock::success(ids[0], "[{\"revenue\":45000}]"),
        refused,
    ]
}

/// tool-registry's own answer to the fixture's Anthropic calls.
fn anthropic_answer(turn: &Value) -> Value {
    let calls = ModelApi::Anthropic
        .read_calls(&turn["response"], &[])
        .unwrap();
    ModelApi::Anthropic
        .write_results(&calls, results(&calls), &[])
        .unwrap()
}

/// tool-registry's own answer to the fixture's OpenAI Responses calls.
fn responses_answer(turn: &Value) -> Value {
    let response = json!({"output": turn["output"]});
    let calls = ModelApi::OpenAiResponses
        .read_calls(&response, &[])
        .unwrap();
    let answer = ModelApi::OpenAiResponses
        .write_results(&calls, results(&calls), &[])
        .unwrap();
    assert!(
        answer
            .as_array()
            .unwrap()
            .iter()
            .all(|item| item["caller"]["type"] == "program"),
        "{answer}"
    );
    answer
}

#[test]
fn a_misspelled_key_fails_the_sdk_check() {
    let Some(python) = common::peers::peer("providers/bin/python") else {
        return;
    };
    let misspelled = json!({"name": "q", "input_schema": {"type": "object"},
                            "allowed_caller": ["direct"]});
    let script_fails = std::panic::catch_unwind(|| {
        validate(&python, &[("anthropic.types.ToolParam", misspelled)]);
    });
    assert!(script_fails.is_err(), "a misspelled key passed");
    let extra_on_model = json!({"type": "tool_use", "id": "t", "name": "n", "input": {},
                                "caler": {"type": "direct"}});
    let fails = std::panic::catch_unwind(|| {
        validate(&python, &[("anthropic.types.ToolUseBlock", extra_on_model)]);
    });
    assert!(fails.is_err(), "an undeclared key on a model passed");
}

#[test]
fn definitions_calls_and_answers_are_the_sdks_types() {
    let Some(python) = common::peers::peer("providers/bin/python") else {
        return;
    };
    let anthropic_turn = fixture("anthropic_turn.json");
    let responses_turn = fixture("responses_turn.json");
    let dir = tempfile::tempdir().unwrap();
    let mut query = anthropic_turn["request_tools"][1].clone();
    query.as_object_mut().unwrap().remove("allowed_callers");
    query["callers"] = json!(["programmatic"]);
    let tools_file = dir.path().join("tools.json");
    std::fs::write(&tools_file, json!([query]).to_string()).unwrap();

    let anthropic = definitions("anthropic", &tools_file);
    let find = |all: &[Value], name: &str| -> Value {
        all.iter().find(|d| d["name"] == name).unwrap().clone()
    };
    let query = find(&anthropic, "query_database");
    assert_eq!(query["allowed_callers"], json!(["code_execution_20260120"]));
    let glob = find(&anthropic, "Glob");
    assert_eq!(
        glob["allowed_callers"],
        json!(["direct", "code_execution_20260120"])
    );
    let responses = definitions("openai-responses", &tools_file);
    assert_eq!(
        find(&responses, "query_database")["allowed_callers"],
        json!(["programmatic"])
    );
    let glob_responses = find(&responses, "Glob");
    assert_eq!(
        glob_responses["allowed_callers"],
        json!(["direct", "programmatic"])
    );

    let mut checks: Vec<(&str, Value)> = vec![
        ("anthropic.types.ToolParam", query),
        ("anthropic.types.ToolParam", glob),
        (
            "anthropic.types.ToolUnionParam",
            anthropic_turn["request_tools"][0].clone(),
        ),
        (
            "openai.types.responses.FunctionToolParam",
            find(&responses, "query_database"),
        ),
        ("openai.types.responses.FunctionToolParam", glob_responses),
        (
            "openai.types.responses.ToolParam",
            responses_turn["request_tools"][0].clone(),
        ),
        (
            "anthropic.types.MessageParam",
            anthropic_answer(&anthropic_turn),
        ),
    ];
    for block in anthropic_turn["response"]["content"].as_array().unwrap() {
        if block["type"] == "tool_use" {
            checks.push(("anthropic.types.ToolUseBlock", block.clone()));
        }
    }
    for item in responses_turn["output"].as_array().unwrap() {
        if item["type"] == "function_call" {
            checks.push((
                "openai.types.responses.ResponseFunctionToolCall",
                item.clone(),
            ));
        }
    }
    for item in responses_answer(&responses_turn).as_array().unwrap() {
        checks.push((
            "openai.types.responses.response_input_item_param.FunctionCallOutput",
            item.clone(),
        ));
    }
    validate(&python, &checks);
}

#[test]
fn an_allow_programmatic_name_nothing_could_supply_is_an_error() {
    let (ok, _stdout, stderr) = common::host(&[
        "definitions",
        "--format",
        "anthropic",
        "--allow-programmatic",
        "Glbo",
    ]);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains("--allow-programmatic Glbo: no tool, alias or MCP server has that name"),
        "{stderr}"
    );
    // A configured MCP server (here one that does not start) could still list the name.
    for name in ["down", "mcp__down__query"] {
        let (ok, _stdout, stderr) = common::host(&[
            "definitions",
            "--format",
            "anthropic",
            "--mcp-server",
            "down=/nonexistent/mcp-server",
            "--allow-programmatic",
            name,
        ]);
        assert!(ok, "{name}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "--allow-programmatic {name}: no tool has that name yet"
            )),
            "{stderr}"
        );
    }
}
