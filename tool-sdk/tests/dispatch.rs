//! `DynTool::dispatch`, the default result mapping and `ToolUseContext` as a host without an
//! orchestrator uses them.

use std::sync::Arc;

use futures::executor::block_on;
use serde_json::json;
use tool_sdk::context::ToolUseId;
use tool_sdk::prelude::*;
use tool_sdk::tool::default_map_result_owned;
use tool_sdk::{CancellationToken, Extensions, InputError, ToolCall, ToolOutput, dyn_tool};
// The JSON Schema engine, for the input schemas the built-in check does not read.
use tool_registry as _;

/// Echoes its text; refuses the text "no" in `validate_input`.
#[tool(
    name = "Echo",
    read_only,
    concurrency_safe,
    max_result_size_chars = 100_000
)]
#[derive(Deserialize, JsonSchema)]
struct Echo {
    /// What to echo.
    text: String,
}

#[tool]
impl Tool for Echo {
    type Output = String;

    async fn validate_input(&self, _ctx: &ToolUseContext) -> ValidationResult {
        if self.text == "no" {
            return ValidationResult::invalid("`text` must not be \"no\": say something else");
        }
        ValidationResult::Ok
    }

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(format!(
            "{} ({})",
            self.text,
            ctx.tool_use_id()
        )))
    }
}

fn text(output: &ToolOutput) -> &str {
    match &output.content {
        ToolResultContent::Text(text) => text,
        other => panic!("expected text, got {other:?}"),
    }
}

fn dispatch(input: serde_json::Value) -> Result<Result<ToolOutput, ToolError>, InputError> {
    let tool = dyn_tool::<Echo>();
    let ctx = ToolUseContext::detached("toolu_01");
    let future = tool.dispatch(&input, &ctx)?;
    Ok(block_on(future))
}

#[test]
fn dispatch_parses_checks_and_calls() {
    let output = dispatch(json!({"text": "hi"})).unwrap().unwrap();
    assert_eq!(text(&output), "hi (toolu_01)");
}

#[test]
fn dispatch_reports_bad_input_before_any_call() {
    let error = dispatch(json!({"text": 1, "extra": true})).err().unwrap();
    assert_eq!(
        error.to_string(),
        "Parameter `extra` is not part of the input schema (accepted: `text`)\n\
         Parameter `text` must be of type `string`, but a value of type `number` was provided"
    );
}

#[test]
fn dispatch_runs_validate_input() {
    let error = dispatch(json!({"text": "no"})).unwrap().unwrap_err();
    assert_eq!(
        error.message(),
        "`text` must not be \"no\": say something else"
    );
}

#[test]
fn dispatch_gives_what_parse_input_then_call_gives() {
    let tool = dyn_tool::<Echo>();
    for input in [json!({"text": "a"}), json!({"text": ""}), json!({})] {
        let two_step = tool
            .parse_input(&input)
            .map(|call: Box<dyn ToolCall>| block_on(call.call(&ToolUseContext::detached("t"))));
        let fused = tool
            .dispatch(&input, &ToolUseContext::detached("t"))
            .map(block_on);
        match (two_step, fused) {
            (Ok(a), Ok(b)) => assert_eq!(text(&a.unwrap()), text(&b.unwrap())),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!("{input}: {:?} against {:?}", a.is_ok(), b.is_ok()),
        }
    }
}

#[test]
fn the_default_mapping_moves_strings_and_serialises_the_rest() {
    let text = String::from("as it is");
    let pointer = text.as_ptr();
    match default_map_result_owned(text) {
        ToolResultContent::Text(mapped) => {
            assert_eq!(mapped, "as it is");
            assert_eq!(mapped.as_ptr(), pointer, "the string was copied");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        default_map_result_owned(vec![1, 2]),
        ToolResultContent::Text("[1,2]".into())
    );
    assert_eq!(
        default_map_result_owned("borrowed"),
        ToolResultContent::Text("borrowed".into())
    );
    assert_eq!(
        default_map_result_owned(json!({"a": "b"})),
        ToolResultContent::Text(r#"{"a":"b"}"#.into())
    );
}

#[test]
fn tool_use_ids_short_and_long() {
    let short = ToolUseId::from("toolu_01A09q90qw90lq917835lq9X");
    assert_eq!(short.len(), ToolUseId::INLINE_BYTES);
    assert_eq!(&*short, "toolu_01A09q90qw90lq917835lq9X");
    let long_text = "fc_67ca09c6bedc8190a7abfec07b1a1332096610f474011cc0";
    let long = ToolUseId::from(long_text.to_owned());
    assert_eq!(long.as_str(), long_text);
    let shared: Arc<str> = Arc::from("toolu_shared");
    let kept = ToolUseId::from(Arc::clone(&shared));
    assert!(
        Arc::ptr_eq(&kept.to_arc(), &shared),
        "an Arc<str> id is kept"
    );
    assert_eq!(
        format!("{short} {short:?}"),
        format!("{0} \"{0}\"", short.as_str())
    );
    let multibyte = "toolu_é€😀";
    assert_eq!(ToolUseId::from(multibyte).as_str(), multibyte);
    let boxed: Box<str> = "toolu_boxed".into();
    assert_eq!(ToolUseId::from(boxed), "toolu_boxed");
    let cow = std::borrow::Cow::Borrowed("toolu_cow");
    assert_eq!(ToolUseId::from(cow), *"toolu_cow");
    assert_eq!(ToolUseId::from("a"), ToolUseId::from(Arc::<str>::from("a")));
}

#[test]
fn a_detached_context_has_no_state_and_its_own_token() {
    let ctx = ToolUseContext::detached("toolu_1");
    assert!(ctx.extensions().is_empty());
    assert!(!ctx.is_aborted());
    let copy = ctx.clone();
    copy.abort().cancel();
    assert!(ctx.is_aborted(), "a clone shares the token");
    assert!(!ToolUseContext::detached("toolu_2").is_aborted());
}

#[test]
fn a_hosted_context_sees_the_host_token_and_state() {
    let token = CancellationToken::new();
    let ctx = ToolUseContext::new(
        String::from("toolu_1"),
        token.child_token(),
        Arc::new(Extensions::new().with(7_u32)),
    );
    assert_eq!(ctx.get::<u32>(), Some(&7));
    token.cancel();
    assert!(ctx.is_aborted());
    assert_eq!(ctx.tool_use_id(), "toolu_1");
}

/// The numbers to add.
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

/// Adds two numbers; refuses to add past `i64::MAX` with a `String` error.
#[tool(
    name = "Add",
    read_only,
    concurrency_safe,
    max_result_size_chars = 1_000
)]
async fn add(input: AddArgs, ctx: &ToolUseContext) -> Result<i64, String> {
    let _ = ctx.tool_use_id();
    input
        .a
        .checked_add(input.b)
        .ok_or_else(|| format!("{} + {} does not fit in 64 bits", input.a, input.b))
}

/// Lists its two numbers, through an `io::Result` of a `ToolResult`.
#[tool(name = "Pair", max_result_size_chars = 1_000)]
async fn pair(input: AddArgs) -> std::io::Result<ToolResult<Vec<i64>>> {
    if input.a < 0 {
        return Err(std::io::Error::other("`a` must not be negative"));
    }
    Ok(ToolResult::new(vec![input.a, input.b]))
}

#[test]
fn a_function_form_tool_runs_the_same_through_dispatch_and_through_call() {
    let ctx = ToolUseContext::detached("toolu_fn");
    // The erased runner (the function's future in one `poll`).
    let tool = dyn_tool::<add>();
    let output = block_on(tool.dispatch(&json!({"a": 2, "b": 3}), &ctx).unwrap()).unwrap();
    assert_eq!(text(&output), "5");
    let error = block_on(
        tool.dispatch(&json!({"a": i64::MAX, "b": 1}), &ctx)
            .unwrap(),
    )
    .unwrap_err();
    assert_eq!(
        error.message(),
        format!("{} + 1 does not fit in 64 bits", i64::MAX)
    );
    // `Tool::call` on the parsed tool type: the function's own result, mapped.
    let call = tool.parse_input(&json!({"a": 4, "b": 5})).unwrap();
    assert_eq!(text(&block_on(call.call(&ctx)).unwrap()), "9");
    let parsed: ToolResult<i64> = block_on(Tool::call(
        <add as tool_sdk::ToolInput>::__deserialize(json!({"a": 1, "b": 1})).unwrap(),
        &ctx,
    ))
    .unwrap();
    assert_eq!(parsed.data, 2);

    let pair_tool = dyn_tool::<pair>();
    let output = block_on(pair_tool.dispatch(&json!({"a": 1, "b": 7}), &ctx).unwrap()).unwrap();
    assert_eq!(text(&output), "[1,7]");
    let error = block_on(pair_tool.dispatch(&json!({"a": -1, "b": 7}), &ctx).unwrap()).unwrap_err();
    assert_eq!(error.message(), "`a` must not be negative");
}
