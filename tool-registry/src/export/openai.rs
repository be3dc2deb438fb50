//! OpenAI function tools: Chat Completions (`{"type":"function","function":{...}}`) and
//! Responses (`{"type":"function","name":...}`).

use serde_json::{Map, Value};

use super::captured::CachedTool;

/// The definition of a captured tool. `strict_schema` is the strict-mode schema when strict
/// mode applies (then `"strict": true`), else `None` (`"strict": false` and the plain schema;
/// the Responses API would otherwise default to strict).
pub(super) fn definition(tool: &CachedTool, chat: bool, strict_schema: Option<&Value>) -> Value {
    let mut function = Map::new();
    if !chat {
        function.insert("type".to_owned(), Value::String("function".to_owned()));
    }
    function.insert("name".to_owned(), Value::String(tool.name.clone()));
    function.insert(
        "description".to_owned(),
        Value::String(tool.description.clone()),
    );
    function.insert(
        "parameters".to_owned(),
        strict_schema.unwrap_or(&tool.input_schema).clone(),
    );
    function.insert("strict".to_owned(), Value::Bool(strict_schema.is_some()));
    if !chat {
        return Value::Object(function);
    }
    let mut outer = Map::new();
    outer.insert("type".to_owned(), Value::String("function".to_owned()));
    outer.insert("function".to_owned(), Value::Object(function));
    Value::Object(outer)
}
