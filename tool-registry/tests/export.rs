//! Provider definitions (Anthropic, OpenAI Chat and Responses, MCP) and the session schema
//! cache (SPEC §8.4), checked with exact values and against the JSON Schema 2020-12
//! meta-schema for every tool of the recorded fixtures.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list};
use tool_registry::export::{
    ExportTarget, RenderRequest, SchemaCache, StrictPolicy, StrictSchemaError, export_input_schema,
    strict_schema,
};
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, InputError, ToolCall, ToolMeta, dyn_tool};

const TARGETS: [ExportTarget; 4] = [
    ExportTarget::Anthropic,
    ExportTarget::OpenAiChat,
    ExportTarget::OpenAiResponses,
    ExportTarget::Mcp,
];

/// Adds two numbers.
#[tool(
    name = "Add",
    read_only,
    concurrency_safe,
    max_result_size_chars = 1_000
)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Add {
    /// The first addend.
    a: i64,
    /// The second addend, 0 when left out.
    b: Option<i64>,
}

impl Tool for Add {
    type Output = i64;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<i64>, ToolError> {
        Ok(ToolResult::new(self.a + self.b.unwrap_or(0)))
    }
}

/// Does nothing.
#[tool(name = "Noop", max_result_size_chars = 1_000)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Noop {}

impl Tool for Noop {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(String::new()))
    }
}

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
        tools.extend(mcp_tools_from_list(&server, list, &McpImportOptions::default()).unwrap());
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
fn schemas_of(target: ExportTarget, definition: &Value) -> Vec<Value> {
    match target {
        ExportTarget::Anthropic => vec![definition["input_schema"].clone()],
        ExportTarget::OpenAiChat => vec![definition["function"]["parameters"].clone()],
        ExportTarget::OpenAiResponses => vec![definition["parameters"].clone()],
        ExportTarget::Mcp => {
            let mut schemas = vec![definition["inputSchema"].clone()];
            if let Some(output) = definition.get("outputSchema") {
                schemas.push(output.clone());
            }
            schemas
        }
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
            let definitions = cache.render(&tools, target, &request).unwrap();
            assert_eq!(definitions.len(), tools.len());
            for (tool, definition) in tools.iter().zip(&definitions) {
                for schema in schemas_of(target, definition) {
                    check_schema(
                        &format!("{} ({target:?}, strict {strict})", tool.name()),
                        &schema,
                    );
                }
                if strict
                    && target == ExportTarget::OpenAiChat
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
    .unwrap();
    let cache = SchemaCache::new();
    let definitions = cache
        .render(&tools, ExportTarget::Mcp, &RenderRequest::default())
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

fn weather() -> Arc<dyn DynTool> {
    Arc::new(
        DynamicTool::from_json(
            &json!({
                "name": "Weather",
                "title": "Weather lookup",
                "description": "Current weather for a city.",
                "input_schema": {
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "properties": {
                        "city": {"type": "string"},
                        "units": {"enum": ["c", "f"]},
                        "days": {"type": "array", "items": {"type": "object", "properties": {"day": {"type": "integer"}, "note": {"type": "string"}}, "required": ["day"]}}
                    },
                    "required": ["city"]
                },
                "read_only": true
            }),
            ToolHandler::fixed_text("sunny"),
        )
        .unwrap(),
    )
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
    let render = |target| {
        cache
            .render(&tools, target, &RenderRequest::default())
            .unwrap()
            .remove(0)
    };
    assert_eq!(
        render(ExportTarget::Anthropic),
        json!({"name": "Weather", "description": "Current weather for a city.", "input_schema": plain})
    );
    assert_eq!(
        render(ExportTarget::OpenAiChat),
        json!({"type": "function", "function": {"name": "Weather", "description": "Current weather for a city.", "parameters": plain, "strict": false}})
    );
    assert_eq!(
        render(ExportTarget::OpenAiResponses),
        json!({"type": "function", "name": "Weather", "description": "Current weather for a city.", "parameters": plain, "strict": false})
    );
    assert_eq!(
        render(ExportTarget::Mcp),
        json!({"name": "Weather", "title": "Weather lookup", "description": "Current weather for a city.", "inputSchema": plain,
               "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true}})
    );
    let strict = RenderRequest {
        strict: true,
        ..RenderRequest::default()
    };
    let definition = cache
        .render(&tools, ExportTarget::OpenAiResponses, &strict)
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
    let mcp = cache
        .render(&tools, ExportTarget::Mcp, &RenderRequest::default())
        .unwrap();
    assert_eq!(
        mcp[0],
        json!({"name": "Noop", "description": "Does nothing.", "inputSchema": {"type": "object", "properties": {}},
               "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}})
    );
    let anthropic = cache
        .render(&tools, ExportTarget::Anthropic, &RenderRequest::default())
        .unwrap();
    assert_eq!(
        anthropic[0]["input_schema"].to_string(),
        r#"{"type":"object","properties":{}}"#
    );
    let strict = cache
        .render(
            &tools,
            ExportTarget::OpenAiChat,
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
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}}, "required": ["a"]})
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
    assert_eq!(
        strict_schema("Run", &map).unwrap_err(),
        StrictSchemaError {
            tool: "Run".to_owned(),
            field: "env".to_owned(),
            reason: "it is a map (`additionalProperties` allows any key)".to_owned(),
        }
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
        cache
            .render(&[Arc::clone(&tool)], ExportTarget::OpenAiChat, &strict)
            .unwrap_err()
            .field,
        "env"
    );
    let dropped = cache
        .render(
            &[tool],
            ExportTarget::OpenAiChat,
            &RenderRequest {
                strict_policy: StrictPolicy::DropStrict,
                ..strict
            },
        )
        .unwrap();
    assert_eq!(dropped[0]["function"]["strict"], false);
    assert_eq!(dropped[0]["function"]["parameters"], map);
}

/// A host tool whose prompt and `strict` flag change while the session runs.
struct Flipping {
    meta: ToolMeta,
    flipped: AtomicBool,
    strict_meta: ToolMeta,
    schema: Value,
}

impl Flipping {
    fn new() -> Self {
        let meta = ToolMeta::new("Flip", MaxResultSize::Chars(1_000));
        let mut strict_meta = meta.clone();
        strict_meta.strict = true;
        strict_meta.read_only = tool_sdk::DeclaredFlag::Always;
        Self {
            meta,
            flipped: AtomicBool::new(false),
            strict_meta,
            schema: json!({"type": "object", "properties": {"x": {"type": "string"}}}),
        }
    }
}

impl DynTool for Flipping {
    fn meta(&self) -> &ToolMeta {
        if self.flipped.load(Ordering::SeqCst) {
            &self.strict_meta
        } else {
            &self.meta
        }
    }
    fn prompt(&self) -> Cow<'_, str> {
        if self.flipped.load(Ordering::SeqCst) {
            "after".into()
        } else {
            "before".into()
        }
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn parse_input(&self, _input: Value) -> Result<Box<dyn ToolCall>, InputError> {
        Err(InputError::new(Vec::new()))
    }
}

#[test]
fn the_cache_freezes_the_first_render_until_cleared() {
    let flipping = Arc::new(Flipping::new());
    let tools: Vec<Arc<dyn DynTool>> = vec![flipping.clone()];
    let cache = SchemaCache::new();
    let request = RenderRequest::default();
    let first: Vec<String> = TARGETS
        .iter()
        .map(|target| cache.render_json(&tools, *target, &request).unwrap())
        .collect();
    assert_eq!(
        first[0],
        r#"[{"name":"Flip","description":"before","input_schema":{"type":"object","properties":{"x":{"type":"string"}}}}]"#
    );
    flipping.flipped.store(true, Ordering::SeqCst);
    let again: Vec<String> = TARGETS
        .iter()
        .map(|target| cache.render_json(&tools, *target, &request).unwrap())
        .collect();
    assert_eq!(again, first);
    cache.clear();
    assert!(cache.is_empty());
    assert_eq!(
        cache
            .render_json(&tools, ExportTarget::Anthropic, &request)
            .unwrap(),
        r#"[{"name":"Flip","description":"after","input_schema":{"type":"object","properties":{"x":{"type":"string"}}},"strict":true}]"#
    );
}

/// A raw-JSON-Schema tool that counts how often its schema is read.
struct Counting {
    meta: ToolMeta,
    schema: Value,
    reads: AtomicUsize,
}

impl Counting {
    fn new(schema: Value) -> Arc<Self> {
        Arc::new(Self {
            meta: ToolMeta::new("Counted", MaxResultSize::Chars(1_000)),
            schema,
            reads: AtomicUsize::new(0),
        })
    }
}

impl DynTool for Counting {
    fn meta(&self) -> &ToolMeta {
        &self.meta
    }
    fn prompt(&self) -> Cow<'_, str> {
        "counted".into()
    }
    fn input_schema(&self) -> &Value {
        self.reads.fetch_add(1, Ordering::SeqCst);
        &self.schema
    }
    fn has_json_schema(&self) -> bool {
        true
    }
    fn parse_input(&self, _input: Value) -> Result<Box<dyn ToolCall>, InputError> {
        Err(InputError::new(Vec::new()))
    }
}

#[test]
fn a_rendered_instance_is_found_again_without_rebuilding_its_key() {
    let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    let counted = Counting::new(schema.clone());
    let tools: Vec<Arc<dyn DynTool>> = vec![counted.clone()];
    let cache = SchemaCache::new();
    let request = RenderRequest::default();
    let first = cache
        .render_json(&tools, ExportTarget::Anthropic, &request)
        .unwrap();
    let reads = counted.reads.load(Ordering::SeqCst);
    assert!(reads > 0);
    for target in TARGETS {
        cache.render_json(&tools, target, &request).unwrap();
    }
    assert_eq!(
        counted.reads.load(Ordering::SeqCst),
        reads,
        "a warm render read the schema again"
    );
    // Another instance with the same name and schema: its key is built once and finds the
    // same entry.
    let twin = Counting::new(schema);
    let twins: Vec<Arc<dyn DynTool>> = vec![twin.clone()];
    let again = cache
        .render_json(&twins, ExportTarget::Anthropic, &request)
        .unwrap();
    assert_eq!(again, first);
    assert_eq!(cache.len(), 1);
    assert_eq!(twin.reads.load(Ordering::SeqCst), 1);
    // A changed schema comes as a new instance, with a new key and a new entry.
    let changed: Vec<Arc<dyn DynTool>> = vec![Counting::new(
        json!({"type": "object", "properties": {"r": {"type": "number"}}}),
    )];
    let rendered = cache
        .render_json(&changed, ExportTarget::Anthropic, &request)
        .unwrap();
    assert!(rendered.contains(r#""r":{"type":"number"}"#), "{rendered}");
    assert_eq!(cache.len(), 2);
    // `clear` forgets instances too: the next render reads the schema again.
    cache.clear();
    cache
        .render_json(&tools, ExportTarget::Anthropic, &request)
        .unwrap();
    assert!(counted.reads.load(Ordering::SeqCst) > reads);
}

#[test]
fn a_freed_address_is_not_mistaken_for_another_tool() {
    // Each instance is dropped before the next is made, so the allocator may hand the next one
    // the same address: the cache must still tell them apart.
    let cache = SchemaCache::new();
    let request = RenderRequest::default();
    for i in 0..200 {
        let property = format!("p{i}");
        let tools: Vec<Arc<dyn DynTool>> = vec![Counting::new(
            json!({"type": "object", "properties": {property.clone(): {"type": "string"}}}),
        )];
        let rendered = cache
            .render_json(&tools, ExportTarget::Anthropic, &request)
            .unwrap();
        assert!(
            rendered.contains(&format!("\"{property}\"")),
            "iteration {i}: {rendered}"
        );
    }
    assert_eq!(cache.len(), 200);
}

#[test]
fn json_schema_tools_are_keyed_by_name_and_schema() {
    let cache = SchemaCache::new();
    let one = mcp_tools_from_list("s", &json!({"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}]}), &McpImportOptions::default()).unwrap();
    let two = mcp_tools_from_list("s", &json!({"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"b": {"type": "string"}}}}]}), &McpImportOptions::default()).unwrap();
    let first = cache
        .render_json(&one, ExportTarget::Anthropic, &RenderRequest::default())
        .unwrap();
    let second = cache
        .render_json(&two, ExportTarget::Anthropic, &RenderRequest::default())
        .unwrap();
    assert_ne!(first, second);
    assert_eq!(cache.len(), 2);
    assert_eq!(
        tool_registry::export::cache_key(one[0].as_ref()),
        r#"mcp__s__t:{"type":"object","properties":{"a":{"type":"string"}}}"#
    );
    assert_eq!(
        tool_registry::export::cache_key(dyn_tool::<Add>().as_ref()),
        "Add"
    );
}

#[test]
fn per_request_fields_go_on_copies_only() {
    let cache = SchemaCache::new();
    let mut tools = vec![dyn_tool::<Add>(), weather()];
    tools.extend(
        mcp_tools_from_list(
            "s",
            &json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}),
            &McpImportOptions::default(),
        )
        .unwrap(),
    );
    let request = RenderRequest {
        defer_loading: vec!["mcp__s__t".to_owned()],
        cache_control: Some(json!({"type": "ephemeral"})),
        ..RenderRequest::default()
    };
    let rendered = cache
        .render(&tools, ExportTarget::Anthropic, &request)
        .unwrap();
    let keys = |definition: &Value| {
        definition
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&rendered[0]), ["name", "description", "input_schema"]);
    assert_eq!(
        keys(&rendered[1]),
        ["name", "description", "input_schema", "cache_control"]
    );
    assert_eq!(rendered[1]["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(
        keys(&rendered[2]),
        ["name", "description", "input_schema", "defer_loading"]
    );
    let plain = cache
        .render(&tools, ExportTarget::Anthropic, &RenderRequest::default())
        .unwrap();
    assert!(plain.iter().all(|definition| keys(definition).len() == 3));
}

#[test]
fn ten_thousand_tools_render_byte_identically_twice() {
    let entries: Vec<Value> = (0..10_000)
        .map(|index| {
            json!({"name": format!("tool_{index:05}"), "description": format!("Tool number {index}."),
                   "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "description": format!("n of {index}")}}, "required": ["n"]}})
        })
        .collect();
    let tools = mcp_tools_from_list(
        "bulk",
        &json!({"tools": entries}),
        &McpImportOptions::default(),
    )
    .unwrap();
    let cache = SchemaCache::new();
    for target in TARGETS {
        let first = cache
            .render_json(&tools, target, &RenderRequest::default())
            .unwrap();
        let second = cache
            .render_json(&tools, target, &RenderRequest::default())
            .unwrap();
        assert_eq!(first.len(), second.len());
        assert!(first == second, "{target:?} differs");
    }
    assert_eq!(cache.len(), 10_000);
}
