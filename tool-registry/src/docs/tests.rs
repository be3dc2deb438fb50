use super::*;
use crate::dynamic::{DynamicTool, ToolDefinition, ToolHandler};

fn tool(definition: Value) -> DynamicTool {
    let definition: ToolDefinition = serde_json::from_value(definition).unwrap();
    DynamicTool::from_definition(definition, ToolHandler::fixed_text("ok")).unwrap()
}

#[test]
fn nested_properties_get_rows_and_the_example_has_every_required_one() {
    let todo = tool(json!({
        "name": "TodoWrite",
        "description": "Replaces the todo\nlist. More text.\n- a bullet",
        "input_schema": {"type": "object", "properties": {"todos": {"type": "array",
            "description": "The list",
            "items": {"type": "object", "properties": {
                "content": {"type": "string", "minLength": 1},
                "status": {"type": "string", "enum": ["pending", "completed"]}
            }, "required": ["content", "status"]}}}, "required": ["todos"]}
    }));
    let doc = ToolDoc::of(&todo);
    let names: Vec<&str> = doc.inputs.iter().map(|row| row.name.as_str()).collect();
    assert_eq!(names, ["todos", "todos[].content", "todos[].status"]);
    assert_eq!(doc.inputs[0].type_text, "array of object");
    assert_eq!(doc.inputs[1].constraints, ["minLength: 1"]);
    assert_eq!(
        doc.example_input,
        json!({"todos": [{"content": "text", "status": "pending"}]})
    );
    let page = doc.to_markdown();
    assert!(
        page.contains("| `todos[].status` | `\"pending\"` \\| `\"completed\"` | yes | - | - |"),
        "{page}"
    );
    assert!(
        page.contains("| Max result size | 100000 chars |"),
        "{page}"
    );
    let index = ToolDoc::index_markdown(&[doc]);
    assert!(
        index.contains("| [TodoWrite](TodoWrite.md) | built-in | no | Replaces the todo list. |"),
        "{index}"
    );
}

#[test]
fn a_tool_without_parameters_says_so() {
    let ping = tool(json!({"name": "Ping", "description": "Ping.",
                           "input_schema": {"type": "object", "properties": {}}}));
    let doc = ToolDoc::of(&ping);
    assert_eq!(doc.file_name(), "Ping.md");
    assert!(doc.to_markdown().contains("This tool takes no parameters"));
    assert_eq!(ToolDoc::catalog_json(&[doc])["tools"][0]["name"], "Ping");
}

#[test]
fn references_resolve_and_cells_stay_in_their_column() {
    let tool = tool(json!({
        "name": "Shapes",
        "description": "Draws shapes.",
        "input_schema": {
            "type": "object",
            "$defs": {"Kind": {"type": "string", "enum": ["a|b", "c\nd"],
                "description": "The kind | of shape\nto draw"}},
            "properties": {"kind": {"$ref": "#/$defs/Kind"}},
            "required": ["kind"]
        }
    }));
    let doc = ToolDoc::of(&tool);
    assert_eq!(doc.inputs.len(), 1);
    assert_eq!(
        doc.inputs[0].description.as_deref(),
        Some("The kind | of shape\nto draw")
    );
    assert_eq!(doc.example_input, json!({"kind": "a|b"}));
    let page = doc.to_markdown();
    let row = page
        .lines()
        .find(|line| line.starts_with("| `kind`"))
        .unwrap_or_else(|| panic!("{page}"));
    let unescaped = row.replace("\\|", "");
    assert_eq!(unescaped.matches('|').count(), 6, "{row}");
    assert!(row.contains("The kind \\| of shape<br>to draw"), "{row}");
}

#[test]
fn deferred_means_what_the_pool_says() {
    let list = json!({"tools": [{"name": "status", "description": "Shows status.",
        "inputSchema": {"type": "object", "properties": {}}}]});
    let tools = crate::dynamic::mcp_tools_from_list(
        "git",
        &list,
        &crate::dynamic::McpImportOptions::default(),
    )
    .unwrap()
    .tools;
    let doc = ToolDoc::of(tools[0].as_ref());
    assert!(doc.should_defer, "an MCP tool is deferred");
    assert!(
        doc.to_markdown()
            .contains("| Deferred (ToolSearch only) | yes |")
    );
}
