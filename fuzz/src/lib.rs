//! Shared set-up for the fuzz targets: one tokio runtime, one temporary workspace, a fixed
//! tool pool, and a way to split the fuzzer's bytes into a selector and a payload.

use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};
use tool_registry::dynamic::{McpImportOptions, mcp_tools_from_list};
use tool_sdk::DynTool;

/// A current-thread runtime, built once per process.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
    })
}

/// The first byte (0 when empty) and the rest.
pub fn split(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((&first, rest)) => (first, rest),
        None => (0, data),
    }
}

/// The bytes as JSON when they parse, else as one JSON string (lossy UTF-8), so every input
/// reaches the code under test.
pub fn json_or_string(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// An MCP tool of `server` named `name` with `schema` as input schema, imported as a recorded
/// `tools/list` entry is; `None` when the import normaliser skips the entry (a schema that is
/// not an object).
pub fn mcp_tool(
    server: &str,
    name: &str,
    description: &str,
    schema: Value,
) -> Option<Arc<dyn DynTool>> {
    let list = json!({"tools": [{"name": name, "description": description, "inputSchema": schema}]});
    mcp_tools_from_list(server, &list, &McpImportOptions::default())
        .expect("a tools array")
        .tools
        .pop()
}

/// The nine example tools and a dozen MCP tools of three servers (one name long enough to be
/// shortened, one server name that normalisation changes).
pub fn fixed_pool() -> &'static [Arc<dyn DynTool>] {
    static POOL: OnceLock<Vec<Arc<dyn DynTool>>> = OnceLock::new();
    POOL.get_or_init(|| {
        let mut pool = tool_examples::tools::all();
        let object = json!({"type": "object", "properties": {"path": {"type": "string"}}});
        let tools = [
            (
                "github",
                "get_me",
                "Get details of the authenticated GitHub user",
            ),
            (
                "github",
                "create_issue",
                "Create a new issue in a GitHub repository",
            ),
            (
                "github",
                "list_pull_requests",
                "List pull requests in a repository",
            ),
            (
                "github",
                "search_code",
                "Search code across GitHub repositories",
            ),
            (
                "filesystem",
                "read_text_file",
                "Read the complete contents of a file as text",
            ),
            (
                "filesystem",
                "write_file",
                "Create a new file or overwrite an existing file",
            ),
            (
                "filesystem",
                "list_directory",
                "Get a detailed listing of a directory",
            ),
            (
                "my.server",
                "read file",
                "Reads a file from the server's store",
            ),
            ("git", "git_status", "Shows the working tree status"),
            (
                "git",
                "git_diff_unstaged",
                "Shows changes in the working directory",
            ),
            (
                "a-server-with-a-rather-long-name",
                "a_tool_whose_name_is_long_enough_to_need_shortening",
                "A tool whose exported name is shortened",
            ),
            (
                "slack",
                "slack_post_message",
                "Post a message to a Slack channel",
            ),
        ];
        for (server, name, description) in tools {
            pool.extend(mcp_tool(server, name, description, object.clone()));
        }
        pool
    })
}
