//! [`TodoWrite`]: the session's todo list, kept in the host state through a context modifier.

use tool_sdk::prelude::*;

/// The confirmation the model gets after every update (the reference's structure: what
/// happened, a reminder to keep using the list, a nudge to go on).
pub const UPDATED_MESSAGE: &str = "The todo list has been updated. Keep using it to track \
                                   your progress, and go on with the current tasks if there \
                                   are any";

/// Where an item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on (one item at a time).
    InProgress,
    /// Done.
    Completed,
}

/// One item of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoItem {
    /// What to do, in the imperative ("Run the tests").
    #[schemars(length(min = 1))]
    pub content: String,
    /// Where the item stands.
    #[schemars(schema_with = "status_schema")]
    pub status: TodoStatus,
    /// The same task in the present continuous ("Running the tests"), shown while it runs.
    #[serde(rename = "activeForm")]
    #[schemars(length(min = 1))]
    pub active_form: String,
}

/// `status` as the model is shown it: a plain string enum (the variants' docs are for Rust
/// readers, not a `oneOf`).
fn status_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "string", "enum": ["pending", "in_progress", "completed"]})
}

/// The todo list in the host state ([`tool_sdk::Extensions`]): what the last TodoWrite set.
/// Empty once every item was completed, as the reference clears a finished list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TodoList(pub Vec<TodoItem>);

/// Creates and updates the structured todo list of the current session, to track progress
/// on multi-step tasks and show the user what is being done.
///
/// When to use it:
/// - A task needs three or more distinct steps, or the user gives several tasks at once.
/// - Mark an item in_progress BEFORE starting work on it (exactly one at a time), and
///   completed as soon as it is done; add follow-up items as they come up.
///
/// When not to use it: a single, trivial task, or a purely informational request.
///
/// Each call replaces the whole list. Every item has `content` (imperative: "Run tests"),
/// `activeForm` (present continuous: "Running tests") and `status` (pending, in_progress,
/// completed). A list whose items are all completed is cleared.
#[tool(
    name = "TodoWrite",
    search_hint = "manage the session task checklist",
    max_result_size_chars = 100_000
)]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct TodoWrite {
    /// The updated todo list
    pub todos: Vec<TodoItem>,
}

#[tool]
impl Tool for TodoWrite {
    type Output = String;

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let _ = ctx;
        for (index, item) in self.todos.iter().enumerate() {
            if item.content.trim().is_empty() {
                return Err(ToolError::new(format!(
                    "todos[{index}].content is empty: give each item a short imperative text."
                )));
            }
            if item.active_form.trim().is_empty() {
                return Err(ToolError::new(format!(
                    "todos[{index}].activeForm is empty: give each item its present \
                     continuous form (\"Running the tests\")."
                )));
            }
        }
        let finished = self
            .todos
            .iter()
            .all(|item| item.status == TodoStatus::Completed);
        let kept = if finished { Vec::new() } else { self.todos };
        Ok(ToolResult::new(UPDATED_MESSAGE.to_owned())
            .with_context_modifier(move |extensions| extensions.insert(TodoList(kept))))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;
    use tool_sdk::{CancellationToken, DynTool, Extensions, ToolUseContext, TypedTool};

    use super::*;

    async fn run(input: serde_json::Value, extensions: &mut Extensions) -> Result<String, String> {
        let tool = TypedTool::of::<TodoWrite>(None);
        let call = tool
            .parse_input(&input)
            .map_err(|error| error.format_for("TodoWrite"))?;
        let ctx = ToolUseContext::new(
            "toolu_todo",
            CancellationToken::new(),
            Arc::new(extensions.clone()),
        );
        let output = call.call(&ctx).await.map_err(|e| e.to_model_text())?;
        if let Some(modifier) = output.context_modifier {
            modifier.apply(extensions);
        }
        Ok(output.content.text())
    }

    #[tokio::test]
    async fn the_list_lives_in_the_host_state_and_is_cleared_when_done() {
        let mut extensions = Extensions::new();
        let input = json!({"todos": [
            {"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"},
            {"content": "Fix the lints", "status": "pending", "activeForm": "Fixing the lints"}
        ]});
        let text = run(input, &mut extensions).await.unwrap();
        assert_eq!(text, UPDATED_MESSAGE);
        let list = extensions.get::<TodoList>().unwrap();
        assert_eq!(list.0.len(), 2);
        assert_eq!(list.0[0].status, TodoStatus::InProgress);
        assert_eq!(list.0[1].active_form, "Fixing the lints");
        let done = json!({"todos": [
            {"content": "Run the tests", "status": "completed", "activeForm": "Running the tests"}
        ]});
        run(done, &mut extensions).await.unwrap();
        assert_eq!(extensions.get::<TodoList>().unwrap().0, []);
    }

    #[tokio::test]
    async fn bad_items_name_the_field() {
        let mut extensions = Extensions::new();
        let missing = json!({"todos": [{"content": "x", "status": "pending"}]});
        let error = run(missing, &mut extensions).await.unwrap_err();
        assert!(error.contains("activeForm"), "{error}");
        let empty = json!({"todos": [{"content": " ", "status": "pending", "activeForm": "x"}]});
        let error = run(empty, &mut extensions).await.unwrap_err();
        assert!(error.starts_with("todos[0].content is empty"), "{error}");
        assert!(extensions.get::<TodoList>().is_none());
    }
}
