//! Input schemas in older JSON Schema dialects keep their meaning when the export drops their
//! `$schema` and they are read as 2020-12.

use serde_json::{Value, json};
use tool_registry::test_support::export_input_schema;

/// For each value: the schema in its own dialect (as an imported tool's validator reads it)
/// and its export read as 2020-12 agree on whether it is valid.
fn agree(schema: &Value, values: &[Value]) {
    let own = jsonschema::validator_for(schema).expect("the schema compiles in its dialect");
    let exported = export_input_schema(schema);
    assert!(exported.get("$schema").is_none(), "{exported}");
    let as_2020 = jsonschema::draft202012::new(&exported)
        .unwrap_or_else(|error| panic!("{exported} does not compile as 2020-12: {error}"));
    for value in values {
        assert_eq!(
            own.is_valid(value),
            as_2020.is_valid(value),
            "{value} against {schema} and its export {exported}"
        );
    }
}

const DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";

/// The schema the `schema_export` fuzz target found: a `minContains` that draft-07 ignores
/// and 2020-12 refuses to compile.
#[test]
fn a_keyword_the_dialect_does_not_define_is_dropped() {
    let schema = json!({
        "$schema": DRAFT_07,
        "type": "object",
        "properties": {"count": {
            "default": 3,
            "minContains": "Number of resource links to return (2-10)",
            "type": "number",
            "maximum": 10
        }}
    });
    let exported = export_input_schema(&schema);
    assert_eq!(
        exported,
        json!({"type": "object", "properties": {"count": {"default": 3, "type": "number", "maximum": 10}}})
    );
    agree(&schema, &[json!({"count": 4}), json!({"count": 11})]);
}

#[test]
fn draft_07_tuples_dependencies_refs_and_new_keywords_keep_their_meaning() {
    let schema = json!({
        "$schema": DRAFT_07,
        "type": "object",
        "definitions": {"short": {"type": "string", "maxLength": 3}},
        "properties": {
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false},
            "list": {"type": "array", "items": {"type": "integer"}, "additionalItems": false},
            "name": {"$ref": "#/definitions/short", "minLength": 2, "description": "A name."},
            "tags": {"type": "array", "contains": {"const": "x"}, "maxContains": 1},
            "meta": {"type": "object", "unevaluatedProperties": false, "dependentRequired": {"a": ["b"]}}
        },
        "dependencies": {"pair": ["list"], "name": {"required": ["tags"]}}
    });
    agree(
        &schema,
        &[
            json!({}),
            json!({"pair": ["a", 1]}),
            json!({"pair": ["a", 1, true], "list": []}),
            json!({"pair": ["a", "b"], "list": []}),
            json!({"list": [1, 2]}),
            json!({"name": "a", "tags": []}),
            json!({"name": "abcd", "tags": []}),
            json!({"name": "ab"}),
            json!({"tags": ["x", "x"]}),
            json!({"tags": ["y"]}),
            json!({"meta": {"a": 1, "z": 2}}),
        ],
    );
}

#[test]
fn draft_04_bounds_and_draft_06_conditionals_keep_their_meaning() {
    let draft_04 = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {
            "ratio": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 1, "exclusiveMaximum": false},
            "mode": {"const": "fast", "type": "string"}
        }
    });
    agree(
        &draft_04,
        &[
            json!({"ratio": 0}),
            json!({"ratio": 0.5}),
            json!({"ratio": 1}),
            json!({"mode": "slow"}),
        ],
    );
    let draft_06 = json!({
        "$schema": "http://json-schema.org/draft-06/schema#",
        "type": "object",
        "properties": {"n": {"type": "integer", "if": {"minimum": 5}, "then": {"multipleOf": 2}}}
    });
    agree(
        &draft_06,
        &[json!({"n": 7}), json!({"n": 6}), json!({"n": 1})],
    );
}

#[test]
fn a_2019_09_tuple_becomes_prefix_items_and_2020_12_schemas_are_unchanged() {
    let draft_2019 = json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "type": "object",
        "properties": {"point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": false}}
    });
    agree(
        &draft_2019,
        &[
            json!({"point": [1, 2]}),
            json!({"point": [1, 2, 3]}),
            json!({"point": [1, "a"]}),
        ],
    );
    let draft_2020 = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"point": {"type": "array", "prefixItems": [{"type": "number"}], "minContains": 1, "contains": {"type": "number"}}}
    });
    let mut expected = draft_2020.clone();
    expected.as_object_mut().unwrap().shift_remove("$schema");
    assert_eq!(export_input_schema(&draft_2020), expected);
}

#[test]
fn references_identifiers_and_recursion_follow_the_rewrite() {
    // A `$ref` through an `items` array and a `dependencies` entry, which the rewrite renames.
    let draft_07 = json!({
        "$schema": DRAFT_07,
        "type": "object",
        "properties": {
            "pair": {"type": "array", "items": [{"type": "string", "maxLength": 2}, {"type": "integer"}]},
            "first": {"$ref": "#/properties/pair/items/0"},
            "guard": {"$ref": "#/dependencies/pair"},
            "code": {"$id": "#code", "type": "string", "pattern": "^[A-Z]+$"},
            "other": {"$ref": "#code"}
        },
        "dependencies": {"pair": {"required": ["first"]}}
    });
    agree(
        &draft_07,
        &[
            json!({"first": "ab"}),
            json!({"first": "abc"}),
            json!({"guard": {}}),
            json!({"guard": {"first": "a"}}),
            json!({"pair": ["a", 1], "first": "a"}),
            json!({"pair": ["a", 1]}),
            json!({"other": "ABC"}),
            json!({"other": "abc"}),
        ],
    );
    // Draft-04 `id` anchors, and 2019-09 recursion.
    let draft_04 = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "definitions": {"small": {"id": "#small", "type": "integer", "maximum": 3}},
        "properties": {"n": {"$ref": "#small"}}
    });
    agree(&draft_04, &[json!({"n": 2}), json!({"n": 5})]);
    let draft_2019 = json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$recursiveAnchor": true,
        "type": "object",
        "properties": {"name": {"type": "string"}, "child": {"$recursiveRef": "#"}},
        "additionalProperties": false
    });
    agree(
        &draft_2019,
        &[
            json!({"child": {"name": "a"}}),
            json!({"child": {"child": {"name": 1}}}),
            json!({"child": {"extra": true}}),
        ],
    );
}

/// An imported tool's output schema in an older dialect is listed (MCP `outputSchema`) as
/// 2020-12 too.
#[test]
fn an_older_dialect_output_schema_is_listed_as_2020_12() {
    use std::sync::Arc;

    use tool_registry::dynamic::{McpImportOptions, mcp_tools_from_list};
    use tool_registry::export::{RenderRequest, SchemaCache};
    use tool_registry::providers::ModelApi;
    use tool_sdk::DynTool;

    let output = json!({
        "$schema": DRAFT_07,
        "type": "object",
        "properties": {"pair": {"type": "array", "items": [{"type": "string"}], "additionalItems": false}}
    });
    let list = json!({"tools": [{
        "name": "pairs",
        "description": "Makes a pair.",
        "inputSchema": {"type": "object", "properties": {}},
        "outputSchema": output,
    }]});
    let tools: Vec<Arc<dyn DynTool>> =
        mcp_tools_from_list("store", &list, &McpImportOptions::default())
            .unwrap()
            .tools;
    let listed = ModelApi::Mcp
        .definitions(&SchemaCache::new(), &tools, &RenderRequest::default())
        .unwrap();
    assert_eq!(
        listed[0]["outputSchema"],
        json!({"type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}], "items": false}}})
    );
}
