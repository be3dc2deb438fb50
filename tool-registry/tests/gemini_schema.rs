//! The Gemini schema profile: every fixture tool (MCP `tools/list` captures and Claude Code's
//! own schemas) and the shapes schemars derives for common Rust types export to declarations
//! that pass the offline checker written from Gemini's documented rules; what cannot be made
//! portable fails naming the tool and the field.

mod providers_support;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list};
use tool_registry::export::{RenderRequest, SchemaCache, SchemaError};
use tool_registry::providers::ModelApi;
use tool_registry::providers::gemini::{GeminiNames, check_declaration};
use tool_registry::test_support::export_input_schema;
use tool_registry::test_support::portable_schema;
use tool_sdk::DynTool;

use providers_support::{fixtures, read_json};

fn assert_portable(label: &str, declaration: &Value) {
    let problems = check_declaration(declaration);
    assert!(
        problems.is_empty(),
        "{label}: {problems:#?}\n{declaration:#}"
    );
}

#[test]
fn every_fixture_tool_exports_a_declaration_gemini_accepts() {
    let Some(dir) = fixtures("every_fixture_tool_exports_a_declaration_gemini_accepts") else {
        return;
    };
    let mut tools: Vec<Arc<dyn DynTool>> = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir.join("mcp-tools-lists"))
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
    let mut entries: Vec<Value> = schemas["tools"].as_array().unwrap().clone();
    for variant in schemas["version_variants"]
        .as_object()
        .into_iter()
        .flat_map(|v| v.values())
    {
        if let Some(more) = variant.get("tools").and_then(Value::as_array) {
            entries.extend(
                more.iter()
                    .filter(|t| t.get("input_schema").is_some())
                    .cloned(),
            );
        }
    }
    for entry in &entries {
        let definition = json!({
            "name": entry["name"],
            "description": entry.get("description_first_sentence_paraphrased").or(entry.get("description")).cloned().unwrap_or(json!("A tool.")),
            "input_schema": entry["input_schema"],
        });
        tools.push(Arc::new(
            DynamicTool::from_json(&definition, ToolHandler::fixed_text("ok")).unwrap(),
        ));
    }
    assert!(tools.len() > 50, "{} tools", tools.len());
    let cache = SchemaCache::new();
    // One tool at a time: Claude Code's versions repeat names.
    let mut refused = Vec::new();
    for tool in &tools {
        let one = std::slice::from_ref(tool);
        // The JSON Schema form takes every tool as it is.
        let full = ModelApi::Gemini
            .definitions(&cache, one, &RenderRequest::default())
            .unwrap();
        assert_portable(tool.name(), &full[0]);
        assert!(full[0].get("parameters").is_none(), "{:#}", full[0]);
        let exported =
            match ModelApi::GeminiOpenApi.definitions(&cache, one, &RenderRequest::default()) {
                Ok(exported) => exported,
                // A map field (keys chosen by the caller) cannot be made portable: the export
                // fails naming the tool and the field, and only for that reason.
                Err(error) if error.to_string().contains("it is a map") => {
                    refused.push(error.to_string());
                    continue;
                }
                Err(error) => panic!("{error}"),
            };
        assert_portable(tool.name(), &exported[0]);
        assert_eq!(
            GeminiNames::for_tools(one).to_pool(exported[0]["name"].as_str().unwrap()),
            tool.name()
        );
    }
    assert!(
        refused.len() < tools.len() / 10,
        "only the few tools with map fields are refused: {refused:#?}"
    );
    assert!(
        refused
            .iter()
            .any(|e| e.contains("AskUserQuestion") && e.contains("`answers`")),
        "{refused:#?}"
    );
    // Byte-stable for the session.
    let portable_tools: Vec<_> = tools
        .iter()
        .filter(|tool| {
            ModelApi::GeminiOpenApi
                .definitions(
                    &cache,
                    std::slice::from_ref(*tool),
                    &RenderRequest::default(),
                )
                .is_ok()
        })
        .take(5)
        .cloned()
        .collect();
    let render = || {
        ModelApi::GeminiOpenApi
            .definitions_json(&cache, &portable_tools, &RenderRequest::default())
            .unwrap()
    };
    assert_eq!(render(), render());
}

/// Where to look.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Scope {
    /// Only this directory.
    Here,
    /// Everything below it.
    Below,
}

/// One edit.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Edit {
    old_text: String,
    new_text: String,
}

/// A shape with a tag.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum Target {
    /// A file.
    File { path: String },
    /// A URL.
    Url {
        url: String,
        timeout_ms: Option<u32>,
    },
}

#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Lines {
    One(u32),
    Many(Vec<u32>),
}

/// The common shapes schemars derives.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Common {
    text: String,
    maybe: Option<String>,
    count: u64,
    small: Option<i32>,
    ratio: f64,
    flag: bool,
    letter: char,
    tags: Vec<String>,
    edits: Vec<Edit>,
    scope: Scope,
    maybe_scope: Option<Scope>,
    target: Target,
    lines: Lines,
    #[schemars(range(min = 1, max = 10))]
    bounded: u8,
    #[schemars(length(min = 1, max = 64), regex(pattern = r"^[a-z]+$"))]
    slug: String,
    #[serde(default)]
    limit: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Node {
    name: String,
    children: Vec<Node>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WithMap {
    env: HashMap<String, String>,
    by_name: BTreeMap<String, Edit>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WithTuple {
    pair: (String, u32),
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct WithAny {
    anything: Value,
}

fn portable<T: JsonSchema>(tool: &str) -> Result<Value, SchemaError> {
    let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap();
    portable_schema(tool, &export_input_schema(&schema))
}

#[test]
fn schemars_common_shapes_become_portable() {
    let parameters = portable::<Common>("Common").unwrap();
    assert_portable(
        "Common",
        &json!({"name": "Common", "description": "d", "parameters": parameters}),
    );
    let properties = &parameters["properties"];
    assert_eq!(
        properties["maybe"],
        json!({"type": "string", "nullable": true})
    );
    assert_eq!(
        properties["scope"]["enum"],
        json!(["here", "below"]),
        "{parameters:#}"
    );
    assert_eq!(properties["scope"]["type"], "string");
    assert_eq!(
        properties["maybe_scope"]["nullable"], true,
        "{parameters:#}"
    );
    assert_eq!(properties["maybe_scope"]["enum"], json!(["here", "below"]));
    assert_eq!(properties["target"]["anyOf"].as_array().unwrap().len(), 2);
    assert_eq!(
        properties["target"]["anyOf"][0]["properties"]["kind"]["enum"],
        json!(["file"])
    );
    assert_eq!(
        properties["edits"]["items"]["required"],
        json!(["old_text", "new_text"])
    );
    assert_eq!(properties["count"]["minimum"], 0);
    assert_eq!(
        properties["count"].get("format"),
        None,
        "uint64 is not a Gemini format"
    );
    assert_eq!(properties["small"]["format"], "int32");
    assert_eq!(properties["bounded"]["minimum"], 1);
    assert_eq!(properties["bounded"]["maximum"], 10);
    assert_eq!(properties["slug"]["pattern"], "^[a-z]+$");
    assert_eq!(properties["lines"]["anyOf"][1]["items"]["type"], "integer");
    let error = portable::<WithMap>("WithMap").unwrap_err();
    assert_eq!(
        (error.tool.as_str(), error.field.as_str()),
        ("WithMap", "env")
    );
    assert!(error.reason.contains("it is a map"), "{error}");
}

#[test]
fn arrays_without_items_properties_off_objects_and_mixed_enums_fail() {
    let fail = |schema: Value| portable_schema("T", &schema).unwrap_err();
    let error = fail(json!({"type": "object", "properties": {"xs": {"type": "array"}}}));
    assert_eq!(error.field, "xs");
    assert!(error.reason.contains("no `items`"), "{error}");
    let error = fail(
        json!({"type": "object", "properties": {"s": {"type": "string", "properties": {"a": {"type": "string"}}}}}),
    );
    assert_eq!(error.field, "s");
    assert!(error.reason.contains("`properties`"), "{error}");
    let error = fail(
        json!({"type": "object", "properties": {"m": {"type": "object", "patternProperties": {"^x": {"type": "string"}}}}}),
    );
    assert_eq!(error.field, "m");
    // An enum next to a `$ref` is checked like any other: numbers are described.
    let described = portable_schema(
        "T",
        &json!({
            "type": "object",
            "properties": {"level": {"$ref": "#/$defs/Level", "enum": [1, 2]}},
            "$defs": {"Level": {"type": "integer", "description": "How loud."}}
        }),
    )
    .unwrap();
    assert_eq!(
        described["properties"]["level"],
        json!({"type": "integer", "description": "How loud. Allowed values: 1, 2."})
    );
    let error = fail(json!({
        "type": "object",
        "properties": {"level": {"$ref": "#/$defs/Level", "enum": [1, "two"]}},
        "$defs": {"Level": {"type": "integer"}}
    }));
    assert_eq!(error.field, "level");
    assert!(error.reason.contains("enum"), "{error}");
    // The checker sees the same faults in a schema written by hand.
    let problems = check_declaration(&json!({"name": "T", "parameters": {
        "type": "object",
        "properties": {
            "xs": {"type": "array"},
            "s": {"type": "string", "properties": {}}
        }
    }}));
    assert!(
        problems.iter().any(|p| p.contains("no `items`")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`properties` on a non-object")),
        "{problems:?}"
    );
}

#[test]
fn a_doubling_ref_chain_fails_at_the_size_cap_instead_of_growing() {
    let mut defs = serde_json::Map::new();
    for level in 0..22 {
        let next = if level == 21 {
            json!({"type": "string"})
        } else {
            json!({"$ref": format!("#/$defs/L{}", level + 1)})
        };
        defs.insert(
            format!("L{level}"),
            json!({"type": "object", "properties": {"a": next, "b": next}}),
        );
    }
    let schema =
        json!({"type": "object", "properties": {"top": {"$ref": "#/$defs/L0"}}, "$defs": defs});
    let error = portable_schema("Deep", &schema).unwrap_err();
    assert_eq!(error.tool, "Deep");
    assert!(error.field.starts_with("top"), "{error}");
    assert!(error.reason.contains("sub-schemas"), "{error}");
}

#[test]
fn what_gemini_cannot_express_fails_naming_the_tool_and_field() {
    let error = portable::<Node>("Tree").unwrap_err();
    assert_eq!(error.tool, "Tree");
    assert_eq!(error.field, "children[]");
    assert!(error.reason.contains("`Node` contains itself"), "{error}");
    let error = portable::<WithTuple>("Pair").unwrap_err();
    assert_eq!(
        (error.field.as_str(), error.reason.as_str()),
        ("pair", "it is a tuple (fixed-position array items)")
    );
    let error = portable::<WithAny>("Any").unwrap_err();
    assert_eq!(error.field, "anything");
    assert_eq!(
        error.to_string(),
        "tool `Any`: field `anything` cannot be sent in Gemini's OpenAPI-subset `parameters`: it is a boolean schema (any value, or none); give it a type; change the field, or send full JSON Schema in `parametersJsonSchema` (`--format gemini`, `ModelApi::Gemini`), which takes it whole"
    );
    let mixed = json!({"type": "object", "properties": {"level": {"type": "integer", "enum": [1, "2", 3]}}});
    let error = portable_schema("Level", &mixed).unwrap_err();
    assert_eq!(error.field, "level");
    assert!(error.reason.contains("non-string value 1"), "{error}");
    let flags = json!({"type": "object", "properties": {"on": {"enum": [true, null]}}});
    let error = portable_schema("Flag", &flags).unwrap_err();
    assert_eq!(error.field, "on");
}

#[test]
fn json_schema_keywords_map_onto_the_openapi_subset() {
    let schema = json!({
        "type": "object",
        "$defs": {"Mode": {"type": "string", "enum": ["a", "b", null]}},
        "properties": {
            "mode": {"$ref": "#/$defs/Mode", "description": "The mode."},
            "either": {"type": ["string", "integer"], "minLength": 1, "minimum": 0},
            "exact": {"const": "only"},
            "above": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5, "description": "A ratio"},
            "when": {"type": "string", "format": "date-time"},
            "link": {"type": "string", "format": "uri"},
            "ex": {"type": "string", "examples": ["x", "y"]},
            "both": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, {"type": "object", "properties": {"b": {"type": "string"}}}]}
        },
        "required": ["mode", "gone"],
        "additionalProperties": false
    });
    let portable = portable_schema("Map", &schema).unwrap();
    assert_portable("Map", &json!({"name": "Map", "parameters": portable}));
    let p = &portable["properties"];
    assert_eq!(
        p["mode"],
        json!({"type": "string", "nullable": true, "enum": ["a", "b"], "description": "The mode."})
    );
    assert_eq!(
        p["either"],
        json!({"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 0}]})
    );
    assert_eq!(p["exact"], json!({"type": "string", "enum": ["only"]}));
    assert_eq!(
        p["above"],
        json!({"type": "integer", "minimum": 1, "maximum": 9})
    );
    // The subset has no exclusive bound: a number's is kept inclusive and said in words.
    assert_eq!(
        p["ratio"],
        json!({"type": "number", "minimum": 0, "maximum": 1.5, "description": "A ratio. Must be greater than 0. Must be less than 1.5."})
    );
    assert_eq!(p["when"]["format"], "date-time");
    assert_eq!(p["link"], json!({"type": "string"}));
    assert_eq!(p["ex"], json!({"type": "string", "example": "x"}));
    assert_eq!(p["both"]["required"], json!(["a"]));
    assert_eq!(portable["required"], json!(["mode"]));
    assert!(portable.get("$defs").is_none() && portable.get("additionalProperties").is_none());
}

#[test]
fn a_numeric_enum_behind_a_ref_or_in_a_union_keeps_its_values_beside_a_description() {
    let level = |property: Value| {
        let schema = json!({
            "type": "object",
            "properties": {"a": property},
            "$defs": {"L": {"type": "integer", "enum": [1, 2]}}
        });
        let portable = portable_schema("T", &schema).unwrap();
        assert_portable("T", &json!({"name": "T", "parameters": portable}));
        portable["properties"]["a"].clone()
    };
    assert_eq!(
        level(json!({"$ref": "#/$defs/L", "description": "Level."})),
        json!({"type": "integer", "description": "Level. Allowed values: 1, 2."})
    );
    assert_eq!(
        level(json!({"anyOf": [{"$ref": "#/$defs/L"}, {"type": "null"}], "description": "Level."})),
        json!({"type": "integer", "description": "Level. Allowed values: 1, 2.", "nullable": true})
    );
    assert_eq!(
        level(json!({"description": "Other.", "allOf": [{"$ref": "#/$defs/L"}]})),
        json!({"type": "integer", "description": "Other. Allowed values: 1, 2."})
    );
    // A description without a full stop gets one before the sentence.
    assert_eq!(
        level(json!({"type": "integer", "enum": [3, 4], "description": "Level"})),
        json!({"type": "integer", "description": "Level. Allowed values: 3, 4."})
    );
}

#[test]
fn null_and_boolean_constants_fail_saying_why_and_where_to_go() {
    let field = |schema: Value| {
        portable_schema("T", &json!({"type": "object", "properties": {"f": schema}})).unwrap_err()
    };
    let error = field(json!({"const": null}));
    assert_eq!(error.field, "f");
    assert!(error.reason.contains("its only value is `null`"), "{error}");
    for schema in [
        json!({"const": true}),
        json!({"type": "boolean", "enum": [true, false]}),
    ] {
        let error = field(schema);
        assert!(
            error.reason.contains("holds the non-string value true"),
            "{error}"
        );
        assert!(error.to_string().contains("`--format gemini`"), "{error}");
    }
}
