#[derive(Deserialize, JsonSchema)]
pub struct Broken {
    pub x: String,
}
#[automatically_derived]
impl ::tool_sdk::__private::ToolSpec for Broken {
    const NAME: &'static ::tool_sdk::__private::str = "";
    const DESCRIPTION: &'static ::tool_sdk::__private::str = "";
    const MAX_RESULT_SIZE_CHARS: ::tool_sdk::__private::MaxResultSize = ::tool_sdk::__private::MaxResultSize::Unbounded;
}
::core::compile_error! {
    "`name` starts with `mcp__`, which is reserved for tools imported from MCP servers; choose another name"
}
::core::compile_error! {
    "missing description: add a `///` doc comment to `Broken` saying what the tool does (the model reads it), or write `description = \"...\"` in #[tool(...)]"
}
::core::compile_error! {
    "`max_result_size_chars = 0` would persist every result; give a positive number of chars, or `unbounded` to never persist"
}
::core::compile_error! {
    "`search_hint` has 1 word; write a 3-10 word capability phrase, e.g. \"find files by name pattern\""
}
::core::compile_error! {
    "`search_hint` ends with a period; write a phrase, not a sentence: drop the `.`"
}
