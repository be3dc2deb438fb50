//! `--format gemini` (`parametersJsonSchema`) writes only the JSON Schema keywords Gemini
//! reads: the ones with an equivalent are rewritten (`const`, exclusive bounds, `true`
//! sub-schemas, `definitions`), the result deserialises into google-genai's `types.JSONSchema`
//! (extra fields forbidden), the tool still checks calls against its own schema, and a keyword
//! with no equivalent is kept and reported by the offline checker.

mod provider_sdk_support;

use std::sync::Arc;

use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, ToolHandler};
use tool_registry::export::{RenderRequest, SchemaCache};
use tool_registry::providers::ModelApi;
use tool_registry::providers::gemini::check_declaration;
use tool_sdk::DynTool;

use provider_sdk_support::{sdk_python, validate};

fn exported(schema: &Value) -> (Arc<dyn DynTool>, Value) {
    let definition = json!({"name": "Run", "description": "Runs it.", "input_schema": schema});
    let tool: Arc<dyn DynTool> =
        Arc::new(DynamicTool::from_json(&definition, ToolHandler::fixed_text("ok")).unwrap());
    let declaration = ModelApi::Gemini
        .definitions(
            &SchemaCache::new(),
            std::slice::from_ref(&tool),
            &RenderRequest::default(),
        )
        .unwrap()
        .remove(0);
    (tool, declaration)
}

#[test]
fn keywords_gemini_would_ignore_are_rewritten_into_ones_it_reads() {
    let schema = json!({
        "type": "object",
        "properties": {
            // The built-in Bash tool's `timeout`.
            "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 600000},
            "count": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10, "description": "How many"},
            "kind": {"const": "file"},
            "anything": true,
            "shape": {"$ref": "#/definitions/Shape"}
        },
        "required": ["kind"],
        "definitions": {"Shape": {"type": "string", "enum": ["round", "square"]}}
    });
    let (tool, declaration) = exported(&schema);
    let sent = &declaration["parametersJsonSchema"];
    let p = &sent["properties"];
    assert_eq!(
        p["timeout"],
        json!({"type": "number", "maximum": 600000, "minimum": 0, "description": "Must be greater than 0."})
    );
    assert_eq!(
        p["count"],
        json!({"type": "integer", "description": "How many", "minimum": 1, "maximum": 9})
    );
    assert_eq!(p["kind"], json!({"type": "string", "enum": ["file"]}));
    assert_eq!(p["anything"], json!({}));
    assert_eq!(p["shape"], json!({"$ref": "#/$defs/Shape"}));
    assert_eq!(sent["$defs"]["Shape"]["enum"], json!(["round", "square"]));
    assert!(sent.get("definitions").is_none(), "{sent:#}");
    assert_eq!(check_declaration(&declaration), Vec::<String>::new());
    // The tool still checks its own schema: the bound the model is told in words is enforced.
    for (input, accepted) in [
        (json!({"kind": "file", "timeout": 0}), false),
        (json!({"kind": "file", "timeout": 0.5}), true),
        (json!({"kind": "dir"}), false),
        (json!({"kind": "file", "count": 10}), false),
    ] {
        assert_eq!(tool.parse_input(&input).is_ok(), accepted, "{input}");
    }
    if let Some(python) = sdk_python() {
        validate(&python, "JSONSchema", sent).unwrap();
        validate(&python, "FunctionDeclaration", &declaration).unwrap();
        // What the rewrite avoids: the SDK's type refuses the original keywords.
        let (_, mut raw) = exported(
            &json!({"type": "object", "properties": {"timeout": {"type": "number", "exclusiveMinimum": 0}}}),
        );
        raw["parametersJsonSchema"]["properties"]["timeout"]["exclusiveMinimum"] = json!(0);
        assert!(validate(&python, "JSONSchema", &raw["parametersJsonSchema"]).is_err());
    }
}

#[test]
fn keywords_without_an_equivalent_are_kept_and_reported() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"allOf": [{"type": "string"}, {"minLength": 2}]},
            "b": {"type": "string", "not": {"enum": ["x"]}},
            "c": {"type": "array", "items": false}
        }
    });
    let (_, declaration) = exported(&schema);
    let sent = &declaration["parametersJsonSchema"];
    assert_eq!(sent["properties"], schema["properties"]);
    let problems = check_declaration(&declaration);
    let expected = [
        "parametersJsonSchema.properties.a: `allOf` is not among the JSON Schema keywords Gemini documents",
        "parametersJsonSchema.properties.b: `not` is not among",
        "parametersJsonSchema.properties.c.items: a boolean sub-schema",
    ];
    for prefix in expected {
        assert!(
            problems.iter().any(|p| p.starts_with(prefix)),
            "missing {prefix:?} in {problems:#?}"
        );
    }
    assert_eq!(problems.len(), expected.len(), "{problems:#?}");
}
