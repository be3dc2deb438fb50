use tool_sdk::prelude::*;

/// Runs only when the `never-enabled` cfg is on; `#[cfg]` after `#[tool]`.
#[tool(name = "Gated", max_result_size_chars = 100)]
#[cfg(any())]
#[derive(Deserialize, JsonSchema)]
pub struct Gated {}

/// `#[cfg]` before `#[tool]` removes the item before the macro sees it.
#[cfg(any())]
#[tool(name = "GatedFirst", max_result_size_chars = 100)]
#[derive(Deserialize, JsonSchema)]
pub struct GatedFirst {}

/// A gated function-form tool.
#[tool(name = "GatedFn", max_result_size_chars = 100)]
#[cfg(any())]
async fn gated_fn() -> Result<String, ToolError> {
    Ok(String::new())
}

/// Collected only when the predicate says so.
#[tool(name = "Flagged", max_result_size_chars = 100, enabled_if = flagged_enabled)]
#[derive(Deserialize, JsonSchema)]
pub struct Flagged {}

#[tool]
impl Tool for Flagged {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(String::new()))
    }
}

fn flagged_enabled() -> bool {
    false
}

/// Asks permission every time; only in tests.
#[tool(name = "TestingPermission", read_only, max_result_size_chars = 100, test_only)]
#[derive(Deserialize, JsonSchema)]
pub struct TestingPermission {}

#[tool]
impl Tool for TestingPermission {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("ok".to_owned()))
    }
}

/// Added by the host on purpose.
#[tool(name = "OnPurpose", read_only, max_result_size_chars = 100, opt_in)]
#[derive(Deserialize, JsonSchema)]
pub struct OnPurpose {}

#[tool]
impl Tool for OnPurpose {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("ok".to_owned()))
    }
}

fn main() {
    let registrations: Vec<_> = tool_sdk::registration::registrations().collect();
    let mut names: Vec<_> = registrations.iter().map(|r| r.name).collect();
    names.sort_unstable();
    assert_eq!(names, ["Flagged", "OnPurpose", "TestingPermission"]);
    let on_purpose = registrations.iter().find(|r| r.name == "OnPurpose").unwrap();
    assert!(on_purpose.opt_in && !on_purpose.test_only);
    let flagged = registrations.iter().find(|r| r.name == "Flagged").unwrap();
    assert!(!flagged.is_registered(true));
    let testing = registrations.iter().find(|r| r.name == "TestingPermission").unwrap();
    assert!(testing.test_only && testing.is_registered(true) && !testing.is_registered(false));
}
