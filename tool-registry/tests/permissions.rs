//! Permission rules (SPEC §6.1–§6.5) and the runtime permission pipeline, with exact values.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list};
use tool_registry::permissions::{
    AliasTable, CanUseTool, DecisionReason, HostAnswer, PermissionBehavior, PermissionDecision,
    PermissionMode, PermissionRequest, PermissionRule, PermissionRuleSource as Source,
    PermissionRuleValue, RuleProblemKind, ToolPermissionContext, decide_permission,
    filter_tools_by_deny_rules, parse_rule, tool_matches_rule, validate_rules,
};
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, PermissionMatcher, dyn_tool};

// ---------------------------------------------------------------- tools

/// Runs a shell command.
#[tool(name = "Bash", max_result_size_chars = 30_000, read_only = Self::reads)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Shell {
    /// The command.
    command: String,
}

impl Shell {
    fn reads(&self) -> bool {
        self.command.starts_with("ls")
    }
}

impl Tool for Shell {
    type Output = String;

    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(format!("ran {}", self.command)))
    }

    async fn check_permissions(&self, _ctx: &ToolUseContext) -> PermissionResult {
        if self.command.starts_with("ls") {
            PermissionResult::allow()
        } else if self.command.contains("rm -rf /") {
            PermissionResult::Deny {
                message: "Bash refuses to delete the root directory.".to_owned(),
            }
        } else if self.command == "rewrite" {
            PermissionResult::Allow {
                updated_input: Some(json!({"command": "ls -la"})),
            }
        } else {
            PermissionResult::Passthrough {
                message: format!("Run `{}`?", self.command),
            }
        }
    }

    /// `git *` covers commands starting with `git `; `npm:*` covers commands starting with
    /// `npm`; anything else must equal the command.
    fn prepare_permission_matcher(&self) -> Option<PermissionMatcher> {
        let command = self.command.clone();
        Some(PermissionMatcher::new(move |content| {
            if let Some(prefix) = content.strip_suffix(":*") {
                command.starts_with(prefix)
            } else if let Some(prefix) = content.strip_suffix('*') {
                command.starts_with(prefix)
            } else {
                command == content
            }
        }))
    }
}

/// Fetches a URL.
#[tool(name = "WebFetch", read_only, max_result_size_chars = 100_000)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Fetch {
    /// The URL.
    url: String,
}

impl Tool for Fetch {
    type Output = String;

    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.url))
    }

    async fn check_permissions(&self, _ctx: &ToolUseContext) -> PermissionResult {
        PermissionResult::Passthrough {
            message: String::new(),
        }
    }

    /// `domain:HOST` covers URLs on that host.
    fn prepare_permission_matcher(&self) -> Option<PermissionMatcher> {
        let host = self
            .url
            .split("://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_default()
            .to_owned();
        Some(PermissionMatcher::new(move |content| {
            content.strip_prefix("domain:") == Some(host.as_str())
        }))
    }
}

/// Asks the user a question.
#[tool(name = "AskUserQuestion", read_only, max_result_size_chars = 1_000)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Question {
    /// The question.
    question: String,
}

impl Tool for Question {
    type Output = String;

    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.question))
    }

    async fn check_permissions(&self, _ctx: &ToolUseContext) -> PermissionResult {
        PermissionResult::Ask {
            message: "Answer the question?".to_owned(),
        }
    }

    fn requires_user_interaction(&self) -> bool {
        true
    }
}

/// Writes a file.
#[tool(name = "Write", max_result_size_chars = 100_000)]
#[derive(Debug, Deserialize, JsonSchema)]
struct WriteFile {
    /// The file.
    file_path: std::path::PathBuf,
}

impl Tool for WriteFile {
    type Output = String;

    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("written".to_owned()))
    }

    async fn check_permissions(&self, _ctx: &ToolUseContext) -> PermissionResult {
        PermissionResult::Ask {
            message: format!("Write {}?", self.file_path.display()),
        }
    }

    fn get_path(&self) -> Option<&std::path::Path> {
        Some(&self.file_path)
    }
}

fn runtime_tool(definition: Value) -> Arc<dyn DynTool> {
    Arc::new(DynamicTool::from_json(&definition, ToolHandler::fixed_text("ok")).unwrap())
}

fn agent() -> Arc<dyn DynTool> {
    runtime_tool(json!({
        "name": "Agent", "description": "Runs a sub-agent.", "aliases": ["Task"],
        "input_schema": {"type": "object", "properties": {"prompt": {"type": "string"}}}
    }))
}

fn task_stop() -> Arc<dyn DynTool> {
    runtime_tool(json!({
        "name": "TaskStop", "description": "Stops a task.", "aliases": ["KillShell"],
        "input_schema": {"type": "object", "properties": {}}
    }))
}

fn mcp(server: &str, tool: &str, no_prefix: bool) -> Arc<dyn DynTool> {
    let list = json!({"tools": [{"name": tool, "inputSchema": {"type": "object"}}]});
    let options = McpImportOptions {
        no_prefix,
        handler: None,
    };
    mcp_tools_from_list(server, &list, &options)
        .unwrap()
        .remove(0)
}

fn aliases() -> AliasTable {
    AliasTable::from_tools(&[agent(), task_stop()])
}

fn rule(text: &str) -> PermissionRuleValue {
    parse_rule(text, &AliasTable::new())
}

// ---------------------------------------------------------------- §6.1 parsing

#[test]
fn plain_names_are_tool_wide_rules() {
    assert_eq!(rule("Bash"), PermissionRuleValue::tool("Bash"));
    assert_eq!(
        rule("mcp__github"),
        PermissionRuleValue::tool("mcp__github")
    );
}

#[test]
fn content_sits_between_the_first_unescaped_open_and_a_final_close() {
    assert_eq!(
        rule("Bash(git *)"),
        PermissionRuleValue::with_content("Bash", "git *")
    );
    assert_eq!(
        rule("Bash(npm:*)"),
        PermissionRuleValue::with_content("Bash", "npm:*")
    );
    assert_eq!(
        rule("WebFetch(domain:example.com)"),
        PermissionRuleValue::with_content("WebFetch", "domain:example.com")
    );
    assert_eq!(
        rule("Bash(a(b)c)"),
        PermissionRuleValue::with_content("Bash", "a(b)c")
    );
    assert_eq!(
        rule("Bash(x))"),
        PermissionRuleValue::with_content("Bash", "x)")
    );
}

#[test]
fn malformed_parentheses_make_the_whole_string_the_name() {
    assert_eq!(rule("Bash(foo) "), PermissionRuleValue::tool("Bash(foo) "));
    assert_eq!(rule("Bash(foo"), PermissionRuleValue::tool("Bash(foo"));
    assert_eq!(rule("Bash)("), PermissionRuleValue::tool("Bash)("));
    assert_eq!(rule("(foo)"), PermissionRuleValue::tool("(foo)"));
    assert_eq!(
        rule("Bash(foo)bar"),
        PermissionRuleValue::tool("Bash(foo)bar")
    );
    // An escaped `(` does not open content.
    assert_eq!(
        rule(r"Bash\(foo)"),
        PermissionRuleValue::tool(r"Bash\(foo)")
    );
    // An escaped final `)` does not close it.
    assert_eq!(
        rule(r"Bash(foo\)"),
        PermissionRuleValue::tool(r"Bash(foo\)")
    );
}

#[test]
fn empty_and_star_content_are_tool_wide() {
    assert_eq!(rule("Bash()"), PermissionRuleValue::tool("Bash"));
    assert_eq!(rule("Bash(*)"), PermissionRuleValue::tool("Bash"));
    assert_eq!(rule("mcp__s(*)"), PermissionRuleValue::tool("mcp__s"));
    assert_eq!(
        rule("Bash(**)"),
        PermissionRuleValue::with_content("Bash", "**")
    );
}

#[test]
fn content_is_unescaped_parentheses_first_then_backslashes() {
    assert_eq!(
        rule(r"Bash(echo \(hi\))"),
        PermissionRuleValue::with_content("Bash", "echo (hi)")
    );
    // `\\` before the final `)` is an escaped backslash, so the `)` closes.
    assert_eq!(
        rule(r"Bash(a\\)"),
        PermissionRuleValue::with_content("Bash", r"a\")
    );
    assert_eq!(
        rule(r"Bash(a\\\\b)"),
        PermissionRuleValue::with_content("Bash", r"a\\b")
    );
    // `\\(` : the parenthesis rule runs first, leaving `\(`.
    assert_eq!(
        rule(r"Bash(x \\( y)"),
        PermissionRuleValue::with_content("Bash", r"x \( y")
    );
}

#[test]
fn legacy_names_follow_the_tools_aliases() {
    let table = aliases();
    assert_eq!(
        parse_rule("Task", &table),
        PermissionRuleValue::tool("Agent")
    );
    assert_eq!(
        parse_rule("KillShell", &table),
        PermissionRuleValue::tool("TaskStop")
    );
    assert_eq!(
        parse_rule("Task(Explore)", &table),
        PermissionRuleValue::with_content("Agent", "Explore")
    );
    assert_eq!(
        parse_rule("Agent", &table),
        PermissionRuleValue::tool("Agent")
    );
    // No alias table, no rewriting: the table comes from the tools, not from a built-in list.
    assert_eq!(rule("Task"), PermissionRuleValue::tool("Task"));
    assert_eq!(
        parse_rule("BashOutputTool", &table),
        PermissionRuleValue::tool("BashOutputTool")
    );
}

#[test]
fn rules_print_back_to_a_string_that_parses_the_same() {
    for text in ["Bash", "Bash(git *)", r"Bash(echo \(hi\))", r"Bash(a\\)"] {
        let parsed = rule(text);
        assert_eq!(rule(&parsed.to_string()), parsed, "{text}");
    }
    assert_eq!(rule(r"Bash(echo \(hi\))").to_string(), r"Bash(echo \(hi\))");
}

// ---------------------------------------------------------------- §6.2 sources

#[test]
fn rules_are_kept_in_source_order_then_insertion_order() {
    let table = AliasTable::new();
    let mut ctx = ToolPermissionContext::default();
    ctx.add_rule_str(Source::Session, PermissionBehavior::Deny, "A", &table);
    ctx.add_rule_str(Source::CliArg, PermissionBehavior::Deny, "B", &table);
    ctx.add_rule_str(Source::UserSettings, PermissionBehavior::Deny, "C", &table);
    ctx.add_rule_str(Source::CliArg, PermissionBehavior::Deny, "D", &table);
    ctx.add_rule_str(
        Source::PolicySettings,
        PermissionBehavior::Allow,
        "E",
        &table,
    );
    ctx.add_rule_str(
        Source::ProjectSettings,
        PermissionBehavior::Deny,
        "F",
        &table,
    );
    let order: Vec<(&str, Source)> = ctx
        .rules(PermissionBehavior::Deny)
        .map(|rule| (rule.value.tool_name.as_str(), rule.source))
        .collect();
    assert_eq!(
        order,
        [
            ("C", Source::UserSettings),
            ("F", Source::ProjectSettings),
            ("B", Source::CliArg),
            ("D", Source::CliArg),
            ("A", Source::Session),
        ]
    );
    let names: Vec<&str> = Source::ALL.iter().map(|source| source.as_str()).collect();
    assert_eq!(
        names,
        [
            "userSettings",
            "projectSettings",
            "localSettings",
            "flagSettings",
            "policySettings",
            "cliArg",
            "command",
            "session"
        ]
    );
    ctx.clear_source(Source::CliArg);
    assert_eq!(ctx.rules(PermissionBehavior::Deny).count(), 3);
}

// ---------------------------------------------------------------- §6.3 matching

#[test]
fn whole_tool_rules_match_names_exactly() {
    let bash = dyn_tool::<Shell>();
    assert!(tool_matches_rule(bash.as_ref(), &rule("Bash")));
    assert!(!tool_matches_rule(bash.as_ref(), &rule("bash")));
    assert!(!tool_matches_rule(bash.as_ref(), &rule("Bash(git *)")));
    assert!(tool_matches_rule(bash.as_ref(), &rule("Bash(*)")));
    // The tool's aliases are not consulted; only the rule's name is normalised.
    let agent = agent();
    assert!(!tool_matches_rule(agent.as_ref(), &rule("Task")));
    assert!(tool_matches_rule(
        agent.as_ref(),
        &parse_rule("Task", &aliases())
    ));
}

#[test]
fn server_rules_match_every_tool_of_the_server() {
    let tool = mcp("github", "get_me", false);
    for text in [
        "mcp__github",
        "mcp__github__*",
        "mcp__github__get_me",
        "mcp__github(*)",
    ] {
        assert!(tool_matches_rule(tool.as_ref(), &rule(text)), "{text}");
    }
    for text in [
        "mcp__github__",
        "mcp__github__get",
        "mcp__git",
        "mcp__GitHub",
        "mcp__github__get_me(x)",
    ] {
        assert!(!tool_matches_rule(tool.as_ref(), &rule(text)), "{text}");
    }
}

#[test]
fn server_names_compare_normalised_on_the_tool_and_as_written_on_the_rule() {
    let tool = mcp("my.server", "read", false);
    assert_eq!(tool.name(), "mcp__my_server__read");
    assert!(!tool_matches_rule(tool.as_ref(), &rule("mcp__my.server")));
    assert!(tool_matches_rule(tool.as_ref(), &rule("mcp__my_server")));
    assert!(tool_matches_rule(
        tool.as_ref(),
        &rule("mcp__my_server__read")
    ));
}

#[test]
fn a_no_prefix_mcp_tool_is_matched_by_server_rules_only() {
    let write = mcp("fs", "Write", true);
    assert_eq!(write.name(), "Write");
    assert!(!tool_matches_rule(write.as_ref(), &rule("Write")));
    for text in ["mcp__fs", "mcp__fs__*", "mcp__fs__Write"] {
        assert!(tool_matches_rule(write.as_ref(), &rule(text)), "{text}");
    }
}

#[test]
fn the_deny_filter_removes_whole_tools_only() {
    let tools = vec![
        dyn_tool::<Shell>(),
        dyn_tool::<Fetch>(),
        mcp("github", "get_me", false),
        mcp("git", "log", false),
    ];
    let table = AliasTable::new();
    let ctx = ToolPermissionContext::default()
        .with_rule(
            Source::CliArg,
            PermissionBehavior::Deny,
            "Bash(git *)",
            &table,
        )
        .with_rule(Source::CliArg, PermissionBehavior::Deny, "WebFetch", &table)
        .with_rule(
            Source::UserSettings,
            PermissionBehavior::Deny,
            "mcp__github",
            &table,
        )
        .with_rule(
            Source::UserSettings,
            PermissionBehavior::Allow,
            "mcp__git",
            &table,
        );
    let kept: Vec<String> = filter_tools_by_deny_rules(&tools, &ctx)
        .iter()
        .map(|tool| tool.name().to_owned())
        .collect();
    assert_eq!(kept, ["Bash", "mcp__git__log"]);
}

// ---------------------------------------------------------------- §6.5 validation

#[test]
fn validation_reports_every_problem_of_every_rule() {
    let problems = validate_rules([
        "Bash(git *)",
        "",
        "  ",
        "Bash(foo",
        "Bash()",
        "mcp__s(*)",
        "mcp__s__t",
        "bash",
        "Bash(npm:* --x)",
        "Bash(npm:*)",
        "read(x",
        r"Bash(echo \()",
        "Bash(*)",
    ]);
    let found: Vec<(usize, RuleProblemKind)> = problems
        .iter()
        .map(|problem| (problem.index, problem.kind.clone()))
        .collect();
    assert_eq!(
        found,
        [
            (1, RuleProblemKind::Empty),
            (2, RuleProblemKind::Empty),
            (
                3,
                RuleProblemKind::MismatchedParentheses { open: 1, close: 0 }
            ),
            (4, RuleProblemKind::EmptyParentheses),
            (5, RuleProblemKind::McpRuleWithParentheses),
            (7, RuleProblemKind::LowercaseToolName),
            (8, RuleProblemKind::PrefixWildcardNotAtEnd),
            (
                10,
                RuleProblemKind::MismatchedParentheses { open: 1, close: 0 }
            ),
            (10, RuleProblemKind::LowercaseToolName),
        ]
    );
    assert_eq!(
        problems[3].to_string(),
        "rule 4 `Bash()`: empty `()`; write the tool name alone (or `Tool(*)`) for a tool-wide rule"
    );
    assert_eq!(
        problems[4].to_string(),
        "rule 5 `mcp__s(*)`: MCP rules take no parentheses; write `mcp__server`, `mcp__server__*` or `mcp__server__tool`"
    );
}

// ---------------------------------------------------------------- pipeline

struct Host {
    answer: HostAnswer,
    asked: Mutex<Vec<(String, Value, String)>>,
}

impl Host {
    fn new(answer: HostAnswer) -> Self {
        Self {
            answer,
            asked: Mutex::new(Vec::new()),
        }
    }
}

impl CanUseTool for Host {
    fn can_use_tool<'a>(&'a self, request: PermissionRequest<'a>) -> BoxFuture<'a, HostAnswer> {
        self.asked.lock().unwrap().push((
            request.tool.name().to_owned(),
            request.input.clone(),
            request.message.to_owned(),
        ));
        Box::pin(async move { self.answer.clone() })
    }
}

async fn decide(
    tool: &Arc<dyn DynTool>,
    input: Value,
    ctx: &ToolPermissionContext,
    host: Option<&dyn CanUseTool>,
) -> PermissionDecision {
    let call = tool.parse_input(input.clone()).unwrap();
    let use_ctx = ToolUseContext::detached("toolu_1");
    decide_permission(tool.as_ref(), call.as_ref(), &input, &use_ctx, ctx, host).await
}

fn with(
    rules: &[(Source, PermissionBehavior, &str)],
    mode: PermissionMode,
) -> ToolPermissionContext {
    let table = aliases();
    let mut ctx = ToolPermissionContext::new(mode);
    for (source, behavior, text) in rules {
        ctx.add_rule_str(*source, *behavior, text, &table);
    }
    ctx
}

fn rule_of(source: Source, behavior: PermissionBehavior, text: &str) -> DecisionReason {
    DecisionReason::Rule(PermissionRule {
        source,
        behavior,
        value: parse_rule(text, &aliases()),
    })
}

const DENY: PermissionBehavior = PermissionBehavior::Deny;
const ASK: PermissionBehavior = PermissionBehavior::Ask;
const ALLOW: PermissionBehavior = PermissionBehavior::Allow;

#[tokio::test]
async fn a_deny_rule_wins_and_names_the_tool() {
    let bash = dyn_tool::<Shell>();
    let ctx = with(
        &[
            (Source::Session, ALLOW, "Bash"),
            (Source::CliArg, DENY, "Bash"),
        ],
        PermissionMode::BypassPermissions,
    );
    assert_eq!(
        decide(&bash, json!({"command": "ls"}), &ctx, None).await,
        PermissionDecision::Deny {
            message: "Bash may not be used: permission was denied.".to_owned(),
            reason: rule_of(Source::CliArg, DENY, "Bash"),
        }
    );
}

#[tokio::test]
async fn content_rules_go_through_the_tools_matcher() {
    let bash = dyn_tool::<Shell>();
    let ctx = with(
        &[
            (Source::UserSettings, DENY, "Bash(git push:*)"),
            (Source::UserSettings, ALLOW, "Bash(git *)"),
            (Source::UserSettings, ALLOW, "Bash(npm:*)"),
        ],
        PermissionMode::Default,
    );
    let denied = decide(&bash, json!({"command": "git push origin"}), &ctx, None).await;
    assert_eq!(
        denied,
        PermissionDecision::Deny {
            message: "Bash may not be used: permission was denied.".to_owned(),
            reason: rule_of(Source::UserSettings, DENY, "Bash(git push:*)"),
        }
    );
    let allowed = decide(&bash, json!({"command": "git status"}), &ctx, None).await;
    assert_eq!(
        allowed,
        PermissionDecision::Allow {
            updated_input: None,
            reason: rule_of(Source::UserSettings, ALLOW, "Bash(git *)"),
        }
    );
    assert!(
        decide(&bash, json!({"command": "npm test"}), &ctx, None)
            .await
            .is_allowed()
    );
    assert_eq!(
        decide(&bash, json!({"command": "make"}), &ctx, None).await,
        PermissionDecision::Ask {
            message: "Run `make`?".to_owned(),
            reason: DecisionReason::Tool,
        }
    );
    let fetch = dyn_tool::<Fetch>();
    let ctx = with(
        &[(Source::Session, ALLOW, "WebFetch(domain:example.com)")],
        PermissionMode::Default,
    );
    assert!(
        decide(&fetch, json!({"url": "https://example.com/a"}), &ctx, None)
            .await
            .is_allowed()
    );
    assert_eq!(
        decide(&fetch, json!({"url": "https://example.org/a"}), &ctx, None).await,
        PermissionDecision::Ask {
            message: "WebFetch needs your approval to run.".to_owned(),
            reason: DecisionReason::Tool,
        }
    );
}

#[tokio::test]
async fn an_ask_rule_asks_even_when_bypassing() {
    let bash = dyn_tool::<Shell>();
    let ctx = with(
        &[
            (Source::Session, ASK, "Bash"),
            (Source::Session, ALLOW, "Bash"),
        ],
        PermissionMode::BypassPermissions,
    );
    let host = Host::new(HostAnswer::Deny {
        message: "The user said no.".to_owned(),
    });
    let decision = decide(&bash, json!({"command": "ls"}), &ctx, Some(&host)).await;
    assert_eq!(
        decision,
        PermissionDecision::Deny {
            message: "The user said no.".to_owned(),
            reason: DecisionReason::Host,
        }
    );
    assert_eq!(
        *host.asked.lock().unwrap(),
        [(
            "Bash".to_owned(),
            json!({"command": "ls"}),
            "Bash needs your approval to run.".to_owned()
        )]
    );
}

#[tokio::test]
async fn the_tools_own_answer_comes_before_allow_rules() {
    let bash = dyn_tool::<Shell>();
    let ctx = with(&[(Source::Session, ALLOW, "Bash")], PermissionMode::Default);
    assert_eq!(
        decide(&bash, json!({"command": "rm -rf /"}), &ctx, None).await,
        PermissionDecision::Deny {
            message: "Bash refuses to delete the root directory.".to_owned(),
            reason: DecisionReason::Tool,
        }
    );
    // An input the tool replaced survives an allow rule.
    assert_eq!(
        decide(&bash, json!({"command": "rewrite"}), &ctx, None).await,
        PermissionDecision::Allow {
            updated_input: Some(json!({"command": "ls -la"})),
            reason: rule_of(Source::Session, ALLOW, "Bash"),
        }
    );
}

#[tokio::test]
async fn modes_decide_what_no_rule_decides() {
    let bash = dyn_tool::<Shell>();
    let write = dyn_tool::<WriteFile>();
    let input = json!({"command": "make"});
    let file = json!({"file_path": "/tmp/a.txt"});
    let mode = |mode| with(&[], mode);

    let bypass = decide(
        &bash,
        input.clone(),
        &mode(PermissionMode::BypassPermissions),
        None,
    )
    .await;
    assert_eq!(
        bypass,
        PermissionDecision::Allow {
            updated_input: None,
            reason: DecisionReason::Mode(PermissionMode::BypassPermissions),
        }
    );
    let dont_ask = decide(&bash, input.clone(), &mode(PermissionMode::DontAsk), None).await;
    assert_eq!(
        dont_ask,
        PermissionDecision::Deny {
            message: "Bash may not be used: permission was denied.".to_owned(),
            reason: DecisionReason::Mode(PermissionMode::DontAsk),
        }
    );
    assert!(
        decide(
            &write,
            file.clone(),
            &mode(PermissionMode::AcceptEdits),
            None
        )
        .await
        .is_allowed()
    );
    assert!(
        !decide(
            &bash,
            input.clone(),
            &mode(PermissionMode::AcceptEdits),
            None
        )
        .await
        .is_allowed()
    );
    assert_eq!(
        decide(&write, file.clone(), &mode(PermissionMode::Default), None).await,
        PermissionDecision::Ask {
            message: "Write /tmp/a.txt?".to_owned(),
            reason: DecisionReason::Tool,
        }
    );
    // Plan mode denies what is not read-only, even with an allow rule; reads go on.
    let plan = with(&[(Source::Session, ALLOW, "Write")], PermissionMode::Plan);
    assert_eq!(
        decide(&write, file, &plan, None).await,
        PermissionDecision::Deny {
            message: "Write may not be used: permission was denied.".to_owned(),
            reason: DecisionReason::Mode(PermissionMode::Plan),
        }
    );
    assert!(
        decide(&bash, json!({"command": "ls"}), &plan, None)
            .await
            .is_allowed()
    );
}

#[tokio::test]
async fn a_call_that_needs_a_person_is_asked_even_when_bypassing() {
    let question = dyn_tool::<Question>();
    let host = Host::new(HostAnswer::Allow {
        updated_input: Some(json!({"question": "edited"})),
    });
    let decision = decide(
        &question,
        json!({"question": "Which?"}),
        &with(&[], PermissionMode::BypassPermissions),
        Some(&host),
    )
    .await;
    assert_eq!(
        decision,
        PermissionDecision::Allow {
            updated_input: Some(json!({"question": "edited"})),
            reason: DecisionReason::Host,
        }
    );
    assert_eq!(host.asked.lock().unwrap()[0].2, "Answer the question?");
}

#[tokio::test]
async fn mcp_tools_pass_through_to_rules_and_the_host() {
    let tool = mcp("github", "get_me", false);
    let no_rules = with(&[], PermissionMode::Default);
    assert_eq!(
        decide(&tool, json!({}), &no_rules, None).await,
        PermissionDecision::Ask {
            message: "MCP tools need permission before they run.".to_owned(),
            reason: DecisionReason::Tool,
        }
    );
    let server_allowed = with(
        &[(Source::LocalSettings, ALLOW, "mcp__github__*")],
        PermissionMode::Default,
    );
    assert!(
        decide(&tool, json!({}), &server_allowed, None)
            .await
            .is_allowed()
    );
    let server_denied = with(
        &[(Source::LocalSettings, DENY, "mcp__github")],
        PermissionMode::BypassPermissions,
    );
    assert_eq!(
        decide(&tool, json!({}), &server_denied, None).await,
        PermissionDecision::Deny {
            message: "mcp__github__get_me may not be used: permission was denied.".to_owned(),
            reason: rule_of(Source::LocalSettings, DENY, "mcp__github"),
        }
    );
}

#[test]
fn modes_parse_from_their_names() {
    for (text, mode) in [
        ("default", PermissionMode::Default),
        ("acceptEdits", PermissionMode::AcceptEdits),
        ("accept-edits", PermissionMode::AcceptEdits),
        ("bypassPermissions", PermissionMode::BypassPermissions),
        ("bypass", PermissionMode::BypassPermissions),
        ("plan", PermissionMode::Plan),
        ("dontAsk", PermissionMode::DontAsk),
    ] {
        assert_eq!(text.parse::<PermissionMode>(), Ok(mode));
    }
    assert_eq!(
        "yolo".parse::<PermissionMode>(),
        Err("unknown permission mode `yolo`; use one of default, acceptEdits, bypassPermissions, plan, dontAsk".to_owned())
    );
}
