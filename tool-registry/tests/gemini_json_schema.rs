//! Gemini's two declaration forms: `parametersJsonSchema` (`--format gemini`, full JSON Schema)
//! and the OpenAPI-subset `parameters` (`--format gemini-openapi`). A turn from google-genai's
//! own tests (a `$defs`/`anyOf` union tool, `tests/data/gemini/union_tool_turn.json`) goes out
//! as declarations, comes back as a `functionCall`, runs through the orchestrator and is
//! answered with `functionResponse` parts; what the subset cannot hold (an integer `enum`) is
//! described and still checked at run time; both forms deserialise into the SDK's types.

mod provider_sdk_support;

use std::collections::HashMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, ToolHandler};
use tool_registry::export::{RenderRequest, SchemaCache};
use tool_registry::providers::ModelApi;
use tool_registry::providers::gemini::check_declaration;
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::{DynTool, ToolResultContent};

use provider_sdk_support::{sdk_python, validate};

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gemini/union_tool_turn.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The fixture's tool, as a JSON tool: its `parametersJsonSchema` is our input schema, and it
/// answers with a sentence about the object it was given.
fn union_tool(declaration: &Value) -> Arc<dyn DynTool> {
    let definition = json!({
        "name": declaration["name"],
        "description": "Tells what is known of an animal or a plant.",
        "input_schema": declaration["parametersJsonSchema"],
    });
    let handler = ToolHandler::new(|input: Value, _ctx| async move {
        let object = &input["object_of_interest"];
        let text = match object.get("species") {
            Some(species) => format!(
                "{} is a {} of {} years.",
                object["name"].as_str().unwrap_or("?"),
                species.as_str().unwrap_or("?"),
                object["age"]
            ),
            None => format!(
                "{} is a {} plant.",
                object["name"].as_str().unwrap_or("?"),
                object["color"].as_str().unwrap_or("?")
            ),
        };
        Ok(ToolResultContent::Text(text))
    });
    Arc::new(DynamicTool::from_json(&definition, handler).unwrap())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn the_sdk_union_turn_round_trips_through_parameters_json_schema() {
    let fixture = fixture();
    let sent = &fixture["request"]["tools"][0]["functionDeclarations"][0];
    let tools = vec![union_tool(sent)];
    let cache = SchemaCache::new();
    let declarations = ModelApi::Gemini
        .definitions(&cache, &tools, &RenderRequest::default())
        .unwrap();
    // Definitions out: the schema exactly as the SDK writes it, `$defs` and `anyOf` kept.
    let declaration = &declarations[0];
    assert_eq!(declaration["name"], "get_information");
    assert_eq!(
        declaration["parametersJsonSchema"], sent["parametersJsonSchema"],
        "{declaration:#}"
    );
    assert!(declaration.get("parameters").is_none());
    assert_eq!(check_declaration(declaration), Vec::<String>::new());
    // The subset form cannot reference `$defs`: it inlines them into an `anyOf` of objects.
    let subset = ModelApi::GeminiOpenApi
        .definitions(&cache, &tools, &RenderRequest::default())
        .unwrap();
    let branches = &subset[0]["parameters"]["properties"]["object_of_interest"]["anyOf"];
    assert_eq!(branches[0]["required"], json!(["name", "age", "species"]));
    assert_eq!(check_declaration(&subset[0]), Vec::<String>::new());

    // `functionCall` in: the recorded call, and one of ours beside it whose object fits
    // neither branch (it must fail alone).
    let mut response = fixture["response"].clone();
    let parts = response["candidates"][0]["content"]["parts"]
        .as_array_mut()
        .unwrap();
    parts.push(json!({"functionCall": {"name": "get_information", "args": {"object_of_interest": {"name": "Fern"}}}}));
    parts.push(json!({"functionCall": {"name": "get_information", "args": {"object_of_interest": {"name": "Fern", "height": 0.4, "color": "green"}}}}));
    let calls = ModelApi::Gemini.read_calls(&response, &tools).unwrap();
    assert_eq!(calls.calls.len(), 3);
    let outcome = runtime().block_on(
        Orchestrator::new(&tools, OrchestratorConfig::default())
            .run_tools(calls.runnable(), TurnState::default())
            .collect_results(),
    );
    // `functionResponse` out, one per call, in call order.
    let content = ModelApi::Gemini
        .write_results(&calls, outcome.results, &tools)
        .unwrap();
    let parts = content["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 3, "{content:#}");
    assert_eq!(
        parts[0],
        json!({"functionResponse": {"name": "get_information", "response": {"output": "Sundae is a cat of 1 years."}}})
    );
    let refused = parts[1]["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{content:#}"));
    assert!(refused.contains("object_of_interest"), "{refused}");
    assert_eq!(
        parts[2]["functionResponse"]["response"]["output"],
        "Fern is a green plant."
    );
    if let Some(python) = sdk_python() {
        validate(
            &python,
            "Tool",
            &json!({"functionDeclarations": declarations}),
        )
        .unwrap();
        validate(&python, "Tool", &json!({"functionDeclarations": subset})).unwrap();
        validate(&python, "Content", &content).unwrap();
    }
}

/// A tree whose nodes hold a map: recursive, and keys chosen by the caller.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Node {
    name: String,
    children: Vec<Node>,
    env: HashMap<String, String>,
}

#[test]
fn maps_and_recursive_types_go_out_whole_only_as_json_schema() {
    let schema = serde_json::to_value(schemars::schema_for!(Node)).unwrap();
    let definition =
        json!({"name": "Tree", "description": "Walks a tree.", "input_schema": schema});
    let tools: Vec<Arc<dyn DynTool>> = vec![Arc::new(
        DynamicTool::from_json(&definition, ToolHandler::fixed_text("ok")).unwrap(),
    )];
    let cache = SchemaCache::new();
    let full = ModelApi::Gemini
        .definitions(&cache, &tools, &RenderRequest::default())
        .unwrap();
    let schema = &full[0]["parametersJsonSchema"];
    assert_eq!(schema["properties"]["children"]["items"]["$ref"], "#");
    assert_eq!(
        schema["properties"]["env"]["additionalProperties"]["type"],
        "string"
    );
    assert_eq!(check_declaration(&full[0]), Vec::<String>::new());
    let error = ModelApi::GeminiOpenApi
        .definitions(&cache, &tools, &RenderRequest::default())
        .unwrap_err();
    assert_eq!(error.tool, "Tree");
    // Both fields at once is refused by the checker, as Gemini refuses it.
    let mut both = full[0].clone();
    both["parameters"] = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    assert!(
        check_declaration(&both)
            .iter()
            .any(|p| p.contains("mutually exclusive")),
        "{both:#}"
    );
    if let Some(python) = sdk_python() {
        validate(&python, "FunctionDeclaration", &full[0]).unwrap();
    }
}

#[test]
fn an_integer_enum_is_described_for_the_subset_and_still_checked_at_run_time() {
    let definition = json!({"name": "Volume", "description": "Sets the volume.", "input_schema": {
        "type": "object",
        "properties": {"level": {"type": "integer", "enum": [1, 2, 3], "description": "How loud."}},
        "required": ["level"]
    }, "input_examples": [{"level": 2}]});
    let tools: Vec<Arc<dyn DynTool>> = vec![Arc::new(
        DynamicTool::from_json(&definition, ToolHandler::fixed_text("set")).unwrap(),
    )];
    let cache = SchemaCache::new();
    let subset = ModelApi::GeminiOpenApi
        .definitions(&cache, &tools, &RenderRequest::default())
        .unwrap();
    assert_eq!(
        subset[0]["parameters"]["properties"]["level"],
        json!({"type": "integer", "description": "How loud. Allowed values: 1, 2, 3."})
    );
    // The subset `Schema`'s slot for an example instance, at the root.
    assert_eq!(subset[0]["parameters"]["example"], json!({"level": 2}));
    assert_eq!(check_declaration(&subset[0]), Vec::<String>::new());
    let full = ModelApi::Gemini
        .definitions(&cache, &tools, &RenderRequest::default())
        .unwrap();
    assert_eq!(
        full[0]["parametersJsonSchema"]["properties"]["level"]["enum"],
        json!([1, 2, 3])
    );
    // The model may still send a value the description rules out: it is refused alone.
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "Volume", "args": {"level": 4}}},
        {"functionCall": {"name": "Volume", "args": {"level": 2}}}
    ]}}]});
    let calls = ModelApi::GeminiOpenApi
        .read_calls(&response, &tools)
        .unwrap();
    let outcome = runtime().block_on(
        Orchestrator::new(&tools, OrchestratorConfig::default())
            .run_tools(calls.runnable(), TurnState::default())
            .collect_results(),
    );
    let content = ModelApi::GeminiOpenApi
        .write_results(&calls, outcome.results, &tools)
        .unwrap();
    let error = content["parts"][0]["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{content:#}"));
    assert!(error.contains("level"), "{error}");
    assert_eq!(
        content["parts"][1]["functionResponse"]["response"],
        json!({"output": "set"})
    );
    if let Some(python) = sdk_python() {
        validate(&python, "FunctionDeclaration", &subset[0]).unwrap();
        // The SDK's subset `Schema` holds string enums only: what the rewrite avoids.
        let mut raw = subset[0].clone();
        raw["parameters"]["properties"]["level"]["enum"] = json!([1, 2, 3]);
        assert!(validate(&python, "FunctionDeclaration", &raw).is_err());
    }
}
