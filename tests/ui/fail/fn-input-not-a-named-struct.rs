use tool_sdk::prelude::*;

/// Reads a file.
#[tool(name = "Read", max_result_size_chars = 100_000)]
async fn read_file(path: &str, _ctx: &ToolUseContext) -> Result<String, ToolError> {
    Ok(path.to_owned())
}

/// Sums numbers.
#[tool(name = "Sum", max_result_size_chars = 100)]
async fn sum(numbers: &[i64]) -> Result<i64, ToolError> {
    Ok(numbers.iter().sum())
}

/// Echoes text.
#[tool(name = "Echo", max_result_size_chars = 100_000)]
async fn echo(text: String) -> Result<String, ToolError> {
    Ok(text)
}

/// Counts lines.
#[tool(name = "Count", max_result_size_chars = 100)]
async fn count(paths: Vec<std::path::PathBuf>) -> Result<usize, ToolError> {
    Ok(paths.len())
}

/// Moves a file.
#[tool(name = "Move", max_result_size_chars = 100)]
async fn move_file(pair: (String, String)) -> Result<String, ToolError> {
    Ok(pair.0)
}

/// Takes anything.
#[tool(name = "Any", max_result_size_chars = 100)]
async fn any(value: serde_json::Value) -> Result<String, ToolError> {
    Ok(value.to_string())
}

/// How to find files.
#[derive(Deserialize, JsonSchema)]
pub enum FindArgs {
    ByName { pattern: String },
    ByContent { regex: String },
}

/// Finds files by name or by content.
#[tool(name = "Find", max_result_size_chars = 100_000)]
async fn find(input: FindArgs) -> Result<String, ToolError> {
    let _ = input;
    Ok(String::new())
}

/// A pattern.
#[derive(Deserialize, JsonSchema)]
pub struct GlobArgs(pub String);

/// Nothing.
#[derive(Deserialize, JsonSchema)]
pub struct NowArgs;

/// Finds files by name.
#[tool(name = "Glob", max_result_size_chars = 100_000)]
async fn glob(input: GlobArgs) -> Result<String, ToolError> {
    Ok(input.0)
}

/// Reports the time.
#[tool(name = "Now", max_result_size_chars = 100)]
async fn now(_input: NowArgs) -> Result<String, ToolError> {
    Ok("noon".to_owned())
}

/// Where to write.
#[derive(Deserialize, JsonSchema)]
pub struct WriteArgs {
    pub path: String,
}

/// Writes a file.
#[tool(name = "Write", max_result_size_chars = 100)]
async fn write(input: &WriteArgs, _ctx: &ToolUseContext) -> Result<String, ToolError> {
    Ok(input.path.clone())
}

/// Writes a file, boxed.
#[tool(name = "WriteBoxed", max_result_size_chars = 100)]
async fn write_boxed(input: std::sync::Arc<WriteArgs>) -> Result<String, ToolError> {
    Ok(input.path.clone())
}

/// Writes a file, maybe.
#[tool(name = "WriteMaybe", max_result_size_chars = 100)]
async fn write_maybe(input: Option<Box<WriteArgs>>) -> Result<String, ToolError> {
    Ok(input.map(|input| input.path).unwrap_or_default())
}

type Ctx = ToolUseContext;

/// Reports the working directory.
#[tool(name = "Pwd", max_result_size_chars = 100)]
async fn pwd(ctx: &Ctx) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(String::new())
}

fn main() {}
