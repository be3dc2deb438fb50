//! Schema export of an arbitrary JSON Schema for every target (Anthropic, OpenAI Chat and
//! Responses with and without strict mode, MCP, Gemini): a definition or an error, never a
//! panic; and a schema that compiles keeps compiling once exported for Anthropic and MCP.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_registry::export::{RenderRequest, SchemaCache, StrictPolicy};
use tool_registry::providers::ModelApi;
use tool_sdk_fuzz::{mcp_tool, split};

fuzz_target!(|data: &[u8]| {
    let (flags, payload) = split(data);
    let Ok(schema) = serde_json::from_slice::<serde_json::Value>(payload) else {
        return;
    };
    // A schema the import normaliser refuses (not an object) still goes through the schema
    // rewrites below.
    if let Some(tool) = mcp_tool("fuzz", "tool", "A fuzzed schema", schema.clone()) {
        render(flags, &[tool]);
    }
    let _ = tool_registry::test_support::strict_schema("tool", &schema);
    if jsonschema::validator_for(&schema).is_ok() {
        let exported = tool_registry::test_support::export_input_schema(&schema);
        assert!(
            jsonschema::validator_for(&exported).is_ok(),
            "{schema} compiles but its export {exported} does not"
        );
    }
});

fn render(flags: u8, tools: &[std::sync::Arc<dyn tool_sdk::DynTool>]) {
    let cache = SchemaCache::new();
    let request = RenderRequest {
        strict: flags & 1 == 1,
        strict_policy: if flags & 2 == 2 {
            StrictPolicy::Error
        } else {
            StrictPolicy::default()
        },
        ..RenderRequest::default()
    };
    for api in ModelApi::ALL {
        if let Ok(json) = api.definitions_json(&cache, tools, &request) {
            let parsed: serde_json::Value =
                serde_json::from_str(&json).expect("the rendered text is JSON");
            assert_eq!(parsed.as_array().map(Vec::len), Some(1));
        }
    }
}
