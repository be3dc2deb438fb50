//! Permission rules (SPEC §6.1–§6.5), with exact values.

mod permissions_support;

use tool_registry::ToolPermissionContext;
use tool_registry::permissions::{
    AliasTable, PermissionBehavior, PermissionRuleSource as Source, PermissionRuleValue,
    RuleProblemKind, validate_rules,
};
use tool_registry::test_support::{
    LEGACY_TOOL_NAMES, filter_tools_by_deny_rules, parse_rule, tool_matches_rule,
};
use tool_sdk::dyn_tool;

use permissions_support::*;

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
    // The reference's legacy names are rewritten whatever the tools declare.
    assert_eq!(rule("Task"), PermissionRuleValue::tool("Task"));
    for (legacy, current) in LEGACY_TOOL_NAMES {
        assert_eq!(
            parse_rule(legacy, &AliasTable::new()),
            PermissionRuleValue::tool(current)
        );
        assert_eq!(
            parse_rule(legacy, &table),
            PermissionRuleValue::tool(current)
        );
    }
    // A tool's own alias wins over the legacy list.
    let mut runner = AliasTable::new();
    runner.insert("Task", "Runner");
    assert_eq!(
        parse_rule("Task", &runner),
        PermissionRuleValue::tool("Runner")
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
    // The legacy name and the tool's declared aliases both count, even for a rule that was
    // never normalised.
    let agent = agent();
    assert!(tool_matches_rule(agent.as_ref(), &rule("Task")));
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
fn server_names_compare_normalised_on_both_sides() {
    let tool = mcp("my.server", "read", false);
    assert_eq!(tool.name(), "mcp__my_server__read");
    // The reference compares the rule's part as written, so this rule would deny nothing.
    assert!(tool_matches_rule(tool.as_ref(), &rule("mcp__my.server")));
    assert!(tool_matches_rule(
        tool.as_ref(),
        &rule("mcp__my.server__read")
    ));
    assert!(!tool_matches_rule(tool.as_ref(), &rule("mcp__my.serve")));
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
