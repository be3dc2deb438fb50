//! `tool-host` with every model API: `definitions --format gemini` passes the offline Gemini
//! checker for every example tool, and `run --format F` reads that API's assistant message and
//! prints that API's answer, run as a real child process on real files.

mod common;
#[path = "../../tool-registry/tests/provider_sdk_support/mod.rs"]
mod provider_sdk_support;
use common::{host, run_message};

use serde_json::{Value, json};
use tool_registry::providers::gemini::check_declaration;

#[test]
fn gemini_definitions_of_every_example_tool_pass_the_checker() {
    let (ok, stdout, stderr) = host(&["definitions", "--format", "gemini"]);
    assert!(ok, "{stderr}");
    let declarations: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> = declarations
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Bash",
            "Edit",
            "Glob",
            "Grep",
            "NotebookEdit",
            "Read",
            "TaskStop",
            "TodoWrite",
            "Write"
        ]
    );
    let python = provider_sdk_support::sdk_python();
    for declaration in &declarations {
        let problems = check_declaration(declaration);
        assert!(problems.is_empty(), "{problems:#?}\n{declaration:#}");
        let schema = &declaration["parametersJsonSchema"];
        assert!(schema["properties"].is_object(), "{declaration:#}");
        // Only keywords google-genai's `types.JSONSchema` (extra fields forbidden) holds.
        if let Some(python) = &python {
            provider_sdk_support::validate(python, "JSONSchema", schema)
                .unwrap_or_else(|error| panic!("{error}\n{declaration:#}"));
        }
    }
    // Bash's `timeout` (`exclusiveMinimum: 0`, which Gemini ignores) is told as a bound Gemini
    // reads plus a sentence; the tool still refuses 0.
    assert_eq!(
        declarations[0]["parametersJsonSchema"]["properties"]["timeout"]["minimum"],
        0
    );
    let (ok, stdout, stderr) = host(&["definitions", "--format", "gemini-openapi"]);
    assert!(ok, "{stderr}");
    let subset: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    assert_eq!(subset.len(), names.len());
    for declaration in &subset {
        let problems = check_declaration(declaration);
        assert!(problems.is_empty(), "{problems:#?}\n{declaration:#}");
        assert!(
            declaration["parameters"]["properties"].is_object(),
            "{declaration:#}"
        );
    }
    let (ok, _, stderr) = host(&["definitions", "--format", "cohere"]);
    assert!(!ok);
    assert!(
        stderr.contains(
            "use anthropic, openai-chat, openai-responses, gemini, gemini-openapi or mcp"
        ),
        "{stderr}"
    );
}

/// `definitions --format gemini` of a JSON tool whose schema has `$defs` and `anyOf` (the union
/// tool of google-genai 3.6.1's tests, `tool-registry/tests/data/gemini/`): the schema goes out
/// whole in `parametersJsonSchema`, and the declarations deserialise into the SDK's
/// `types.Tool` and `types.FunctionDeclaration`.
#[test]
fn gemini_definitions_carry_a_defs_and_any_of_schema_the_sdk_accepts() {
    let fixture: Value = serde_json::from_str(include_str!(
        "../../tool-registry/tests/data/gemini/union_tool_turn.json"
    ))
    .unwrap();
    let sent = &fixture["request"]["tools"][0]["functionDeclarations"][0];
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.json");
    let tools = json!([{
        "name": sent["name"],
        "description": "Tells what is known of an animal or a plant.",
        "input_schema": sent["parametersJsonSchema"],
    }]);
    std::fs::write(&file, tools.to_string()).unwrap();
    let file = file.to_str().unwrap();
    let (ok, stdout, stderr) = host(&["definitions", "--format", "gemini", "--tools-json", file]);
    assert!(ok, "{stderr}");
    let declarations: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    let union = declarations
        .iter()
        .find(|d| d["name"] == "get_information")
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(union["parametersJsonSchema"], sent["parametersJsonSchema"]);
    assert_eq!(
        union["parametersJsonSchema"]["properties"]["object_of_interest"]["anyOf"][0]["$ref"],
        "#/$defs/AnimalObject"
    );
    if let Some(python) = provider_sdk_support::sdk_python() {
        provider_sdk_support::validate(
            &python,
            "Tool",
            &json!({"functionDeclarations": declarations}),
        )
        .unwrap();
        provider_sdk_support::validate(&python, "FunctionDeclaration", union).unwrap();
    }
}

/// A Read of `a.txt` and a call whose arguments are broken, in `format`'s shape.
fn turn(format: &str, path: &str) -> Value {
    let read = json!({"file_path": path}).to_string();
    let broken = "{\"file_path\": ";
    match format {
        "anthropic" => json!({"role": "assistant", "content": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "call_read", "name": "Read", "input": {"file_path": path}},
            {"type": "tool_use", "id": "call_glob", "name": "Glob", "input": {"pattern": "*.txt"}}
        ]}),
        "openai-chat" => {
            json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_read", "type": "function", "function": {"name": "Read", "arguments": read}},
                {"id": "call_glob", "type": "function", "function": {"name": "Glob", "arguments": broken}}
            ]}}]})
        }
        "openai-responses" => json!({"output": [
            {"type": "function_call", "id": "fc_1", "call_id": "call_read", "name": "Read", "arguments": read},
            {"type": "function_call", "id": "fc_2", "call_id": "call_glob", "name": "Glob", "arguments": broken}
        ]}),
        "gemini" | "gemini-openapi" => {
            json!({"candidates": [{"content": {"role": "model", "parts": [
                {"functionCall": {"id": "call_read", "name": "Read", "args": {"file_path": path}}},
                {"functionCall": {"id": "call_glob", "name": "Glob", "args": {"pattern": "*.txt"}}}
            ]}}]})
        }
        _ => unreachable!(),
    }
}

#[test]
fn run_answers_each_api_in_its_own_shape() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello from a\n").unwrap();
    let path = dir.path().join("a.txt").to_string_lossy().into_owned();
    for format in [
        "anthropic",
        "openai-chat",
        "openai-responses",
        "gemini",
        "gemini-openapi",
    ] {
        let file = dir.path().join(format!("{format}.json"));
        std::fs::write(&file, turn(format, &path).to_string()).unwrap();
        let (ok, stdout, stderr) = host(&[
            "run",
            file.to_str().unwrap(),
            "--format",
            format,
            "--root",
            dir.path().to_str().unwrap(),
        ]);
        assert!(ok, "{format}: {stderr}");
        let answer: Value = serde_json::from_str(&stdout).unwrap();
        let (read, glob) = match format {
            "anthropic" => {
                assert_eq!(answer["role"], "user");
                assert_eq!(answer["content"][0]["tool_use_id"], "call_read");
                assert_eq!(answer["content"][1]["tool_use_id"], "call_glob");
                (
                    answer["content"][0]["content"].clone(),
                    answer["content"][1].clone(),
                )
            }
            "openai-chat" => {
                assert_eq!(answer[0]["role"], "tool");
                assert_eq!(answer[0]["tool_call_id"], "call_read");
                assert_eq!(answer[1]["tool_call_id"], "call_glob");
                (answer[0]["content"].clone(), answer[1]["content"].clone())
            }
            "openai-responses" => {
                assert_eq!(answer[0]["type"], "function_call_output");
                assert_eq!(answer[0]["call_id"], "call_read");
                assert_eq!(answer[1]["call_id"], "call_glob");
                (answer[0]["output"].clone(), answer[1]["output"].clone())
            }
            _ => {
                let parts = &answer["parts"];
                assert_eq!(parts[0]["functionResponse"]["id"], "call_read");
                assert_eq!(parts[0]["functionResponse"]["name"], "Read");
                assert_eq!(parts[1]["functionResponse"]["id"], "call_glob");
                (
                    parts[0]["functionResponse"]["response"]["output"].clone(),
                    parts[1].clone(),
                )
            }
        };
        assert!(
            read.as_str().unwrap().contains("hello from a"),
            "{format}: {read}"
        );
        if format.starts_with("openai") {
            assert!(
                glob.as_str()
                    .unwrap()
                    .contains("the arguments of Glob are not valid JSON"),
                "{format}: {glob}"
            );
            assert!(
                stderr.ends_with("answered 2 tool_use blocks: 1 ok, 1 error (Glob call_glob)\n"),
                "{format}: {stderr}"
            );
        } else {
            assert!(glob.to_string().contains("a.txt"), "{format}: {glob}");
        }
    }
}

/// An Anthropic message whose second `tool_use` repeats the first one's id: the repeat never
/// runs (here: it would create a file) and gets its own error result; a `null` input is `{}`.
#[test]
fn run_answers_a_repeated_anthropic_id_without_running_it() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("made.txt");
    let message = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "Glob", "input": {"pattern": "*.txt"}},
        {"type": "tool_use", "id": "toolu_1", "name": "Write",
         "input": {"file_path": target.to_string_lossy(), "content": "x"}},
        {"type": "tool_use", "id": "toolu_2", "name": "TodoWrite", "input": null}
    ]});
    let (ok, stdout, stderr) = run_message(dir.path(), &message);
    assert!(ok, "{stderr}");
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    let content = answer["content"].as_array().unwrap();
    assert_eq!(content.len(), 3, "{answer}");
    assert_eq!(content[0]["tool_use_id"], "toolu_1");
    assert!(content[0].get("is_error").is_none(), "{answer}");
    assert_eq!(content[1]["tool_use_id"], "toolu_1");
    assert_eq!(content[1]["is_error"], true, "{answer}");
    assert!(!target.exists(), "the repeated call must not run");
    // `null` read as `{}`: TodoWrite then names its missing field, not a type error on null.
    assert_eq!(content[2]["is_error"], true, "{answer}");
    assert!(
        content[2]["content"].as_str().unwrap().contains("todos"),
        "{answer}"
    );
}

/// `run --format` takes every model API but MCP, and `--help` lists them from `ModelApi::ALL`.
#[test]
fn run_lists_every_model_api_it_reads() {
    let (ok, stdout, stderr) = host(&["run", "--help"]);
    assert!(ok, "{stderr}");
    for api in tool_registry::providers::ModelApi::ALL {
        let name = api.as_str();
        let listed = stdout.contains(&format!("{name},")) || stdout.contains(&format!("{name}]"));
        assert_eq!(listed, name != "mcp", "{name}: {stdout}");
    }
    let (ok, _, stderr) = host(&["run", "--format", "mcp", "--root", "."]);
    assert!(!ok);
    assert!(stderr.contains("gemini-openapi"), "{stderr}");
}

/// A keyword Gemini ignores, kept in `parametersJsonSchema`, is said on stderr by
/// `definitions --format gemini` (the offline check); a file with no call in `run --format`'s
/// shape is answered with nothing and a warning naming the formats.
#[test]
fn gemini_ignored_keywords_and_a_file_without_calls_are_said_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.json");
    let tools = json!([{
        "name": "Pick",
        "description": "Picks one.",
        "input_schema": {
            "type": "object",
            "properties": {"o": {"allOf": [{"type": "string"}], "not": {"const": "x"}}}
        },
    }]);
    std::fs::write(&file, tools.to_string()).unwrap();
    let file = file.to_str().unwrap();
    let (ok, _, stderr) = host(&["definitions", "--format", "gemini", "--tools-json", file]);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("`Pick`: parametersJsonSchema.properties.o: `allOf` is not among")
            && stderr.contains("`not` is not among"),
        "{stderr}"
    );
    let other = dir.path().join("chat.json");
    std::fs::write(
        &other,
        r#"{"choices": [{"message": {"role": "assistant", "tool_calls": []}}]}"#,
    )
    .unwrap();
    let (ok, stdout, stderr) = host(&["run", other.to_str().unwrap(), "--format", "gemini"]);
    assert!(ok, "{stderr}");
    assert_eq!(
        serde_json::from_str::<Value>(&stdout).unwrap()["parts"],
        json!([])
    );
    assert!(
        stderr.contains("holds no tool call read as --format gemini")
            && stderr.contains("anthropic, openai-chat, openai-responses, gemini, gemini-openapi"),
        "{stderr}"
    );
}
