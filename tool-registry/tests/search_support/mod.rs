//! Tools for the search tests: small `DynTool`s described at run time, like MCP tools are.

#![allow(dead_code)]

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tool_sdk::{DynTool, InputError, InputIssue, MaxResultSize, ToolCall, ToolMeta};

/// A tool known only by its facts: name, hint, description, flags. Calls are refused with an
/// input error, since the search tests never run them.
pub struct DescribedTool {
    meta: ToolMeta,
    prompt: Mutex<String>,
    schema: Value,
}

impl DescribedTool {
    pub fn new(name: &str, description: &str) -> Self {
        let mut meta = ToolMeta::new(name.to_owned(), MaxResultSize::Chars(100_000));
        meta.is_mcp = name.starts_with("mcp__");
        Self {
            meta,
            prompt: Mutex::new(description.to_owned()),
            schema: json!({"type": "object", "properties": {"x": {"type": "string"}}}),
        }
    }

    pub fn hint(mut self, hint: &str) -> Self {
        self.meta.search_hint = Some(Cow::Owned(hint.to_owned()));
        self
    }

    pub fn deferred(mut self) -> Self {
        self.meta.should_defer = true;
        self
    }

    pub fn mcp(mut self, is_mcp: bool) -> Self {
        self.meta.is_mcp = is_mcp;
        self
    }

    pub fn always_load(mut self) -> Self {
        self.meta.always_load = true;
        self
    }

    pub fn alias(mut self, alias: &str) -> Self {
        self.meta.aliases.push(Cow::Owned(alias.to_owned()));
        self
    }

    pub fn schema(mut self, schema: Value) -> Self {
        self.schema = schema;
        self
    }

    pub fn set_prompt(&self, prompt: &str) {
        *self.prompt.lock().unwrap() = prompt.to_owned();
    }

    pub fn arc(self) -> Arc<dyn DynTool> {
        Arc::new(self)
    }
}

impl DynTool for DescribedTool {
    fn is_enabled(&self) -> bool {
        true
    }

    fn shared_input_schema(&self) -> Option<&'static Value> {
        None
    }

    fn output_schema(&self) -> Option<&Value> {
        None
    }

    fn definition_site(&self) -> Option<tool_sdk::DefinitionSite> {
        None
    }

    fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    fn prompt(&self) -> Cow<'_, str> {
        Cow::Owned(self.prompt.lock().unwrap().clone())
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn has_json_schema(&self) -> bool {
        true
    }

    fn parse_input(&self, _input: &Value) -> Result<Box<dyn ToolCall>, InputError> {
        Err(InputError::new(vec![InputIssue::Other {
            path: String::new(),
            message: "this test tool only takes part in searches".to_owned(),
        }]))
    }
}

/// The pool of the hand-computed ranking tests, in pool order.
pub fn ranking_pool() -> Vec<Arc<dyn DynTool>> {
    vec![
        DescribedTool::new("NotebookEdit", "Edits a cell of a Jupyter notebook.")
            .hint("edit Jupyter notebook cells (.ipynb)")
            .deferred()
            .arc(),
        DescribedTool::new("Read", "Reads a file from the local filesystem.").arc(),
        DescribedTool::new("Agent", "Launches a sub-agent for a task.")
            .alias("Task")
            .deferred()
            .arc(),
        DescribedTool::new(
            "mcp__slack__send_message",
            "Sends a message to a Slack channel.",
        )
        .hint("send a message to a slack channel")
        .arc(),
        DescribedTool::new(
            "mcp__slack__list_channels",
            "Lists the channels of the workspace.",
        )
        .arc(),
        DescribedTool::new("mcp__mail__send_email", "Sends an email message.")
            .hint("send an email")
            .arc(),
        DescribedTool::new("mcp__files__messages_archive", "Archives old messages.").arc(),
    ]
}
