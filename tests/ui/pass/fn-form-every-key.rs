// Every key the attribute takes, on an `async fn`, on a struct, and on a struct with a flag
// decided per input: the three tools have the same facts. The first two write them as one
// `Facts` constant (read by the SDK's one `ToolSpec` impl), the third as `ToolSpec` constants
// of its own, all from one list in the macro; each fact is also checked against the value
// declared, so a mapping that swaps two facts fails here.
use tool_sdk::prelude::*;
use tool_sdk::callers::Callers;
use tool_sdk::tool::{DeclaredFlag, TaskSupport};

/// The input.
#[derive(Deserialize, JsonSchema)]
pub struct Args {
    /// A.
    pub a: i64,
}

// One list of keys for both forms, passed through a `macro_rules!` as `#[tool]` often is.
macro_rules! every_key {
    ($($key:tt)*) => {
        /// Does it.
        #[tool(name = "StructAll", destructive = true, $($key)*)]
        #[derive(Deserialize, JsonSchema)]
        pub struct StructAll {
            /// A.
            pub a: i64,
        }

        #[tool]
        impl Tool for StructAll {
            type Output = i64;
            async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<i64>, ToolError> {
                Ok(ToolResult::new(self.a))
            }
        }

        /// Does it.
        #[tool(name = "StructPerInput", destructive = Self::writes, $($key)*)]
        #[derive(Deserialize, JsonSchema)]
        pub struct StructPerInput {
            /// A.
            pub a: i64,
        }

        impl StructPerInput {
            fn writes(&self) -> bool {
                self.a > 0
            }
        }

        #[tool]
        impl Tool for StructPerInput {
            type Output = i64;
            async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<i64>, ToolError> {
                Ok(ToolResult::new(self.a))
            }
        }

        /// Does it.
        #[tool(name = "FnAll", destructive = true, $($key)*)]
        async fn fn_all(input: Args) -> Result<i64, ToolError> {
            Ok(input.a)
        }
    };
}

every_key! {
    aliases = ["SA", "sa2"],
    search_hint = "do the thing now",
    read_only = false,
    concurrency_safe,
    max_result_size_chars = 1234,
    should_defer,
    strict,
    open_world = false,
    idempotent,
    title = "Every key",
    task = "optional",
    scopes = "a:read b:write",
    callers = ["direct", "programmatic"],
    example = r#"{"a": 1}"#,
    example = r#"{"a": 2}"#,
    examples_in_description
}

/// The rest.
#[tool(name = "FnOther", always_load, read_only, task = "required", max_result_size_chars = unbounded)]
async fn fn_other(_ctx: &ToolUseContext) -> Result<String, ToolError> {
    Ok("x".into())
}

/// The rest.
#[tool(name = "StructOther", always_load, read_only, task = "required", max_result_size_chars = unbounded)]
#[derive(Deserialize, JsonSchema)]
pub struct StructOther {}

#[tool]
impl Tool for StructOther {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("x".to_owned()))
    }
}

/// Nothing optional.
#[tool(name = "FnMin", max_result_size_chars = 1)]
async fn fn_min() -> Result<String, ToolError> {
    Ok("x".into())
}

/// Nothing optional.
#[tool(name = "StructMin", max_result_size_chars = 1)]
#[derive(Deserialize, JsonSchema)]
pub struct StructMin {}

#[tool]
impl Tool for StructMin {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("x".to_owned()))
    }
}

macro_rules! same_facts {
    ($a:ty, $b:ty) => {{
        assert_eq!(<$a as ToolSpec>::ALIASES, <$b as ToolSpec>::ALIASES);
        assert_eq!(<$a as ToolSpec>::DESCRIPTION, <$b as ToolSpec>::DESCRIPTION);
        assert_eq!(<$a as ToolSpec>::SEARCH_HINT, <$b as ToolSpec>::SEARCH_HINT);
        assert_eq!(<$a as ToolSpec>::MAX_RESULT_SIZE_CHARS, <$b as ToolSpec>::MAX_RESULT_SIZE_CHARS);
        assert_eq!(<$a as ToolSpec>::SHOULD_DEFER, <$b as ToolSpec>::SHOULD_DEFER);
        assert_eq!(<$a as ToolSpec>::ALWAYS_LOAD, <$b as ToolSpec>::ALWAYS_LOAD);
        assert_eq!(<$a as ToolSpec>::READ_ONLY, <$b as ToolSpec>::READ_ONLY);
        assert_eq!(<$a as ToolSpec>::CONCURRENCY_SAFE, <$b as ToolSpec>::CONCURRENCY_SAFE);
        assert_eq!(<$a as ToolSpec>::OPEN_WORLD, <$b as ToolSpec>::OPEN_WORLD);
        assert_eq!(<$a as ToolSpec>::IDEMPOTENT, <$b as ToolSpec>::IDEMPOTENT);
        assert_eq!(<$a as ToolSpec>::TITLE, <$b as ToolSpec>::TITLE);
        assert_eq!(<$a as ToolSpec>::TASK, <$b as ToolSpec>::TASK);
        assert_eq!(<$a as ToolSpec>::SCOPES, <$b as ToolSpec>::SCOPES);
        assert_eq!(<$a as ToolSpec>::CALLERS, <$b as ToolSpec>::CALLERS);
        assert_eq!(<$a as ToolSpec>::EXAMPLES, <$b as ToolSpec>::EXAMPLES);
        assert_eq!(<$a as ToolSpec>::EXAMPLES_IN_DESCRIPTION, <$b as ToolSpec>::EXAMPLES_IN_DESCRIPTION);
        assert_eq!(<$a as ToolSpec>::STRICT, <$b as ToolSpec>::STRICT);
    }};
}

fn main() {
    same_facts!(fn_all, StructAll);
    same_facts!(fn_all, StructPerInput);
    assert_eq!(<fn_all as ToolSpec>::DESTRUCTIVE, <StructAll as ToolSpec>::DESTRUCTIVE);
    assert_eq!(<StructPerInput as ToolSpec>::DESTRUCTIVE, DeclaredFlag::PerInput);
    assert!(StructPerInput { a: 1 }.is_destructive() && !StructPerInput { a: 0 }.is_destructive());
    same_facts!(fn_other, StructOther);
    same_facts!(fn_min, StructMin);
    assert_eq!(<fn_all as ToolSpec>::NAME, "FnAll");
    assert_eq!(<fn_all as ToolSpec>::ALIASES, ["SA", "sa2"]);
    assert_eq!(<fn_all as ToolSpec>::SCOPES, ["a:read", "b:write"]);
    assert_eq!(<fn_all as ToolSpec>::TASK, TaskSupport::Optional);
    assert_eq!(<fn_all as ToolSpec>::DESTRUCTIVE, DeclaredFlag::Always);
    assert_eq!(<fn_all as ToolSpec>::READ_ONLY, DeclaredFlag::Never);
    assert_eq!(<fn_all as ToolSpec>::DESCRIPTION, "Does it.");
    assert_eq!(<fn_all as ToolSpec>::SEARCH_HINT, Some("do the thing now"));
    assert_eq!(<fn_all as ToolSpec>::MAX_RESULT_SIZE_CHARS, MaxResultSize::Chars(1234));
    assert!(<fn_all as ToolSpec>::SHOULD_DEFER && !<fn_all as ToolSpec>::ALWAYS_LOAD);
    assert!(<fn_all as ToolSpec>::STRICT);
    assert_eq!(<fn_all as ToolSpec>::CONCURRENCY_SAFE, DeclaredFlag::Always);
    assert_eq!(<fn_all as ToolSpec>::OPEN_WORLD, DeclaredFlag::Never);
    assert_eq!(<fn_all as ToolSpec>::IDEMPOTENT, DeclaredFlag::Always);
    assert_eq!(<fn_all as ToolSpec>::TITLE, Some("Every key"));
    assert_eq!(<fn_all as ToolSpec>::CALLERS, Callers::DirectAndProgrammatic);
    assert_eq!(<fn_all as ToolSpec>::EXAMPLES, [r#"{"a": 1}"#, r#"{"a": 2}"#]);
    assert!(<fn_all as ToolSpec>::EXAMPLES_IN_DESCRIPTION);
    assert_eq!(<fn_other as ToolSpec>::MAX_RESULT_SIZE_CHARS, MaxResultSize::Unbounded);
    assert!(<fn_other as ToolSpec>::ALWAYS_LOAD);
    assert_eq!(<fn_other as ToolSpec>::TASK, TaskSupport::Required);
    assert_eq!(<fn_min as ToolSpec>::READ_ONLY, DeclaredFlag::Default);
}
