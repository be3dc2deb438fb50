//! A tool crate that nothing names unless a binary says `use tool_sdk_build_fixtures as _;`.

use tool_sdk::prelude::*;

/// Reports that the tool crate was linked.
#[tool(name = "LinkedFromLibrary", read_only, max_result_size_chars = 100)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LinkedFromLibrary {}

#[tool]
impl Tool for LinkedFromLibrary {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("linked".to_owned()))
    }
}

/// Prints the names of every registered tool, sorted, one per line.
pub fn print_registered() {
    let mut names: Vec<&str> = tool_sdk::registration::registrations()
        .map(|registration| registration.name)
        .collect();
    names.sort_unstable();
    for name in names {
        println!("{name}");
    }
}
