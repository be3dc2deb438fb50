//! Deferral, modes and gates (SPEC §4), the request tool list, the deferred-tools delta
//! (SPEC §8.2) and the schema-not-sent hint (SPEC §8.3).

mod search_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::future::BoxFuture;
use search_support::DescribedTool;
use serde_json::json;
use tool_registry::search::{
    ApiProvider, DeferralRules, DeferredToolsDelta, RequestTools, TokenCounter, ToolSearchConfig,
    ToolSearchGate, ToolSearchMode, schema_not_sent_hint,
};
use tool_registry::test_support::{
    available_deferred_tools, deferred_chars, discovered_tool_names, utf16_cmp,
};
use tool_sdk::DynTool;

#[test]
fn deferral_rules_apply_in_spec_order() {
    let none = DeferralRules::default();
    let check = |tool: DescribedTool, rules: &DeferralRules| rules.is_deferred(&tool);
    assert!(!check(
        DescribedTool::new("mcp__a__b", "").always_load(),
        &none
    ));
    assert!(check(DescribedTool::new("ToolSearch", "").mcp(true), &none));
    assert!(!check(
        DescribedTool::new("ToolSearch", "").deferred(),
        &none
    ));
    assert!(check(DescribedTool::new("Write", "").mcp(true), &none));
    assert!(check(DescribedTool::new("Agent", "").deferred(), &none));
    let fork = DeferralRules {
        fork_subagent: true,
        ..none
    };
    assert!(!check(DescribedTool::new("Agent", "").deferred(), &fork));
    let brief = DeferralRules {
        brief_always_loaded: true,
        ..none
    };
    assert!(check(
        DescribedTool::new("SendUserMessage", "").deferred(),
        &none
    ));
    assert!(!check(
        DescribedTool::new("SendUserMessage", "").deferred(),
        &brief
    ));
    let file = DeferralRules {
        send_user_file_always_loaded: true,
        ..none
    };
    assert!(!check(
        DescribedTool::new("SendUserFile", "").deferred(),
        &file
    ));
    assert!(check(DescribedTool::new("WebFetch", "").deferred(), &none));
    assert!(!check(DescribedTool::new("Read", ""), &none));
}

/// SPEC §4.2, row by row: (ENABLE_TOOL_SEARCH, kill switch) → (mode, auto percentage).
#[test]
fn mode_string_table() {
    use ToolSearchMode::{Standard, Tst, TstAuto};
    let rows: &[(Option<&str>, bool, ToolSearchMode, u8)] = &[
        (None, false, Tst, 10),
        (Some(""), false, Tst, 10),
        (Some("true"), false, Tst, 10),
        (Some(" TRUE\n"), false, Tst, 10),
        (Some("1"), false, Tst, 10),
        (Some("yes"), false, Tst, 10),
        (Some("On"), false, Tst, 10),
        (Some("false"), false, Standard, 10),
        (Some(" Off "), false, Standard, 10),
        (Some("0"), false, Standard, 10),
        (Some("no"), false, Standard, 10),
        (Some("auto"), false, TstAuto, 10),
        (Some("auto:25"), false, TstAuto, 25),
        (Some("auto: 30"), false, TstAuto, 30),
        (Some("auto:1e3"), false, TstAuto, 1),
        (Some("auto:99.9"), false, TstAuto, 99),
        (Some("auto:abc"), false, TstAuto, 10),
        (Some("auto:"), false, TstAuto, 10),
        (Some("auto:0"), false, Tst, 0),
        (Some("auto:-5"), false, Tst, 0),
        (Some("auto:0x10"), false, Tst, 0),
        (Some("auto:100"), false, Standard, 100),
        (Some("auto:250"), false, Standard, 100),
        (Some("AUTO"), false, Tst, 10),
        (Some("Auto:50"), false, Tst, 10),
        (Some(" auto"), false, Tst, 10),
        (Some("banana"), false, Tst, 10),
        (Some("true"), true, Standard, 10),
        (Some("auto:50"), true, Standard, 50),
    ];
    for &(value, kill, mode, percentage) in rows {
        let config = ToolSearchConfig::from_vars(|name| match name {
            "ENABLE_TOOL_SEARCH" => value.map(str::to_owned),
            "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS" => kill.then(|| "1".to_owned()),
            _ => None,
        });
        assert_eq!(
            (config.mode, config.auto_percentage),
            (mode, percentage),
            "{value:?} kill={kill}"
        );
        assert_eq!(
            config.mode_explicit,
            value.is_some_and(|v| !v.is_empty()),
            "{value:?}"
        );
    }
}

fn config_from(vars: &[(&str, &str)]) -> ToolSearchConfig {
    ToolSearchConfig::from_vars(|name| {
        vars.iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| (*value).to_owned())
    })
}

#[test]
fn optimistic_gate_and_first_party_hosts() {
    assert!(ToolSearchConfig::default().is_enabled_optimistic());
    assert!(!config_from(&[("ENABLE_TOOL_SEARCH", "false")]).is_enabled_optimistic());
    let proxy = [("ANTHROPIC_BASE_URL", "https://proxy.example.com")];
    assert!(!config_from(&proxy).is_enabled_optimistic());
    assert!(config_from(&[proxy[0], ("ENABLE_TOOL_SEARCH", "auto")]).is_enabled_optimistic());
    assert!(config_from(&[proxy[0], ("CLAUDE_CODE_USE_BEDROCK", "1")]).is_enabled_optimistic());
    for (url, first_party) in [
        ("https://api.anthropic.com", true),
        ("https://API.Anthropic.com/v1/", true),
        ("https://api.anthropic.com:443", true),
        ("https://api.anthropic.com:8443", false),
        ("http://api.anthropic.com:443", false),
        ("https://api.anthropic.com.evil.example", false),
        ("not a url", false),
        ("https://api-staging.anthropic.com", false),
    ] {
        let config = config_from(&[("ANTHROPIC_BASE_URL", url)]);
        assert_eq!(config.is_first_party_base_url(), first_party, "{url}");
        assert_eq!(config.is_enabled_optimistic(), first_party, "{url}");
    }
    let staff = config_from(&[
        ("ANTHROPIC_BASE_URL", "https://api-staging.anthropic.com"),
        ("USER_TYPE", "ant"),
    ]);
    assert!(staff.is_enabled_optimistic());
    assert_eq!(
        config_from(&[
            ("CLAUDE_CODE_USE_VERTEX", "true"),
            ("CLAUDE_CODE_USE_FOUNDRY", "1")
        ])
        .provider,
        ApiProvider::Vertex
    );
    assert_eq!(
        config_from(&[("CLAUDE_CODE_USE_FOUNDRY", "yes")]).provider,
        ApiProvider::Foundry
    );
    assert_eq!(
        ApiProvider::Bedrock.tool_search_beta(),
        "tool-search-tool-2025-10-19"
    );
    assert_eq!(
        ApiProvider::FirstParty.tool_search_beta(),
        "advanced-tool-use-2025-11-20"
    );
}

#[test]
fn thresholds_follow_the_context_window() {
    let config = ToolSearchConfig::default();
    assert_eq!(config.token_threshold("claude-sonnet-4-5"), 20_000);
    assert_eq!(config.char_threshold("claude-sonnet-4-5"), 50_000);
    assert_eq!(config.token_threshold("claude-sonnet-4-5[1M]"), 100_000);
    assert_eq!(config.char_threshold("claude-sonnet-4-5[1m]"), 250_000);
    let no_1m = config_from(&[("CLAUDE_CODE_DISABLE_1M_CONTEXT", "true")]);
    assert_eq!(no_1m.token_threshold("claude-sonnet-4-5[1m]"), 20_000);
    let odd = ToolSearchConfig {
        auto_percentage: 7,
        context_window: Some(12_345),
        ..Default::default()
    };
    assert_eq!(odd.token_threshold("m"), 864);
    assert_eq!(odd.char_threshold("m"), 2_160);
    assert!(!config.model_supports_tool_reference("claude-3-5-Haiku-latest"));
    assert!(config.model_supports_tool_reference("claude-opus-4-5"));
    let custom = ToolSearchConfig {
        unsupported_model_patterns: vec!["sonnet".to_owned()],
        ..Default::default()
    };
    assert!(!custom.model_supports_tool_reference("Claude-Sonnet-4"));
    assert!(custom.model_supports_tool_reference("claude-haiku-4"));
}

#[test]
fn char_estimate_counts_utf16_units_of_name_prompt_and_schema() {
    let tool = DescribedTool::new("mcp__a__b", "é😀x").schema(json!({"type": "object"}));
    // 9 + (1 + 2 + 1) + 17.
    assert_eq!(deferred_chars(&[tool.arc()]), 30);
}

/// A counter that answers a fixed total and counts how often it was asked.
struct FixedCounter {
    total: Option<u64>,
    calls: AtomicUsize,
}

impl TokenCounter for FixedCounter {
    fn count_tokens<'a>(&'a self, _: &'a [Arc<dyn DynTool>]) -> BoxFuture<'a, Option<u64>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move { self.total })
    }
}

fn auto_pool(prompt_chars: usize) -> Vec<Arc<dyn DynTool>> {
    let mut pool = vec![DescribedTool::new("Read", "Reads.").arc()];
    let config = ToolSearchConfig::default();
    config.insert_tool_search(&mut pool);
    // name 9 + prompt + schema {"type":"object"} 17.
    pool.push(
        DescribedTool::new("mcp__a__b", &"x".repeat(prompt_chars))
            .schema(json!({"type": "object"}))
            .arc(),
    );
    pool
}

#[tokio::test]
async fn auto_threshold_uses_tokens_with_overhead_then_chars() {
    // 10% of 1,000 tokens = 100 tokens = 250 chars.
    let config = ToolSearchConfig {
        mode: ToolSearchMode::TstAuto,
        context_window: Some(1_000),
        ..Default::default()
    };
    let at = auto_pool(250 - 26);
    let below = auto_pool(250 - 27);
    let chars = ToolSearchGate::new(config.clone());
    assert!(chars.is_enabled("claude-opus-4-5", &at).await);
    assert!(!chars.is_enabled("claude-opus-4-5", &below).await);
    for (total, enabled) in [
        (Some(600), true),
        (Some(599), false),
        (Some(0), false),
        (None, false),
    ] {
        let counter = Arc::new(FixedCounter {
            total,
            calls: AtomicUsize::new(0),
        });
        let gate = ToolSearchGate::with_counter(config.clone(), counter.clone());
        // `below` has 249 chars, so a missing count falls back to "not reached".
        assert_eq!(
            gate.is_enabled("claude-opus-4-5", &below).await,
            enabled,
            "{total:?}"
        );
        assert_eq!(
            gate.is_enabled("claude-opus-4-5", &below).await,
            enabled,
            "{total:?}"
        );
        assert_eq!(
            counter.calls.load(Ordering::SeqCst),
            1,
            "memoized by deferred names"
        );
    }
    let gate = ToolSearchGate::new(ToolSearchConfig::default());
    assert!(gate.is_enabled("claude-opus-4-5", &below).await);
    assert!(!gate.is_enabled("claude-haiku-4-5", &below).await);
    assert!(!gate.is_enabled("claude-opus-4-5", &below[..1]).await);
    let standard = ToolSearchGate::new(ToolSearchConfig::with_mode(ToolSearchMode::Standard));
    assert!(!standard.is_enabled("claude-opus-4-5", &below).await);
}

fn history() -> Vec<serde_json::Value> {
    vec![
        json!({"role": "user", "content": "hi"}),
        json!({"type": "system", "subtype": "compact_boundary",
               "compactMetadata": {"preCompactDiscoveredTools": ["NotebookEdit"]}}),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                {"type": "tool_reference", "tool_name": "mcp__a__y"},
                {"type": "text", "text": "ok"}
            ]}
        ]}),
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": [
                {"type": "tool_reference", "tool_name": "mcp__z__w"}
            ]}
        ]}}),
        json!({"role": "assistant", "content": [
            {"type": "tool_result", "content": [{"type": "tool_reference", "tool_name": "mcp__not__user"}]}
        ]}),
    ]
}

fn request_pool() -> Vec<Arc<dyn DynTool>> {
    let mut pool = vec![
        DescribedTool::new("NotebookEdit", "Edits notebooks.")
            .deferred()
            .arc(),
        DescribedTool::new("Read", "Reads.").arc(),
    ];
    ToolSearchConfig::default().insert_tool_search(&mut pool);
    pool.push(DescribedTool::new("mcp__a__x", "X.").arc());
    pool.push(DescribedTool::new("mcp__a__y", "Y.").arc());
    pool
}

#[test]
fn discovered_names_come_from_user_tool_results_and_compact_boundaries() {
    let names: Vec<String> = discovered_tool_names(&history()).into_iter().collect();
    assert_eq!(names, ["NotebookEdit", "mcp__a__y", "mcp__z__w"]);
    let mut messages = history();
    assert_eq!(RequestTools::strip_tool_references(&mut messages), 2);
    assert_eq!(
        messages[2]["content"][0]["content"],
        json!([{"type": "text", "text": "ok"}])
    );
    assert_eq!(discovered_tool_names(&messages).len(), 1);
}

#[test]
fn request_tools_send_non_deferred_tool_search_and_discovered_tools() {
    let pool = request_pool();
    let config = ToolSearchConfig::default();
    let request = RequestTools::choose(&pool, &history(), true, false, &config);
    let names: Vec<&str> = request.tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["NotebookEdit", "Read", "ToolSearch", "mcp__a__y"]);
    assert!(request.tool_search);
    assert_eq!(request.defer_loading, ["NotebookEdit", "mcp__a__y"]);
    assert_eq!(
        request.available_deferred_tools.as_deref(),
        Some(
            "<available-deferred-tools>\nNotebookEdit\nmcp__a__x\nmcp__a__y\n</available-deferred-tools>"
        )
    );
    let mut definitions = json!([{"name": "Read"}, {"name": "mcp__a__y"}]);
    request.mark_deferred(&mut definitions);
    assert_eq!(
        definitions,
        json!([{"name": "Read"}, {"name": "mcp__a__y", "defer_loading": true}])
    );
    let with_delta = ToolSearchConfig {
        deferred_delta: true,
        ..Default::default()
    };
    assert_eq!(
        RequestTools::choose(&pool, &[], true, false, &with_delta).available_deferred_tools,
        None
    );

    // Search off: everything but ToolSearch, nothing deferred.
    let off = RequestTools::choose(&pool, &history(), false, false, &config);
    let names: Vec<&str> = off.tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["NotebookEdit", "Read", "mcp__a__x", "mcp__a__y"]);
    assert!(!off.tool_search && off.defer_loading.is_empty());

    // Nothing deferred and no pending server: search switches off for the request.
    let plain = &pool[1..3];
    assert!(!RequestTools::choose(plain, &[], true, false, &config).tool_search);
    assert!(RequestTools::choose(plain, &[], true, true, &config).tool_search);
}

#[test]
fn deferred_delta_replays_announcements() {
    let pool: Vec<Arc<dyn DynTool>> = vec![
        DescribedTool::new("NotebookEdit", "").deferred().arc(),
        DescribedTool::new("Read", "").arc(),
        DescribedTool::new("mcp__a__x", "").arc(),
        DescribedTool::new("mcp__b__y", "").arc(),
    ];
    let first = DeferredToolsDelta {
        added_names: vec!["mcp__a__x".into(), "mcp__gone__z".into(), "Read".into()],
        added_lines: vec![],
        removed_names: vec![],
    };
    let second = DeferredToolsDelta {
        added_names: vec!["mcp__q".into()],
        added_lines: vec![],
        removed_names: vec!["mcp__q".into()],
    };
    let messages = vec![
        json!({"role": "user", "content": "hi"}),
        first.to_attachment(),
        second.to_attachment(),
    ];
    assert_eq!(
        messages[1],
        json!({"type": "attachment", "attachment": {"type": "deferred_tools_delta",
            "addedNames": ["mcp__a__x", "mcp__gone__z", "Read"], "addedLines": [], "removedNames": []}})
    );
    let announced = DeferredToolsDelta::announced_in(&messages);
    assert_eq!(announced, [first, second]);
    let delta = DeferredToolsDelta::since(&pool, &announced, &DeferralRules::default()).unwrap();
    assert_eq!(delta.added_names, ["NotebookEdit", "mcp__b__y"]);
    assert_eq!(delta.added_lines, ["NotebookEdit", "mcp__b__y"]);
    assert_eq!(delta.removed_names, ["mcp__gone__z"]);
    assert_eq!(
        delta.render(),
        "<system-reminder>\n\
         These deferred tools can now be loaded with ToolSearch:\nNotebookEdit\nmcp__b__y\n\n\
         These deferred tools are gone because their MCP server disconnected. Do not search for them; ToolSearch will not find them:\nmcp__gone__z\n\
         </system-reminder>"
    );
    let mut all = announced.clone();
    all.push(delta);
    assert_eq!(
        DeferredToolsDelta::since(&pool, &all, &DeferralRules::default()),
        None
    );
    let only_added = DeferredToolsDelta::since(&pool, &[], &DeferralRules::default()).unwrap();
    assert_eq!(
        only_added.render(),
        "<system-reminder>\nThese deferred tools can now be loaded with ToolSearch:\nNotebookEdit\nmcp__a__x\nmcp__b__y\n</system-reminder>"
    );
    assert_eq!(
        available_deferred_tools(&pool, &DeferralRules::default()),
        "<available-deferred-tools>\nNotebookEdit\nmcp__a__x\nmcp__b__y\n</available-deferred-tools>"
    );
}

#[test]
fn announcement_order_is_utf16_code_unit_order() {
    // U+1F600 is the surrogate pair D83D DE00, below U+FF61 in UTF-16 but above it in UTF-8.
    assert_eq!(utf16_cmp("\u{1F600}", "\u{FF61}"), std::cmp::Ordering::Less);
    assert_eq!(utf16_cmp("B", "a"), std::cmp::Ordering::Less);
    let pool: Vec<Arc<dyn DynTool>> = vec![
        DescribedTool::new("mcp__s__\u{FF61}", "").arc(),
        DescribedTool::new("mcp__s__\u{1F600}", "").arc(),
    ];
    let delta = DeferredToolsDelta::since(&pool, &[], &DeferralRules::default()).unwrap();
    assert_eq!(delta.added_names, ["mcp__s__\u{1F600}", "mcp__s__\u{FF61}"]);
}

#[test]
fn schema_not_sent_hint_only_for_undiscovered_deferred_tools() {
    let pool = request_pool();
    let config = ToolSearchConfig::default();
    let hidden = DescribedTool::new("mcp__a__x", "X.");
    let hint = schema_not_sent_hint(&hidden, &history(), &pool, &config).unwrap();
    assert_eq!(
        hint,
        "\n\nThe schema of this tool was not sent to the API: the tool is not among the tools discovered in the message history. \
         Without the schema in your prompt, typed parameters (arrays, numbers, booleans) are emitted as strings and the client-side parser rejects them. \
         Load the tool first by calling ToolSearch with query \"select:mcp__a__x\", then retry this call."
    );
    assert!(hint.starts_with("\n\n"));
    assert!(hint.contains("\"select:mcp__a__x\""));
    let discovered = DescribedTool::new("mcp__a__y", "Y.");
    assert_eq!(
        schema_not_sent_hint(&discovered, &history(), &pool, &config),
        None
    );
    let loaded = DescribedTool::new("Read", "Reads.");
    assert_eq!(schema_not_sent_hint(&loaded, &[], &pool, &config), None);
    let standard = ToolSearchConfig::with_mode(ToolSearchMode::Standard);
    assert_eq!(schema_not_sent_hint(&hidden, &[], &pool, &standard), None);
    let without_search: Vec<Arc<dyn DynTool>> = pool
        .iter()
        .filter(|tool| tool.name() != "ToolSearch")
        .cloned()
        .collect();
    assert_eq!(
        schema_not_sent_hint(&hidden, &[], &without_search, &config),
        None
    );
}

#[test]
fn tool_search_is_added_only_when_the_optimistic_gate_is_on() {
    let mut pool: Vec<Arc<dyn DynTool>> = vec![
        DescribedTool::new("Read", "").arc(),
        DescribedTool::new("Write", "").arc(),
        DescribedTool::new("mcp__a__b", "").arc(),
    ];
    let standard = ToolSearchConfig::with_mode(ToolSearchMode::Standard);
    assert!(!standard.insert_tool_search(&mut pool));
    assert!(ToolSearchConfig::default().insert_tool_search(&mut pool));
    assert!(!ToolSearchConfig::default().insert_tool_search(&mut pool));
    let names: Vec<&str> = pool.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["Read", "ToolSearch", "Write", "mcp__a__b"]);
}
