//! The runtime permission pipeline (SPEC §6.4, §5.4 step 6), with exact values.

mod permissions_support;

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::{Value, json};
use tool_registry::ToolPermissionContext;
use tool_registry::permissions::{
    CanUseTool, DecisionReason, HostAnswer, PermissionBehavior, PermissionMode, PermissionRequest,
    PermissionRule, PermissionRuleSource as Source,
};
use tool_registry::test_support::PermissionDecision;
use tool_registry::test_support::{decide_permission, parse_rule};
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, dyn_tool};

use permissions_support::*;

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
    let call = tool.parse_input(&input).unwrap();
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

// ---------------------------------------------------------------- the host's view of a request

/// A host that grants "always allow" rules during a session, as `tool-host chat` does: for each
/// request it records the rule name and whether a granted rule already covers the call.
struct SessionHost {
    session: ToolPermissionContext,
    seen: Mutex<Vec<(String, Option<String>)>>,
}

impl CanUseTool for SessionHost {
    fn can_use_tool<'a>(&'a self, request: PermissionRequest<'a>) -> BoxFuture<'a, HostAnswer> {
        let covered = request
            .matching_rule(&self.session, ALLOW)
            .map(|rule| rule.value.to_string());
        self.seen
            .lock()
            .unwrap()
            .push((request.rule_name().into_owned(), covered.clone()));
        Box::pin(async move {
            match covered {
                Some(_) => HostAnswer::Allow {
                    updated_input: None,
                },
                None => HostAnswer::reject(),
            }
        })
    }
}

#[tokio::test]
async fn a_host_finds_the_session_rule_that_covers_a_request_and_names_rules_as_the_pipeline_does()
{
    let mut session = ToolPermissionContext::default();
    session.add_rule_str(Source::Session, ALLOW, "Bash(git *)", &aliases());
    session.add_rule_str(Source::Session, ALLOW, "mcp__github", &aliases());
    let host = SessionHost {
        session,
        seen: Mutex::new(Vec::new()),
    };
    let ctx = ToolPermissionContext::default();
    let bash = dyn_tool::<Shell>();
    let github = mcp("github", "create_issue", false);
    let other = mcp("linear", "create_issue", false);

    let git = decide(&bash, json!({"command": "git status"}), &ctx, Some(&host)).await;
    assert!(matches!(git, PermissionDecision::Allow { .. }), "{git:?}");
    let npm = decide(&bash, json!({"command": "npm test"}), &ctx, Some(&host)).await;
    let rejected = HostAnswer::reject();
    let HostAnswer::Deny { message } = &rejected else {
        panic!("reject() is a denial");
    };
    assert!(
        matches!(&npm, PermissionDecision::Deny { message: sent, .. } if sent == message),
        "{npm:?}"
    );
    assert_eq!(message, tool_registry::test_support::REJECT_MESSAGE);
    let issue = decide(&github, json!({}), &ctx, Some(&host)).await;
    assert!(
        matches!(issue, PermissionDecision::Allow { .. }),
        "{issue:?}"
    );
    let linear = decide(&other, json!({}), &ctx, Some(&host)).await;
    assert!(
        matches!(linear, PermissionDecision::Deny { .. }),
        "{linear:?}"
    );

    assert_eq!(
        *host.seen.lock().unwrap(),
        [
            ("Bash".to_owned(), Some("Bash(git *)".to_owned())),
            ("Bash".to_owned(), None),
            (
                "mcp__github__create_issue".to_owned(),
                Some("mcp__github".to_owned())
            ),
            ("mcp__linear__create_issue".to_owned(), None),
        ]
    );
}
