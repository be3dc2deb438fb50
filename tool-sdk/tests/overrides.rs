//! What `#[tool]` on `impl Tool for X` reads of the block changes what a tool compiles to,
//! never what it answers: a tool whose block the attribute reads (only the hooks it overrides
//! are compiled, the rest answered by the erased layer's defaults) and its twin whose block
//! holds a macro call (so every hook counts as overridden and the trait's own defaults answer)
//! give the same answer to every hook, whether the hook is overridden or left to its default.
//! The defaults of both come from the one hook table (`tool_sdk`'s `hooks.rs`).

use std::borrow::Cow;
use std::path::Path;

use serde_json::{Value, json};
use tool_sdk::TypedTool;
use tool_sdk::prelude::*;
use tool_sdk::tool::{InterruptBehavior, SearchOrRead};

/// Expands to no item: a macro call among an impl block's items, which makes `#[tool]` count
/// every hook as overridden.
macro_rules! no_items {
    () => {};
}

/// Two tools that override the same hooks: `$with`, whose block `#[tool]` reads, and
/// `$without`, whose block holds a macro call, so every hook of it is compiled.
macro_rules! twins {
    ($with:ident, $without:ident, $name_with:literal, $name_without:literal, { $($hooks:tt)* }) => {
        /// Writes a note, or reads one back.
        #[tool(
            name = $name_with,
            max_result_size_chars = 1_000,
            read_only = Self::reads,
            concurrency_safe,
            open_world = false
        )]
        #[derive(Deserialize, JsonSchema)]
        struct $with {
            /// The note's path.
            path: String,
            /// What to do: `read` or `write`.
            action: String,
        }

        impl $with {
            fn reads(&self) -> bool {
                self.action == "read"
            }
        }

        #[tool]
        impl Tool for $with {
            type Output = Vec<String>;
            async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<Vec<String>>, ToolError> {
                Ok(ToolResult::new(vec![self.path, self.action]))
            }
            $($hooks)*
        }

        /// Writes a note, or reads one back.
        #[tool(
            name = $name_without,
            max_result_size_chars = 1_000,
            read_only = Self::reads,
            concurrency_safe,
            open_world = false
        )]
        #[derive(Deserialize, JsonSchema)]
        struct $without {
            /// The note's path.
            path: String,
            /// What to do: `read` or `write`.
            action: String,
        }

        impl $without {
            fn reads(&self) -> bool {
                self.action == "read"
            }
        }

        #[tool]
        impl Tool for $without {
            no_items!();
            type Output = Vec<String>;
            async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<Vec<String>>, ToolError> {
                Ok(ToolResult::new(vec![self.path, self.action]))
            }
            $($hooks)*
        }
    };
}

twins!(Bare, BareEvery, "Bare", "BareEvery", {});

twins!(Mapped, MappedEvery, "Mapped", "MappedEvery", {
    fn map_result(output: Vec<String>, tool_use_id: &str) -> ToolResultContent {
        ToolResultContent::Text(format!("{tool_use_id}: {}", output.join(" ")))
    }
});

twins!(Hooked, HookedEvery, "Hooked", "HookedEvery", {
    async fn validate_input(&self, _ctx: &ToolUseContext) -> ValidationResult {
        if self.path.is_empty() {
            ValidationResult::invalid("the path is empty")
        } else {
            ValidationResult::Ok
        }
    }
    fn map_result(output: Vec<String>, tool_use_id: &str) -> ToolResultContent {
        ToolResultContent::Text(format!("{tool_use_id}: {}", output.join(" ")))
    }
    fn prompt() -> Cow<'static, str> {
        Cow::Borrowed("Notes.")
    }
    fn is_enabled() -> bool {
        false
    }
    fn output_schema() -> Option<Value> {
        Some(json!({"type": "array"}))
    }
    fn user_facing_name(&self) -> Cow<'_, str> {
        Cow::Owned(format!("Note {}", self.path))
    }
    fn description(&self) -> Cow<'_, str> {
        Cow::Owned(format!("{} {}", self.action, self.path))
    }
    fn inputs_equivalent(&self, other: &Self) -> bool {
        self.path == other.path
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }
    fn is_open_world(&self) -> bool {
        self.path.starts_with("http")
    }
    fn requires_user_interaction(&self) -> bool {
        true
    }
    fn is_search_or_read_command(&self) -> SearchOrRead {
        SearchOrRead {
            is_search: false,
            is_read: self.reads(),
        }
    }
    fn get_path(&self) -> Option<&Path> {
        Some(Path::new(&self.path))
    }
    fn backfill_observable_input(&self, input: &mut Value) {
        input["reads"] = json!(self.reads());
    }
    fn to_auto_classifier_input(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.path)
    }
    async fn check_permissions(&self, _ctx: &ToolUseContext) -> PermissionResult {
        if self.reads() {
            PermissionResult::allow()
        } else {
            PermissionResult::Ask {
                message: format!("write {}?", self.path),
            }
        }
    }
    fn prepare_permission_matcher(&self) -> Option<tool_sdk::PermissionMatcher> {
        let path = self.path.clone();
        Some(tool_sdk::PermissionMatcher::new(move |rule| {
            path.starts_with(rule)
        }))
    }
    fn render_tool_use_message(&self, input: &Value) -> String {
        format!("use {input}")
    }
    fn render_tool_use_progress_message(&self, progress: &str) -> String {
        format!("progress {progress}")
    }
    fn render_tool_result_message(&self, content: &ToolResultContent) -> String {
        format!("result {}", content.text())
    }
    fn render_tool_use_rejected_message(&self) -> String {
        "rejected".to_owned()
    }
    fn render_tool_use_error_message(&self, error: &ToolError) -> String {
        format!("error {}", error.to_model_text())
    }
});

/// The answers of one parsed call to every per-call hook, as lines: the same method names
/// whether `$call` is a `ToolCall` or the tool type itself. `$other` is a second call of the
/// same input, for `inputs_equivalent`.
macro_rules! per_call_answers {
    ($call:expr, $other:expr, $input:expr) => {{
        let call = &$call;
        let input: &Value = &$input;
        let mut observed = input.clone();
        call.backfill_observable_input(&mut observed);
        let error = ToolError::new("it broke");
        let content = ToolResultContent::Text("a\nb".into());
        [
            format!("read-only {}", call.is_read_only()),
            format!("concurrency-safe {}", call.is_concurrency_safe()),
            format!("destructive {}", call.is_destructive()),
            format!("user-facing name {}", call.user_facing_name()),
            format!("description {}", call.description()),
            format!("equivalent {}", call.inputs_equivalent($other)),
            format!("interrupt {:?}", call.interrupt_behavior()),
            format!("open world {}", call.is_open_world()),
            format!("user interaction {}", call.requires_user_interaction()),
            format!("search or read {:?}", call.is_search_or_read_command()),
            format!("path {:?}", call.get_path()),
            format!("observed {observed}"),
            format!(
                "matcher {}",
                matcher_answers(call.prepare_permission_matcher())
            ),
            format!("classifier {}", call.to_auto_classifier_input()),
            format!("render use {}", call.render_tool_use_message(input)),
            format!(
                "render progress {}",
                call.render_tool_use_progress_message("half")
            ),
            format!(
                "render result {}",
                call.render_tool_result_message(&content)
            ),
            format!(
                "render rejected {}",
                call.render_tool_use_rejected_message()
            ),
            format!(
                "render error {}",
                call.render_tool_use_error_message(&error)
            ),
        ]
    }};
}

/// Every answer a registry and an orchestrator read from a tool and one parsed call of it,
/// as text, with the tool's name taken out.
async fn answers(tool: &TypedTool, input: Value) -> Vec<String> {
    let name = tool.name().to_owned();
    let mut out = vec![
        format!("prompt {}", tool.prompt()),
        format!("enabled {}", tool.is_enabled()),
        format!("output schema {:?}", tool.output_schema()),
    ];
    match tool.parse_input(&input) {
        Err(error) => out.push(format!("parse error {error}")),
        Ok(call) => {
            let other = tool.parse_input(&input).unwrap();
            out.extend(per_call_answers!(call, &*other, input));
            let ctx = ToolUseContext::detached("toolu_1");
            out.push(format!("validate {:?}", call.validate_input(&ctx).await));
            out.push(format!(
                "permissions {:?}",
                call.check_permissions(&ctx).await
            ));
            let output = call.call(&ctx).await.map(|output| output.content);
            out.push(format!("call {output:?}"));
        }
    }
    let ctx = ToolUseContext::detached("toolu_2");
    let dispatched = match tool.dispatch(&input, &ctx) {
        Ok(future) => format!("{:?}", future.await.map(|output| output.content)),
        Err(error) => format!("parse error {error}"),
    };
    out.push(format!("dispatch {dispatched}"));
    out.into_iter()
        .map(|line| line.replace(&name, "NAME"))
        .collect()
}

/// What a permission matcher says of a few rule contents, or `none`.
fn matcher_answers(matcher: Option<tool_sdk::PermissionMatcher>) -> String {
    matcher.map_or_else(
        || "none".to_owned(),
        |matcher| {
            format!(
                "{:?}",
                ["notes", "http", ""].map(|rule| matcher.matches(rule))
            )
        },
    )
}

/// The answers [`answers`] reads, asked of `T`'s own methods (the trait's defaults where `T`
/// does not override them), for an input that parses.
async fn direct<T: Tool + serde::de::DeserializeOwned>(input: Value) -> Vec<String> {
    let call: T = serde_json::from_value(input.clone()).unwrap();
    let other: T = serde_json::from_value(input.clone()).unwrap();
    let mut out = vec![
        format!("prompt {}", T::prompt()),
        format!("enabled {}", T::is_enabled()),
        format!("output schema {:?}", T::output_schema().as_ref()),
    ];
    out.extend(per_call_answers!(call, &other, input));
    let ctx = ToolUseContext::detached("toolu_1");
    let validation = call.validate_input(&ctx).await;
    out.push(format!("validate {validation:?}"));
    out.push(format!(
        "permissions {:?}",
        call.check_permissions(&ctx).await
    ));
    let run = |call: T, id: &'static str| async move {
        let ctx = ToolUseContext::detached(id);
        call.call(&ctx)
            .await
            .map(|result| T::map_result(result.data, id))
    };
    out.push(format!("call {:?}", run(call, "toolu_1").await));
    let dispatched = match validation {
        ValidationResult::Invalid { message, .. } => Err(ToolError::new(message)),
        ValidationResult::Ok => run(other, "toolu_2").await,
    };
    out.push(format!("dispatch {dispatched:?}"));
    out
}

/// `T`'s erased answers are its own: every hook, overridden or left to its default.
async fn assert_answers_are_its_own<T: Tool + serde::de::DeserializeOwned>(inputs: &[Value]) {
    let tool = TypedTool::of::<T>(None);
    for input in inputs {
        let erased = answers(&tool, input.clone()).await;
        let own: Vec<String> = direct::<T>(input.clone())
            .await
            .into_iter()
            .map(|line| line.replace(T::NAME, "NAME"))
            .collect();
        assert_eq!(erased, own, "{} on {input}", T::NAME);
    }
}

/// Every way a flag can be declared, with the attribute on the impl.
#[tool(
    name = "Flags",
    max_result_size_chars = 1_000,
    read_only,
    concurrency_safe = false,
    destructive = Self::deletes,
    open_world = true,
    idempotent
)]
#[derive(Deserialize, JsonSchema)]
struct Flags {
    /// What to do.
    action: String,
}

impl Flags {
    fn deletes(&self) -> bool {
        self.action == "delete"
    }
}

#[tool]
impl Tool for Flags {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.action))
    }
}

/// No flag declared: every fail-closed default, `open_world` included.
#[tool(name = "Undeclared", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
struct Undeclared {
    /// What to do.
    action: String,
}

#[tool]
impl Tool for Undeclared {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.action))
    }
}

/// A hand-written `ToolSpec` (no `#[tool]` on the struct): where a flag's constant says one
/// thing and its method another, the method is what a call answers; a method left to its
/// default answers what the constant declares.
#[derive(Deserialize, JsonSchema)]
struct HandSpec {
    /// What to do.
    action: String,
}

impl ToolSpec for HandSpec {
    const NAME: &'static str = "HandSpec";
    const DESCRIPTION: &'static str = "Written by hand.";
    const MAX_RESULT_SIZE_CHARS: MaxResultSize = MaxResultSize::Chars(1_000);
    const READ_ONLY: tool_sdk::DeclaredFlag = tool_sdk::DeclaredFlag::Always;
    const CONCURRENCY_SAFE: tool_sdk::DeclaredFlag = tool_sdk::DeclaredFlag::Always;
    fn is_read_only(&self) -> bool {
        false
    }
    fn is_destructive(&self) -> bool {
        self.action == "delete"
    }
}

#[tool]
impl Tool for HandSpec {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.action))
    }
}

#[tokio::test]
async fn every_answer_is_the_tools_own_whatever_it_overrides() {
    let notes = [
        json!({"path": "notes/a.md", "action": "read"}),
        json!({"path": "http://example.com", "action": "write"}),
        json!({"path": "", "action": "write"}),
    ];
    assert_answers_are_its_own::<Bare>(&notes).await;
    assert_answers_are_its_own::<BareEvery>(&notes).await;
    assert_answers_are_its_own::<Hooked>(&notes).await;
    assert_answers_are_its_own::<HookedEvery>(&notes).await;
    let actions = [json!({"action": "delete"}), json!({"action": "list"})];
    assert_answers_are_its_own::<Flags>(&actions).await;
    assert_answers_are_its_own::<Undeclared>(&actions).await;
    assert_answers_are_its_own::<HandSpec>(&actions).await;
    // The reference answers are what the declarations say.
    let flags = answers(&TypedTool::of::<Flags>(None), actions[0].clone()).await;
    for line in [
        "read-only true",
        "concurrency-safe false",
        "destructive true",
        "open world true",
    ] {
        assert!(flags.contains(&line.to_owned()), "{line}: {flags:?}");
    }
    let undeclared = answers(&TypedTool::of::<Undeclared>(None), actions[0].clone()).await;
    for line in [
        "read-only false",
        "concurrency-safe false",
        "destructive false",
        "open world true",
    ] {
        assert!(
            undeclared.contains(&line.to_owned()),
            "{line}: {undeclared:?}"
        );
    }
    let hand = answers(&TypedTool::of::<HandSpec>(None), actions[0].clone()).await;
    for line in [
        "read-only false",
        "concurrency-safe true",
        "destructive true",
    ] {
        assert!(hand.contains(&line.to_owned()), "{line}: {hand:?}");
    }
}

/// Checks that the twin `With` (the attribute on its impl) answers every probe input as
/// `Without` does, then gives `With`'s answers for `input`.
async fn same_twins_then_answers<With: Tool, Without: Tool>(input: Value) -> Vec<String> {
    let (with, without) = (TypedTool::of::<With>(None), TypedTool::of::<Without>(None));
    for input in [
        json!({"path": "notes/a.md", "action": "read"}),
        json!({"path": "http://example.com", "action": "write"}),
        json!({"path": "", "action": "write"}),
        json!({"path": 3}),
    ] {
        assert_eq!(
            answers(&with, input.clone()).await,
            answers(&without, input).await
        );
    }
    answers(&with, input).await
}

#[tokio::test]
async fn a_tool_without_hooks_answers_the_same_with_the_attribute_on_its_impl() {
    // `same_twins_then_answers` runs calls through both runners (`ToolImpl::__run`).
    let answers =
        same_twins_then_answers::<Bare, BareEvery>(json!({"path": "notes/a.md", "action": "read"}))
            .await;
    assert!(
        answers.contains(&"read-only true".to_owned()),
        "{answers:?}"
    );
    assert!(
        answers.contains(&"open world false".to_owned()),
        "{answers:?}"
    );
}

#[tokio::test]
async fn a_tool_with_every_hook_answers_the_same_with_the_attribute_on_its_impl() {
    let answers =
        same_twins_then_answers::<Hooked, HookedEvery>(json!({"path": "", "action": "write"}))
            .await;
    // The overrides are what answered, not the defaults.
    assert!(answers.contains(&"prompt Notes.".to_owned()), "{answers:?}");
    assert!(
        answers.contains(&"render rejected rejected".to_owned()),
        "{answers:?}"
    );
    assert!(
        answers.contains(&"user-facing name Note ".to_owned()),
        "{answers:?}"
    );
    assert!(
        answers
            .iter()
            .any(|line| line.starts_with("dispatch Err") && line.contains("the path is empty")),
        "{answers:?}"
    );
}

/// A tool that overrides `map_result` but not `validate_input` is dispatched through its own
/// runner (`ToolImpl::__run`, the call's future in `Finish`), which maps with the override.
#[tokio::test]
async fn an_overridden_map_result_maps_a_dispatch_without_validate_input() {
    let input = json!({"path": "a", "action": "read"});
    assert_answers_are_its_own::<Mapped>(std::slice::from_ref(&input)).await;
    let answers = same_twins_then_answers::<Mapped, MappedEvery>(input).await;
    for line in [
        r#"call Ok(Text("toolu_1: a read"))"#,
        r#"dispatch Ok(Text("toolu_2: a read"))"#,
    ] {
        assert!(answers.contains(&line.to_owned()), "{line}: {answers:?}");
    }
}
