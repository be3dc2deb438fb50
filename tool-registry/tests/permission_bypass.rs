//! No name gets a call past a deny rule (SPEC §6): a property test calls tools through every
//! name variant it can build (primary names, legacy names, declared aliases, MCP names before
//! and after normalisation and shortening, case changes) against deny rules written in every
//! form, in `bypassPermissions` mode, where nothing but the rule stands between the call and
//! the tool. A denied tool must never run and must be gone from the deny-filtered pool.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::json;
use tool_registry::ToolPermissionContext;
use tool_registry::dynamic::{DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list};
use tool_registry::permissions::{
    AliasTable, PermissionBehavior, PermissionMode, PermissionRuleSource,
};
use tool_registry::test_support::build_mcp_tool_name;
use tool_registry::test_support::{filter_tools_by_deny_rules, permission_denied_message};
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::{DynTool, ToolUseBlock};

/// What every tool answers when it runs.
const RAN: &str = "the tool ran";

fn runtime_tool(name: &str, aliases: &[&str]) -> Arc<dyn DynTool> {
    let definition = json!({
        "name": name, "description": "A tool.", "aliases": aliases,
        "input_schema": {"type": "object"}
    });
    Arc::new(DynamicTool::from_json(&definition, ToolHandler::fixed_text(RAN)).unwrap())
}

fn mcp_tool(server: &str, tool: &str, no_prefix: bool) -> Arc<dyn DynTool> {
    let list = json!({"tools": [{"name": tool, "inputSchema": {"type": "object"}}]});
    let options = McpImportOptions {
        no_prefix,
        handler: Some(ToolHandler::fixed_text(RAN)),
    };
    mcp_tools_from_list(server, &list, &options)
        .unwrap()
        .tools
        .remove(0)
}

const LONG_SERVER: &str = "a-server-with-a-rather-long-name";
const LONG_TOOL: &str = "a_tool_whose_name_is_long_enough_to_need_shortening";

/// Two hosts: one with today's names and no declared legacy aliases, one whose agent tool
/// still has the old name `Task`. Both have MCP tools needing normalisation and shortening
/// and a no-prefix MCP tool.
fn pools() -> Vec<Vec<Arc<dyn DynTool>>> {
    let mcp = || {
        vec![
            mcp_tool("my.server", "read file", false),
            mcp_tool(LONG_SERVER, LONG_TOOL, false),
            mcp_tool("fs", "Write", true),
        ]
    };
    let mut current = vec![
        runtime_tool("Agent", &[]),
        runtime_tool("TaskStop", &[]),
        runtime_tool("TaskOutput", &[]),
        runtime_tool("SendUserMessage", &[]),
        runtime_tool("Runner", &["Job", "Worker"]),
        runtime_tool("Bash", &[]),
    ];
    current.extend(mcp());
    let mut old = vec![
        runtime_tool("Task", &[]),
        runtime_tool("KillShell", &[]),
        runtime_tool("BashOutputTool", &[]),
        runtime_tool("Brief", &[]),
    ];
    old.extend(mcp());
    vec![current, old]
}

/// Deny rules for `tool`, in every form a settings file may write them.
fn deny_rules_for(tool: &dyn DynTool) -> Vec<String> {
    let meta = tool.meta();
    if let Some(info) = &meta.mcp_info {
        let full = build_mcp_tool_name(&info.server_name, &info.tool_name);
        let mut rules = vec![
            full.clone(),
            format!("mcp__{}", info.server_name),
            format!("mcp__{}__*", info.server_name),
            format!("mcp__{}__{}", info.server_name, info.tool_name),
            format!("mcp__{}(*)", info.server_name),
            format!("{full}()"),
        ];
        if tool.name().starts_with("mcp__") {
            rules.push(tool.name().to_owned());
        }
        return rules;
    }
    let name = meta.name.to_string();
    let mut rules = vec![name.clone(), format!("{name}(*)"), format!("{name}()")];
    rules.extend(meta.aliases.iter().map(|alias| alias.to_string()));
    for (legacy, current) in tool_registry::test_support::LEGACY_TOOL_NAMES {
        if current == name {
            rules.push(legacy.to_owned());
        }
        if legacy == name {
            rules.push(current.to_owned());
        }
    }
    rules
}

/// Every name a model might use: each tool's names, the legacy names, and MCP spellings.
fn call_names(pool: &[Arc<dyn DynTool>]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for tool in pool {
        names.push(tool.name().to_owned());
        names.extend(tool.meta().aliases.iter().map(|alias| alias.to_string()));
        if let Some(info) = &tool.meta().mcp_info {
            names.push(build_mcp_tool_name(&info.server_name, &info.tool_name));
            names.push(format!("mcp__{}__{}", info.server_name, info.tool_name));
            names.push(info.tool_name.clone());
        }
    }
    for (legacy, current) in tool_registry::test_support::LEGACY_TOOL_NAMES {
        names.push(legacy.to_owned());
        names.push(current.to_owned());
    }
    names
}

/// `name` with the case of the chars at the positions in `flips` swapped.
fn flip_case(name: &str, flips: &[usize]) -> String {
    name.chars()
        .enumerate()
        .map(|(index, c)| {
            if flips.contains(&index) {
                if c.is_uppercase() {
                    c.to_lowercase().next().unwrap_or(c)
                } else {
                    c.to_uppercase().next().unwrap_or(c)
                }
            } else {
                c
            }
        })
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Runs `name` once against the pool with one deny rule: the result text.
fn call(pool: &[Arc<dyn DynTool>], rule: &str, name: &str) -> (String, bool) {
    let permissions = ToolPermissionContext::new(PermissionMode::BypassPermissions).with_rule(
        PermissionRuleSource::PolicySettings,
        PermissionBehavior::Deny,
        rule,
        &AliasTable::from_tools(pool),
    );
    let orchestrator =
        Orchestrator::new(pool, OrchestratorConfig::default()).with_permissions(permissions);
    let block = ToolUseBlock {
        id: "toolu_1".to_owned(),
        name: name.to_owned(),
        input: json!({}),
    };
    let outcome = runtime().block_on(orchestrator.run_tool_use(
        orchestrator.prepare(block),
        &TurnState::default(),
        None,
    ));
    (outcome.result.content.text(), outcome.result.is_error)
}

fn cases() -> u32 {
    std::env::var("TOOL_SDK_PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn no_name_variant_reaches_a_denied_tool(
        pool_index in 0..2usize,
        tool_pick in any::<prop::sample::Index>(),
        rule_pick in any::<prop::sample::Index>(),
        name_pick in any::<prop::sample::Index>(),
        flips in prop::collection::vec(0..70usize, 0..3),
    ) {
        let pool = &pools()[pool_index];
        let denied = tool_pick.get(pool);
        let rules = deny_rules_for(denied.as_ref());
        let rule: &String = rule_pick.get(&rules);
        let names = call_names(pool);
        let name = flip_case(name_pick.get::<String>(&names), &flips);

        let kept = filter_tools_by_deny_rules(pool, &ToolPermissionContext::new(PermissionMode::Default)
            .with_rule(PermissionRuleSource::UserSettings, PermissionBehavior::Deny, rule, &AliasTable::from_tools(pool)));
        prop_assert!(
            !kept.iter().any(|tool| Arc::ptr_eq(tool, denied)),
            "deny rule {rule:?} leaves {} in the pool", denied.name()
        );

        let orchestrator = Orchestrator::new(pool, OrchestratorConfig::default());
        let reaches_denied = orchestrator
            .find_tool(&name)
            .is_some_and(|tool| Arc::ptr_eq(tool, denied));
        let (text, is_error) = call(pool, rule, &name);
        if reaches_denied {
            prop_assert!(is_error && text.contains("permission was denied"),
                "{name:?} reached {} past the deny rule {rule:?}: {text}", denied.name());
        }
        prop_assert!(text != RAN || !reaches_denied);
    }
}

#[test]
fn every_rule_form_denies_its_tool_through_every_name() {
    // The exhaustive form of the property over the fixed pools (no case flips).
    for pool in pools() {
        let orchestrator = Orchestrator::new(&pool, OrchestratorConfig::default());
        for denied in &pool {
            for rule in deny_rules_for(denied.as_ref()) {
                for name in call_names(&pool) {
                    let reaches = orchestrator
                        .find_tool(&name)
                        .is_some_and(|tool| Arc::ptr_eq(tool, denied));
                    if reaches {
                        let (text, is_error) = call(&pool, &rule, &name);
                        assert!(
                            is_error && text.contains("permission was denied"),
                            "{name:?} reached {} past {rule:?}: {text}",
                            denied.name()
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn a_legacy_rule_denies_the_current_tool_that_does_not_declare_the_alias() {
    let pool = &pools()[0];
    for (legacy, current) in tool_registry::test_support::LEGACY_TOOL_NAMES {
        let (text, is_error) = call(pool, legacy, current);
        assert!(is_error, "{legacy} did not deny {current}: {text}");
        assert_eq!(text, permission_denied_message(current));
    }
    // And the reverse: a host whose tool still has the legacy name is denied by today's name.
    let old = &pools()[1];
    let (text, is_error) = call(old, "Agent", "Task");
    assert!(is_error, "{text}");
}

#[test]
fn a_bare_name_does_not_deny_a_no_prefix_mcp_tool_but_its_server_rule_does() {
    // SPEC §6.3: the no-prefix MCP tool `Write` is not the built-in Write.
    let pool = &pools()[0];
    let (text, _) = call(pool, "Write", "Write");
    assert_eq!(text, RAN);
    let (text, is_error) = call(pool, "mcp__fs", "Write");
    assert!(is_error && text.contains("permission was denied"), "{text}");
}
