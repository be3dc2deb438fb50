//! Provider definitions (Anthropic, OpenAI Chat and Responses, MCP), checked with exact
//! values and against the JSON Schema 2020-12 meta-schema for every tool of the recorded
//! fixtures.

mod export_support;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use tool_registry::OrchestratorConfig;
use tool_registry::dynamic::{DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list};
use tool_registry::export::{RenderRequest, SchemaCache, SchemaError, StrictPolicy};
use tool_registry::providers::ModelApi;
use tool_registry::test_support::{
    anthropic_tool_definition, anthropic_tools_json, export_input_schema, strict_schema,
};
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, dyn_tool};

use export_support::*;

fn fixtures() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/fixtures"
    ));
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("SKIPPED: {} is absent", dir.display());
        None
    }
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every MCP tool of every recorded `tools/list`, and Claude Code's own tool schemas as
/// run-time tools.
fn fixture_tools(dir: &std::path::Path) -> Vec<Arc<dyn DynTool>> {
    let mut tools = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("mcp-tools-lists"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    for file in files {
        let list = read_json(&file);
        let list = list.get("response").unwrap_or(&list);
        let server = file.file_stem().unwrap().to_string_lossy().into_owned();
        tools.extend(
            mcp_tools_from_list(&server, list, &McpImportOptions::default())
                .unwrap()
                .tools,
        );
    }
    let schemas = read_json(&dir.join("claude-code-tool-schemas.json"));
    for entry in schemas["tools"].as_array().unwrap() {
        let definition = json!({
            "name": entry["name"],
            "description": entry["description_first_sentence_paraphrased"],
            "input_schema": entry["input_schema"],
        });
        tools.push(Arc::new(
            DynamicTool::from_json(&definition, ToolHandler::fixed_text("ok")).unwrap(),
        ));
    }
    tools
}

/// The schemas of one definition, by target.
fn schemas_of(target: ModelApi, definition: &Value) -> Vec<Value> {
    match target {
        ModelApi::Anthropic => vec![definition["input_schema"].clone()],
        ModelApi::OpenAiChat => vec![definition["function"]["parameters"].clone()],
        ModelApi::OpenAiResponses | ModelApi::GeminiOpenApi => {
            vec![definition["parameters"].clone()]
        }
        ModelApi::Gemini => vec![definition["parametersJsonSchema"].clone()],
        ModelApi::Mcp => {
            let mut schemas = vec![definition["inputSchema"].clone()];
            if let Some(output) = definition.get("outputSchema") {
                schemas.push(output.clone());
            }
            schemas
        }
        other => panic!("no schema location known for {other:?}: add it here"),
    }
}

fn check_schema(label: &str, schema: &Value) {
    if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
        panic!("{label}: not a valid 2020-12 schema: {error}\n{schema:#}");
    }
    assert_eq!(schema["type"], "object", "{label}");
    assert!(schema["properties"].is_object(), "{label}");
    for key in ["$schema", "anyOf", "oneOf", "allOf"] {
        assert!(schema.get(key).is_none(), "{label}: root `{key}`");
    }
}

#[test]
fn every_fixture_tool_exports_valid_schemas_for_every_target() {
    let Some(dir) = fixtures() else { return };
    let mut tools = fixture_tools(&dir);
    tools.push(dyn_tool::<Add>());
    tools.push(dyn_tool::<Noop>());
    assert_eq!(tools.len(), 14 + 12 + 16 + 8 + 17 + 2);
    let cache = SchemaCache::new();
    let mut strict_refused = Vec::new();
    for target in TARGETS {
        for strict in [false, true] {
            let request = RenderRequest {
                strict,
                strict_policy: StrictPolicy::DropStrict,
                ..RenderRequest::default()
            };
            let definitions = target.definitions(&cache, &tools, &request).unwrap();
            assert_eq!(definitions.len(), tools.len());
            for (tool, definition) in tools.iter().zip(&definitions) {
                for schema in schemas_of(target, definition) {
                    check_schema(
                        &format!("{} ({target:?}, strict {strict})", tool.name()),
                        &schema,
                    );
                }
                if strict
                    && target == ModelApi::OpenAiChat
                    && definition["function"]["strict"] == false
                {
                    strict_refused.push(tool.name().to_owned());
                }
            }
        }
    }
    // Only schemas with maps or tuples cannot be strict: Claude Code's AskUserQuestion has a
    // map (`answers`); every other tool is sent strict.
    assert_eq!(strict_refused, ["AskUserQuestion"]);
}

#[test]
fn mcp_tools_keep_their_facts_in_the_mcp_export() {
    let Some(dir) = fixtures() else { return };
    let list = read_json(&dir.join("mcp-tools-lists/server-filesystem-2026.8.31.json"));
    let tools = mcp_tools_from_list(
        "filesystem",
        &list["response"],
        &McpImportOptions::default(),
    )
    .unwrap()
    .tools;
    let cache = SchemaCache::new();
    let definitions = ModelApi::Mcp
        .definitions(&cache, &tools, &RenderRequest::default())
        .unwrap();
    let read = &definitions[0];
    assert_eq!(
        *read,
        json!({
            "name": "mcp__filesystem__read_file",
            "title": "Read File (Deprecated)",
            "description": "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "tail": {"description": "If provided, returns only the last N lines of the file", "type": "number"},
                    "head": {"description": "If provided, returns only the first N lines of the file", "type": "number"}
                },
                "required": ["path"]
            },
            "outputSchema": {
                "type": "object",
                "properties": {"content": {"type": "string"}},
                "required": ["content"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
        })
    );
    let write = definitions
        .iter()
        .find(|definition| definition["name"] == "mcp__filesystem__write_file")
        .unwrap();
    assert_eq!(
        write["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false})
    );
}

#[test]
fn each_target_has_its_exact_shape() {
    let cache = SchemaCache::new();
    let tools = vec![weather()];
    let plain = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "units": {"enum": ["c", "f"]},
            "days": {"type": "array", "items": {"type": "object", "properties": {"day": {"type": "integer"}, "note": {"type": "string"}}, "required": ["day"]}}
        },
        "required": ["city"]
    });
    let render = |target: ModelApi| {
        target
            .definitions(&cache, &tools, &RenderRequest::default())
            .unwrap()
            .remove(0)
    };
    assert_eq!(
        render(ModelApi::Anthropic),
        json!({"name": "Weather", "description": "Current weather for a city.", "input_schema": plain})
    );
    assert_eq!(
        render(ModelApi::OpenAiChat),
        json!({"type": "function", "function": {"name": "Weather", "description": "Current weather for a city.", "parameters": plain, "strict": false}})
    );
    assert_eq!(
        render(ModelApi::OpenAiResponses),
        json!({"type": "function", "name": "Weather", "description": "Current weather for a city.", "parameters": plain, "strict": false})
    );
    assert_eq!(
        render(ModelApi::Mcp),
        json!({"name": "Weather", "title": "Weather lookup", "description": "Current weather for a city.", "inputSchema": plain,
               "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true}})
    );
    let strict = RenderRequest {
        strict: true,
        ..RenderRequest::default()
    };
    let definition = ModelApi::OpenAiResponses
        .definitions(&cache, &tools, &strict)
        .unwrap()
        .remove(0);
    assert_eq!(
        definition,
        json!({"type": "function", "name": "Weather", "description": "Current weather for a city.", "strict": true, "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "units": {"enum": ["c", "f", null]},
                "days": {"type": ["array", "null"], "items": {"type": "object", "properties": {"day": {"type": "integer"}, "note": {"type": ["string", "null"]}}, "required": ["day", "note"], "additionalProperties": false}}
            },
            "required": ["city", "units", "days"],
            "additionalProperties": false
        }})
    );
}

#[test]
fn typed_tools_export_fail_closed_hints_and_empty_schemas() {
    let cache = SchemaCache::new();
    let tools = vec![dyn_tool::<Noop>(), dyn_tool::<Add>()];
    let mcp = ModelApi::Mcp
        .definitions(&cache, &tools, &RenderRequest::default())
        .unwrap();
    assert_eq!(
        mcp[0],
        json!({"name": "Noop", "description": "Does nothing.", "inputSchema": {"type": "object", "properties": {}},
               "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}})
    );
    let anthropic = ModelApi::Anthropic
        .definitions(&cache, &tools, &RenderRequest::default())
        .unwrap();
    assert_eq!(
        anthropic[0]["input_schema"].to_string(),
        r#"{"type":"object","properties":{}}"#
    );
    let strict = ModelApi::OpenAiChat
        .definitions(
            &cache,
            &tools,
            &RenderRequest {
                strict: true,
                ..RenderRequest::default()
            },
        )
        .unwrap();
    assert_eq!(
        strict[1]["function"]["parameters"],
        json!({"type": "object", "properties": {"a": {"description": "The first addend.", "type": "integer", "format": "int64"},
               "b": {"description": "The second addend, 0 when left out.", "type": ["integer", "null"], "format": "int64"}},
               "required": ["a", "b"], "additionalProperties": false})
    );
    assert_eq!(
        strict[0]["function"]["parameters"],
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

#[test]
fn root_combinators_are_merged_away() {
    let schema = json!({"anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a", "b"]},
        {"type": "object", "properties": {"a": {"type": "number"}, "c": {"type": "string"}}, "required": ["a"]}
    ]});
    assert_eq!(
        export_input_schema(&schema),
        json!({"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "number"}]}, "b": {"type": "string"}, "c": {"type": "string"}}, "required": ["a"]})
    );
    // The tag of an internally tagged enum, flattened into the root: one `enum` of the tags,
    // and the root closed as the runtime closes it.
    let tagged = json!({"type": "object", "oneOf": [
        {"type": "object", "properties": {"kind": {"type": "string", "const": "a"}, "x": {"type": "integer"}}, "required": ["kind", "x"]},
        {"type": "object", "properties": {"kind": {"type": "string", "const": "b"}}, "required": ["kind"]}
    ], "unevaluatedProperties": false});
    assert_eq!(
        export_input_schema(&tagged),
        json!({"type": "object", "properties": {"kind": {"type": "string", "enum": ["a", "b"]}, "x": {"type": "integer"}}, "required": ["kind"], "additionalProperties": false})
    );
    let all = json!({"type": "object", "allOf": [
        {"properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"properties": {"b": {"type": "string"}}, "required": ["b"]}
    ]});
    assert_eq!(
        export_input_schema(&all),
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a", "b"]})
    );
}

#[test]
fn maps_and_tuples_cannot_be_strict_and_say_which_field() {
    let map = json!({"type": "object", "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}}});
    let error: SchemaError = strict_schema("Run", &map).unwrap_err();
    assert_eq!(
        (
            error.tool.as_str(),
            error.field.as_str(),
            error.reason.as_str()
        ),
        (
            "Run",
            "env",
            "it is a map (`additionalProperties` allows any key)"
        )
    );
    let tuple = json!({"type": "object", "properties": {"edits": {"type": "array", "items": {"type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "string"}]}}}}}});
    let error = strict_schema("Edit", &tuple).unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `Edit`: field `edits[].pair` cannot be strict: it is a tuple (fixed-position array items); drop `strict` for this tool or change the field"
    );
    let tool: Arc<dyn DynTool> = Arc::new(
        DynamicTool::from_json(
            &json!({"name": "Run", "description": "Runs.", "input_schema": map}),
            ToolHandler::fixed_text("ok"),
        )
        .unwrap(),
    );
    let cache = SchemaCache::new();
    let strict = RenderRequest {
        strict: true,
        ..RenderRequest::default()
    };
    assert_eq!(
        ModelApi::OpenAiChat
            .definitions(&cache, &[Arc::clone(&tool)], &strict)
            .unwrap_err()
            .field,
        "env"
    );
    let dropped = ModelApi::OpenAiChat
        .definitions(
            &cache,
            &[tool],
            &RenderRequest {
                strict_policy: StrictPolicy::DropStrict,
                ..strict
            },
        )
        .unwrap();
    assert_eq!(dropped[0]["function"]["strict"], false);
    assert_eq!(dropped[0]["function"]["parameters"], map);
}

/// Asks for strict mode.
#[tool(
    name = "Exact",
    strict,
    max_result_size_chars = 1_000,
    example = r#"{"word": "tool"}"#
)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Exact {
    /// A word.
    word: String,
}

#[tool]
impl Tool for Exact {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.word))
    }
}

#[test]
fn lenient_tools_are_advertised_open_at_the_root_by_every_target() {
    let tools: Vec<Arc<dyn DynTool>> = vec![dyn_tool::<Add>(), dyn_tool::<Exact>()];
    let config = OrchestratorConfig::default()
        .with_lenient_input("Add")
        .with_lenient_input("Exact");
    let lenient = RenderRequest {
        strict_policy: StrictPolicy::DropStrict,
        lenient_input: config.lenient_input_tools.clone(),
        ..RenderRequest::default()
    };
    let closed = RenderRequest {
        strict_policy: StrictPolicy::DropStrict,
        ..RenderRequest::default()
    };
    let cache = SchemaCache::new();
    let root_closed = |target: ModelApi, request: &RenderRequest| -> Vec<bool> {
        let definitions = target.definitions(&cache, &tools, request).unwrap();
        let text = target.definitions_json(&cache, &tools, request).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            json!(definitions)
        );
        definitions
            .iter()
            .map(|definition| {
                schemas_of(target, definition)[0].get("additionalProperties") == Some(&json!(false))
            })
            .collect()
    };
    for target in TARGETS {
        assert_eq!(root_closed(target, &closed), [true, true], "{target:?}");
        assert_eq!(root_closed(target, &lenient), [false, false], "{target:?}");
    }
    // Strict mode requires the root closed, so a lenient tool is sent without it...
    let anthropic = ModelApi::Anthropic
        .definitions(&cache, &tools, &lenient)
        .unwrap();
    assert_eq!(anthropic[1].get("strict"), None);
    let strict_lenient = RenderRequest {
        strict: true,
        ..lenient.clone()
    };
    for target in [ModelApi::OpenAiChat, ModelApi::OpenAiResponses] {
        for definition in target.definitions(&cache, &tools, &strict_lenient).unwrap() {
            let strict = definition
                .get("strict")
                .or_else(|| definition["function"].get("strict"));
            assert_eq!(strict, Some(&json!(false)), "{definition}");
        }
    }
    // ...or, under the default policy, the render says why it cannot be strict.
    for (target, request) in [
        (ModelApi::Anthropic, RenderRequest::default()),
        (
            ModelApi::OpenAiChat,
            RenderRequest {
                strict: true,
                ..RenderRequest::default()
            },
        ),
    ] {
        let error = target
            .definitions(
                &cache,
                &tools,
                &RenderRequest {
                    lenient_input: config.lenient_input_tools.clone(),
                    ..request
                },
            )
            .unwrap_err();
        assert_eq!(error.field, "(root)", "{error}");
        assert!(error.to_string().contains("lenient input"), "{error}");
    }
    // Gemini's subset form never states `additionalProperties`; its JSON Schema form is
    // opened like every other target's.
    let gemini = ModelApi::GeminiOpenApi
        .definitions(&cache, &tools, &RenderRequest::default())
        .unwrap();
    assert!(!json!(gemini).to_string().contains("additionalProperties"));
    for (request, closed) in [(&lenient, false), (&RenderRequest::default(), true)] {
        for definition in ModelApi::Gemini
            .definitions(&cache, &tools, request)
            .unwrap()
        {
            let root = &definition["parametersJsonSchema"];
            assert_eq!(
                root.get("additionalProperties") == Some(&json!(false)),
                closed,
                "{definition}"
            );
        }
    }
}

#[test]
fn the_fresh_text_render_is_the_value_render_byte_for_byte() {
    // Schemas in export shape (written where they are) and not (rewritten first): `$schema`,
    // an older dialect, a root `anyOf`, no properties; `strict` and `input_examples` given.
    let rewritten = |name: &str, schema: Value| -> Arc<dyn DynTool> {
        let definition = json!({"name": name, "description": "Says \"é\"\n\tthen ends.", "input_schema": schema});
        Arc::new(DynamicTool::from_json(&definition, ToolHandler::fixed_text("ok")).unwrap())
    };
    let mut tools = vec![
        dyn_tool::<Add>(),
        dyn_tool::<Noop>(),
        dyn_tool::<Exact>(),
        weather(),
        rewritten(
            "Draft7",
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                   "properties": {"a": {"type": "string"}}, "definitions": {}}),
        ),
        rewritten(
            "Either",
            json!({"type": "object", "anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                             {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]}),
        ),
        rewritten("Empty", json!({"type": "object"})),
    ];
    if let Some(dir) = fixtures() {
        tools.extend(fixture_tools(&dir));
    }
    let text = anthropic_tools_json(&tools);
    let one_by_one: Vec<Value> = tools
        .iter()
        .map(|tool| anthropic_tool_definition(tool.as_ref()))
        .collect();
    assert_eq!(text, Value::from(one_by_one).to_string());
    assert!(
        text.contains(r#""name":"Exact","description":"Asks for strict mode.","input_schema":{"#)
            && text.contains(r#""strict":true,"input_examples":[{"word":"tool"}]}"#),
        "{text}"
    );
    assert_eq!(anthropic_tools_json(&[]), "[]");
}
