//! Every schema we send is a valid JSON Schema 2020-12 document: the input schema of each
//! example tool and of each MCP tool in the recorded `tools/list` fixtures, as held and as
//! exported for every target (strict OpenAI included where the tool can be strict), and the
//! schemas of input shapes schemars writes for common Rust inputs. The fixtures part skips,
//! saying so, when they are absent.

#![allow(dead_code, reason = "the shapes are only described, never read")]

mod common;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::Value;
use tool_registry::dynamic::{McpImportOptions, mcp_tools_from_list};
use tool_registry::test_support::{export_input_schema, strict_schema};
use tool_sdk::DynTool;
use tool_sdk::prelude::*;

/// Checks `schema` against the 2020-12 metaschema, naming `what` when it fails.
fn assert_valid(what: &str, schema: &Value) {
    let meta = jsonschema::draft202012::meta::validator();
    if let Err(error) = meta.validate(schema) {
        panic!("{what}: not a valid 2020-12 schema: {error}\n{schema}");
    }
}

/// The schemas of one tool: as held, as exported, and strict when it can be.
fn check_tool(tool: &Arc<dyn DynTool>) -> usize {
    let held = tool.input_schema();
    let exported = export_input_schema(held);
    assert_valid(&format!("{} (held)", tool.name()), held);
    assert_valid(&format!("{} (exported)", tool.name()), &exported);
    assert!(exported.get("$schema").is_none(), "{}", tool.name());
    for combinator in ["anyOf", "oneOf", "allOf"] {
        assert!(
            exported.get(combinator).is_none(),
            "{}: root {combinator}",
            tool.name()
        );
    }
    assert_eq!(exported["type"], "object", "{}", tool.name());
    match strict_schema(tool.name(), &exported) {
        Ok(strict) => {
            assert_valid(&format!("{} (strict)", tool.name()), &strict);
            3
        }
        Err(_) => 2,
    }
}

#[test]
fn example_tools_export_valid_schemas() {
    let checked: usize = tool_examples::tools::all().iter().map(check_tool).sum();
    assert!(checked >= 18, "{checked}");
}

#[test]
fn recorded_mcp_tools_export_valid_schemas() {
    let dir = common::fixtures_dir().join("mcp-tools-lists");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "SKIPPED: {} is absent, so no MCP tools were checked",
            dir.display()
        );
        return;
    };
    let mut tools = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let list: Value = serde_json::from_str(&text).unwrap();
        // A recording holds the JSON-RPC response beside its request (as `--mcp-tools-json`
        // reads it).
        let list = list.get("response").cloned().unwrap_or(list);
        let server = path
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .replace(['.', '-'], "_");
        let imported = mcp_tools_from_list(&server, &list, &McpImportOptions::default())
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        for tool in &imported.tools {
            check_tool(tool);
            tools += 1;
        }
    }
    assert!(tools > 0, "no tools in {}", dir.display());
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Step {
    Move { x: i32 },
    Stop,
}

#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum Loose {
    Number(u32),
    Words(Vec<String>),
}

#[derive(Deserialize, JsonSchema)]
struct Node {
    name: String,
    children: Option<Vec<Node>>,
}

/// Shapes schemars writes for common inputs.
#[derive(Deserialize, JsonSchema)]
struct Shapes {
    maybe: Option<String>,
    step: Step,
    loose: Option<Loose>,
    by_name: HashMap<String, u8>,
    by_number: BTreeMap<u32, String>,
    pair: (u8, String),
    any: Value,
    tree: Option<Node>,
}

/// A flattened enum at the root.
#[derive(Deserialize, JsonSchema)]
struct Flat {
    id: u8,
    #[serde(flatten)]
    step: Step,
}

#[test]
fn common_input_shapes_give_valid_schemas() {
    for (name, schema) in [
        ("Shapes", tool_sdk::schema::input_schema_for::<Shapes>()),
        ("Flat", tool_sdk::schema::input_schema_for::<Flat>()),
    ] {
        assert_valid(name, &schema);
        let exported = export_input_schema(&schema);
        assert_valid(&format!("{name} (exported)"), &exported);
        assert!(exported.get("oneOf").is_none() && exported.get("anyOf").is_none());
        assert_eq!(exported["type"], "object");
    }
    assert_eq!(
        tool_sdk::schema::input_schema_for::<Shapes>()["properties"]["any"],
        serde_json::json!({})
    );
}
