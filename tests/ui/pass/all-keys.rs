use tool_sdk::prelude::*;

/// Runs a shell command.
#[tool(
    name = "Bash",
    aliases = ["Shell", "sh"],
    search_hint = "execute shell commands",
    read_only = Self::is_read_only_command,
    concurrency_safe = Self::is_read_only_command,
    destructive = false,
    max_result_size_chars = 30_000,
    should_defer,
    always_load = false,
    callers = ["direct", "programmatic"],
)]
#[derive(Deserialize, JsonSchema)]
pub struct Bash {
    /// The command.
    pub command: String,
}

impl Bash {
    fn is_read_only_command(&self) -> bool {
        self.command == "ls"
    }
}

#[tool]
impl Tool for Bash {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.command))
    }
}

/// Reads a file.
#[tool(name = "Read", description = "Reads a file by absolute path.", max_result_size_chars = unbounded)]
#[derive(Deserialize, JsonSchema)]
pub struct Read {
    /// The path.
    pub file_path: String,
}

#[tool]
impl Tool for Read {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.file_path))
    }
}

fn main() {
    assert_eq!(<Bash as ToolSpec>::ALIASES, ["Shell", "sh"]);
    assert!(
        Bash {
            command: "ls".into()
        }
        .is_read_only()
    );
    assert!(
        !Bash {
            command: "rm x".into()
        }
        .is_concurrency_safe()
    );
    assert!(<Bash as ToolSpec>::SHOULD_DEFER && !<Bash as ToolSpec>::ALWAYS_LOAD);
    assert_eq!(
        <Read as ToolSpec>::DESCRIPTION,
        "Reads a file by absolute path."
    );
    assert_eq!(
        <Read as ToolSpec>::MAX_RESULT_SIZE_CHARS,
        MaxResultSize::Unbounded
    );
    // Fail-closed defaults for what Read does not declare.
    let read = Read {
        file_path: "/x".into(),
    };
    assert!(!read.is_read_only() && !read.is_concurrency_safe() && !read.is_destructive());
}
