//! The session schema cache (SPEC §8.4): first renders are frozen until cleared, instances
//! are found again by identity, keys follow the schema, and per-request fields go on copies.

mod export_support;

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde_json::{Value, json};
use tool_registry::dynamic::{McpImportOptions, mcp_tools_from_list};
use tool_registry::export::{RenderRequest, SchemaCache};
use tool_registry::providers::ModelApi;
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, InputError, ToolCall, ToolMeta, dyn_tool};

use export_support::*;

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
    fn is_enabled(&self) -> bool {
        true
    }

    fn has_json_schema(&self) -> bool {
        false
    }

    fn shared_input_schema(&self) -> Option<&'static Value> {
        None
    }

    fn output_schema(&self) -> Option<&Value> {
        None
    }

    fn definition_site(&self) -> Option<tool_sdk::DefinitionSite> {
        None
    }

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
    fn parse_input(&self, _input: &Value) -> Result<Box<dyn ToolCall>, InputError> {
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
        .map(|target| target.definitions_json(&cache, &tools, &request).unwrap())
        .collect();
    assert_eq!(
        first[0],
        r#"[{"name":"Flip","description":"before","input_schema":{"type":"object","properties":{"x":{"type":"string"}}}}]"#
    );
    flipping.flipped.store(true, Ordering::SeqCst);
    let again: Vec<String> = TARGETS
        .iter()
        .map(|target| target.definitions_json(&cache, &tools, &request).unwrap())
        .collect();
    assert_eq!(again, first);
    cache.clear();
    assert!(cache.is_empty());
    assert_eq!(
        ModelApi::Anthropic
            .definitions_json(&cache, &tools, &request)
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
    fn is_enabled(&self) -> bool {
        true
    }

    fn shared_input_schema(&self) -> Option<&'static Value> {
        None
    }

    fn output_schema(&self) -> Option<&Value> {
        None
    }

    fn definition_site(&self) -> Option<tool_sdk::DefinitionSite> {
        None
    }

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
    fn parse_input(&self, _input: &Value) -> Result<Box<dyn ToolCall>, InputError> {
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
    let first = ModelApi::Anthropic
        .definitions_json(&cache, &tools, &request)
        .unwrap();
    let reads = counted.reads.load(Ordering::SeqCst);
    assert!(reads > 0);
    for target in TARGETS {
        target.definitions_json(&cache, &tools, &request).unwrap();
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
    let again = ModelApi::Anthropic
        .definitions_json(&cache, &twins, &request)
        .unwrap();
    assert_eq!(again, first);
    assert_eq!(cache.len(), 1);
    assert_eq!(twin.reads.load(Ordering::SeqCst), 1);
    // A changed schema comes as a new instance, with a new key and a new entry.
    let changed: Vec<Arc<dyn DynTool>> = vec![Counting::new(
        json!({"type": "object", "properties": {"r": {"type": "number"}}}),
    )];
    let rendered = ModelApi::Anthropic
        .definitions_json(&cache, &changed, &request)
        .unwrap();
    assert!(rendered.contains(r#""r":{"type":"number"}"#), "{rendered}");
    assert_eq!(cache.len(), 2);
    // `clear` forgets instances too: the next render reads the schema again.
    cache.clear();
    ModelApi::Anthropic
        .definitions_json(&cache, &tools, &request)
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
        let rendered = ModelApi::Anthropic
            .definitions_json(&cache, &tools, &request)
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
    let one = mcp_tools_from_list("s", &json!({"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}]}), &McpImportOptions::default()).unwrap().tools;
    let two = mcp_tools_from_list("s", &json!({"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"b": {"type": "string"}}}}]}), &McpImportOptions::default()).unwrap().tools;
    let first = ModelApi::Anthropic
        .definitions_json(&cache, &one, &RenderRequest::default())
        .unwrap();
    let second = ModelApi::Anthropic
        .definitions_json(&cache, &two, &RenderRequest::default())
        .unwrap();
    assert_ne!(first, second);
    assert_eq!(cache.len(), 2);
    assert_eq!(
        tool_registry::test_support::cache_key(one[0].as_ref()),
        r#"mcp__s__t:{"type":"object","properties":{"a":{"type":"string"}}}"#
    );
    assert_eq!(
        tool_registry::test_support::cache_key(dyn_tool::<Add>().as_ref()),
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
        .unwrap()
        .tools,
    );
    let request = RenderRequest {
        defer_loading: vec!["mcp__s__t".to_owned()],
        cache_control: Some(json!({"type": "ephemeral"})),
        ..RenderRequest::default()
    };
    let rendered = ModelApi::Anthropic
        .definitions(&cache, &tools, &request)
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
    let plain = ModelApi::Anthropic
        .definitions(&cache, &tools, &RenderRequest::default())
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
    .unwrap()
    .tools;
    let cache = SchemaCache::new();
    for target in TARGETS {
        let first = target
            .definitions_json(&cache, &tools, &RenderRequest::default())
            .unwrap();
        let second = target
            .definitions_json(&cache, &tools, &RenderRequest::default())
            .unwrap();
        assert_eq!(first.len(), second.len());
        assert!(first == second, "{target:?} differs");
    }
    assert_eq!(cache.len(), 10_000);
}
