use tool_sdk::prelude::*;

/// A path to read.
#[derive(Deserialize, JsonSchema)]
pub struct ReadArgs {
    /// The file.
    pub path: String,
}

/// Reads a file; returns `anyhow::Result` while tool-sdk's `anyhow` feature is off.
#[tool(name = "ReadIt", max_result_size_chars = 1_000)]
async fn read_it(input: ReadArgs) -> anyhow::Result<String> {
    Ok(std::fs::read_to_string(input.path)?)
}

fn main() {}
