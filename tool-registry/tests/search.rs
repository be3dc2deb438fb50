//! ToolSearch: tokenisation, scoring and ranking with expected scores computed by hand from
//! SPEC §3.5, `select:`, result mapping, the description cache, and the tool itself.

mod search_support;

use std::sync::Arc;

use proptest::prelude::*;
use search_support::{DescribedTool, ranking_pool};
use serde_json::json;
use tool_registry::search::DescriptionCache;
use tool_registry::search::{SearchState, ToolSearch};
use tool_registry::test_support::{IndexEntry, NO_MATCH_TEXT, SearchIndex, parse_tool_name};
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::{DynTool, Extensions, ToolSpec, ToolUseBlock};

#[path = "../benches/search_support/naive.rs"]
mod naive;

fn search(query: &str, max_results: usize) -> Vec<String> {
    SearchState::new(ranking_pool())
        .search(query, max_results)
        .matches
}

fn scored(query: &str) -> Vec<(String, u32)> {
    let pool = ranking_pool();
    let state = SearchState::new(pool);
    let deferred = state.deferred();
    let prompts: Vec<String> = deferred.iter().map(|t| t.prompt().into_owned()).collect();
    let index =
        SearchIndex::build(
            deferred
                .iter()
                .zip(&prompts)
                .map(|(tool, prompt)| IndexEntry {
                    name: tool.name(),
                    search_hint: tool.meta().search_hint.as_deref(),
                    description: prompt,
                }),
        );
    index
        .rank_scored(query, 100)
        .into_iter()
        .map(|(id, score)| (deferred[id].name().to_owned(), score))
        .collect()
}

fn pairs(expected: &[(&str, u32)]) -> Vec<(String, u32)> {
    expected
        .iter()
        .map(|(name, score)| ((*name).to_owned(), *score))
        .collect()
}

#[test]
fn tokenisation_of_mcp_and_camel_case_names() {
    let mcp = parse_tool_name("mcp__Slack__send_Message");
    assert_eq!(mcp.parts, ["slack", "send", "message"]);
    assert_eq!(mcp.full, "slack send message");
    assert!(mcp.is_mcp);
    let camel = parse_tool_name("ListMcpResourcesTool");
    assert_eq!(camel.parts, ["list", "mcp", "resources", "tool"]);
    assert_eq!(camel.full, "list mcp resources tool");
    assert!(!camel.is_mcp);
    assert_eq!(parse_tool_name("getURLData").parts, ["get", "urldata"]);
    assert_eq!(parse_tool_name("MCPTool").parts, ["mcptool"]);
    assert_eq!(
        parse_tool_name("mcp__my-server__a__b").parts,
        ["my-server", "a", "b"]
    );
    // The prefix test is case-sensitive: `MCP__x` is a CamelCase name.
    assert_eq!(parse_tool_name("MCP__x_y").parts, ["mcp", "x", "y"]);
    assert!(!parse_tool_name("MCP__x_y").is_mcp);
}

/// Scores by hand (SPEC §3.5), pool order NotebookEdit, Agent, send_message, list_channels,
/// send_email, messages_archive (Read is not deferred):
/// - send_message: send = part 12 + hint 4 ("sends" is not \bsend\b) = 16;
///   message = part 12 + hint 4 + description 2 = 18; total 34.
/// - send_email: send = 12 + 4 = 16; message = description 2; total 18.
/// - messages_archive: message is inside the part "messages": 6.
#[test]
fn two_terms_rank_by_hand_computed_scores() {
    assert_eq!(
        scored("send message"),
        pairs(&[
            ("mcp__slack__send_message", 34),
            ("mcp__mail__send_email", 18),
            ("mcp__files__messages_archive", 6),
        ])
    );
    assert_eq!(
        search("Send  MESSAGE ", 5),
        [
            "mcp__slack__send_message",
            "mcp__mail__send_email",
            "mcp__files__messages_archive"
        ]
    );
    assert_eq!(
        search("send message", 2),
        ["mcp__slack__send_message", "mcp__mail__send_email"]
    );
}

/// `+slack` keeps only tools with "slack" in a part, the hint or the description; scores use
/// required terms first, then the rest: send_message = slack (12 + 4 + 2) + send 16 = 34;
/// list_channels = slack part 12.
#[test]
fn required_terms_filter_then_score() {
    assert_eq!(
        scored("+slack send"),
        pairs(&[
            ("mcp__slack__send_message", 34),
            ("mcp__slack__list_channels", 12),
        ])
    );
    // A bare `+` is an ordinary term, and matches nothing here.
    assert_eq!(
        scored("+ send"),
        pairs(&[
            ("mcp__slack__send_message", 16),
            ("mcp__mail__send_email", 16)
        ])
    );
    assert_eq!(scored("+nothing send"), pairs(&[]));
}

/// "channel": send_message scores hint 4 + description 2 = 6; list_channels scores 6 as a
/// substring of the part "channels". Equal scores keep pool order.
#[test]
fn ties_keep_pool_order() {
    assert_eq!(
        scored("channel"),
        pairs(&[
            ("mcp__slack__send_message", 6),
            ("mcp__slack__list_channels", 6),
        ])
    );
    assert_eq!(search("channel", 1), ["mcp__slack__send_message"]);
    // Repeated terms count twice: 16 + 16 each, still in pool order.
    assert_eq!(
        scored("send send"),
        pairs(&[
            ("mcp__slack__send_message", 32),
            ("mcp__mail__send_email", 32)
        ])
    );
}

/// CamelCase names use the built-in weights 10 and 5: notebook = part 10 + hint 4 +
/// description 2; jupyter = hint 4 + description 2; "note" is inside the part "notebook" (5).
#[test]
fn built_in_names_use_built_in_weights() {
    assert_eq!(scored("notebook jupyter"), pairs(&[("NotebookEdit", 22)]));
    assert_eq!(scored("note"), pairs(&[("NotebookEdit", 5)]));
    // "ipynb" is a word of the hint "(.ipynb)"; ".ipynb" needs a word char before the dot.
    assert_eq!(scored("ipynb"), pairs(&[("NotebookEdit", 4)]));
    assert_eq!(scored(".ipynb"), pairs(&[]));
    // The alias "Task" is not searched; "task" is a word of Agent's description (2).
    assert_eq!(scored("task"), pairs(&[("Agent", 2)]));
}

#[test]
fn exact_name_fast_path_and_mcp_prefix_path() {
    assert_eq!(search("  NOTEBOOKEDIT ", 5), ["NotebookEdit"]);
    // A non-deferred tool is returned by exact name too.
    assert_eq!(search("read", 5), ["Read"]);
    assert_eq!(
        search("mcp__slack", 5),
        ["mcp__slack__send_message", "mcp__slack__list_channels"]
    );
    assert_eq!(search("MCP__SLACK", 1), ["mcp__slack__send_message"]);
    // `mcp__` alone is not the prefix path; `mcp__nope` falls through to keyword search.
    assert_eq!(search("mcp__", 5), Vec::<String>::new());
    assert_eq!(search("mcp__nope", 5), Vec::<String>::new());
}

/// SPEC §3.4 step 2: an exact name is returned alone whatever `max_results` says, even 0
/// (which the tool's own input check refuses, but a direct search may pass), after JavaScript's
/// `trim`, which also removes a vertical tab. Found by the `tool_search` fuzz target, whose
/// bound on the number of matches had left this path out.
#[test]
fn the_exact_name_fast_path_ignores_max_results() {
    assert_eq!(
        search("mcp__slack__send_message\u{b}\t ", 0),
        ["mcp__slack__send_message"]
    );
    assert_eq!(search("Read", 0), ["Read"]);
    // The other paths are bounded: 0 gives nothing.
    assert_eq!(search("mcp__slack", 0), Vec::<String>::new());
    assert_eq!(search("send message", 0), Vec::<String>::new());
}

#[test]
fn select_is_exact_alias_aware_deduplicated_and_unbounded() {
    let state = SearchState::new(ranking_pool()).with_pending_mcp_servers(vec!["github".into()]);
    let output = state.search(
        "SELECT:NotebookEdit, Read ,Task,,mcp__slack__send_message,NotebookEdit,Nope",
        1,
    );
    assert_eq!(
        output.matches,
        ["NotebookEdit", "Read", "Agent", "mcp__slack__send_message"]
    );
    assert_eq!(output.total_deferred_tools, 6);
    assert!(output.pending_mcp_servers.is_empty());
    // Names are case-sensitive; nothing found attaches the pending servers.
    let output = state.search("select:notebookedit", 5);
    assert!(output.matches.is_empty());
    assert_eq!(output.pending_mcp_servers, ["github"]);
    // A leading space sends the query to keyword search.
    assert_eq!(
        state.search(" select:Read", 5).matches,
        Vec::<String>::new()
    );
}

#[test]
fn results_map_to_tool_references_or_the_no_match_text() {
    let state = SearchState::new(ranking_pool())
        .with_pending_mcp_servers(vec!["github".into(), "jira".into()]);
    let found = state.search("+slack send", 5);
    assert_eq!(
        serde_json::to_value(found.to_content()).unwrap(),
        json!([
            {"type": "tool_reference", "tool_name": "mcp__slack__send_message"},
            {"type": "tool_reference", "tool_name": "mcp__slack__list_channels"}
        ])
    );
    assert_eq!(
        serde_json::to_value(&found).unwrap(),
        json!({"matches": ["mcp__slack__send_message", "mcp__slack__list_channels"],
               "query": "+slack send", "total_deferred_tools": 6})
    );
    let none = state.search("zebra", 5);
    assert_eq!(
        none.to_content().text(),
        format!(
            "{NO_MATCH_TEXT}. Some MCP servers are still connecting: github, jira. Their tools will be available soon, so search again shortly."
        )
    );
    assert_eq!(
        SearchState::new(ranking_pool())
            .search("zebra", 5)
            .to_content()
            .text(),
        "No deferred tools matched the query"
    );
}

#[test]
fn descriptions_are_memoized_until_the_deferred_names_change() {
    let changing = Arc::new(DescribedTool::new("mcp__a__ping", "Sends a ping."));
    let pool: Vec<Arc<dyn DynTool>> = vec![changing.clone()];
    let cache = DescriptionCache::new();
    let first = SearchState::new(pool.clone()).with_description_cache(cache.clone());
    assert_eq!(first.search("ping", 5).matches, ["mcp__a__ping"]);
    assert_eq!(first.search("pong", 5).matches, Vec::<String>::new());
    changing.set_prompt("Sends a pong.");
    // Same deferred names: the memoized description is kept, even by a new state.
    let same = SearchState::new(pool.clone()).with_description_cache(cache.clone());
    assert_eq!(same.search("pong", 5).matches, Vec::<String>::new());
    // Another deferred set clears the cache.
    let mut grown = pool.clone();
    grown.push(DescribedTool::new("mcp__b__other", "Other.").arc());
    let other = SearchState::new(grown).with_description_cache(cache.clone());
    assert_eq!(other.search("pong", 5).matches, ["mcp__a__ping"]);
    // clear() empties it; states built earlier rebuild their index.
    changing.set_prompt("Sends a beep.");
    cache.clear();
    assert!(cache.is_empty());
    assert_eq!(same.search("beep", 5).matches, ["mcp__a__ping"]);
    assert_eq!(
        DescriptionCache::key_for(&[
            DescribedTool::new("b", "").arc(),
            DescribedTool::new("B", "").arc(),
            DescribedTool::new("a", "").arc()
        ]),
        "B,a,b"
    );
}

fn block(id: &str, input: serde_json::Value) -> ToolUseBlock {
    ToolUseBlock {
        id: id.to_owned(),
        name: "ToolSearch".to_owned(),
        input,
    }
}

#[tokio::test]
async fn the_tool_runs_through_orchestration_with_the_pool_from_host_state() {
    let mut pool = ranking_pool();
    let config = tool_registry::search::ToolSearchConfig::default();
    assert!(config.insert_tool_search(&mut pool));
    let names: Vec<&str> = pool.iter().map(|tool| tool.name()).collect();
    assert_eq!(
        names,
        [
            "NotebookEdit",
            "Read",
            "Agent",
            "ToolSearch",
            "mcp__slack__send_message",
            "mcp__slack__list_channels",
            "mcp__mail__send_email",
            "mcp__files__messages_archive"
        ]
    );
    let state = TurnState {
        extensions: Extensions::new().with(SearchState::new(pool.clone())),
        ..TurnState::default()
    };
    let blocks = [
        block("toolu_1", json!({"query": "+slack send", "max_results": 1})),
        block("toolu_2", json!({"query": "zebra"})),
        block("toolu_3", json!({"query": "x", "max_results": 0})),
        block("toolu_4", json!({"query": "x", "max_results": 2.5})),
        block("toolu_5", json!({"query": "x", "max_results": "5"})),
        block("toolu_6", json!({"query": "send", "max_results": 1.0})),
        block("toolu_7", json!({"query": "x", "max_results": 101})),
    ];
    let results = Orchestrator::new(&pool, OrchestratorConfig::default())
        .run_tools(blocks.to_vec(), state)
        .collect_results()
        .await
        .results;
    assert_eq!(
        serde_json::to_value(&results[0].content).unwrap(),
        json!([{"type": "tool_reference", "tool_name": "mcp__slack__send_message"}])
    );
    assert!(!results[0].is_error);
    assert_eq!(results[1].text(), NO_MATCH_TEXT);
    assert!(!results[1].is_error);
    let header = "<tool_use_error>InputValidationError: ToolSearch cannot run because of the following input issue:\nParameter `max_results`";
    let expected = [
        (2, ": got 0, but an integer from 1 to 100 is required"),
        (
            3,
            " must be of type `integer`, but a value of type `number` was provided",
        ),
        (
            4,
            " must be of type `integer`, but a value of type `string` was provided",
        ),
        (6, ": got 101, but an integer from 1 to 100 is required"),
    ];
    // `1.0` is an integer, as JSON Schema reads it (input policy rule 3).
    assert!(!results[5].is_error, "{}", results[5].text());
    for (index, issue) in expected {
        assert!(results[index].is_error, "{index}");
        assert_eq!(
            results[index].text(),
            format!("{header}{issue}</tool_use_error>")
        );
    }
}

#[tokio::test]
async fn without_a_search_state_the_call_says_what_is_missing() {
    let tool = tool_sdk::dyn_tool::<ToolSearch>();
    let call = tool.parse_input(&json!({"query": "x"})).unwrap();
    let error = call
        .call(&tool_sdk::ToolUseContext::detached("toolu_1"))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_model_text(),
        tool_registry::test_support::MISSING_STATE
    );
}

#[test]
fn tool_facts_follow_spec_3_1() {
    let tool = tool_sdk::dyn_tool::<ToolSearch>();
    let meta = tool.meta();
    assert_eq!(meta.name, "ToolSearch");
    assert_eq!(
        meta.max_result_size_chars,
        tool_sdk::MaxResultSize::Chars(100_000)
    );
    let call = tool.parse_input(&json!({"query": "x"})).unwrap();
    assert!(call.is_read_only() && call.is_concurrency_safe());
    assert_eq!(call.user_facing_name(), "");
    assert_eq!(
        <ToolSearch as ToolSpec>::DESCRIPTION,
        tool_registry::test_support::tool_search_prompt(false)
    );
    assert_eq!(
        tool.input_schema(),
        &json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Keywords to search for, or \"select:NAME1,NAME2\" to fetch tools by exact name."},
                "max_results": {"type": "integer", "minimum": 1, "maximum": 100, "description": "How many matches to return at most, 1 to 100 (default 5)."}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    );
    let delta_config = tool_registry::search::ToolSearchConfig {
        deferred_delta: true,
        ..Default::default()
    };
    let with_delta = tool_registry::test_support::tool_search_tool(&delta_config);
    assert!(
        with_delta
            .prompt()
            .contains("Deferred tools appear by name in <system-reminder> messages.")
    );
    assert!(
        tool.prompt()
            .contains("Deferred tools appear by name in <available-deferred-tools> messages.")
    );
    for form in [
        "\"select:Read,Edit,Grep\"",
        "\"notebook jupyter\"",
        "\"+slack send\"",
    ] {
        assert!(tool.prompt().contains(form), "{form}");
    }
}

/// Added by a host on purpose, never collected.
#[tool_sdk::tool(name = "OnPurpose", read_only, opt_in, max_result_size_chars = 100)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct OnPurpose {}

#[tool_sdk::tool]
impl tool_sdk::Tool for OnPurpose {
    type Output = String;
    async fn call(
        self,
        _ctx: &tool_sdk::ToolUseContext,
    ) -> Result<tool_sdk::ToolResult<String>, tool_sdk::ToolError> {
        Ok(tool_sdk::ToolResult::new(String::new()))
    }
}

#[test]
fn the_registry_leaves_opt_in_tools_out() {
    let registry = tool_registry::ToolRegistry::collect().unwrap();
    assert!(registry.find("ToolSearch").is_none());
    assert!(registry.find("OnPurpose").is_none());
    // Both are linked and registered; the registration says why they are not collected.
    for name in ["ToolSearch", "OnPurpose"] {
        let registration = tool_sdk::registration::registrations()
            .find(|registration| registration.name == name)
            .unwrap_or_else(|| panic!("{name} is registered"));
        assert!(registration.opt_in, "{name}");
    }
    assert!(tool_sdk::dyn_tool::<OnPurpose>().name() == "OnPurpose");
}

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "send", "message", "slack", "list", "channel", "read", "file", "data", "get", "set", "a",
        "to", "the", "it's", "c++", "e-mail", "x_y", "é", "messages", "sends",
    ])
    .prop_map(str::to_owned)
}

fn text(words: usize) -> impl Strategy<Value = String> {
    (
        prop::collection::vec(word(), 0..words),
        prop::collection::vec(
            prop::sample::select(vec![" ", ". ", ", ", "-", "_", " (", ") "]),
            0..words,
        ),
    )
        .prop_map(|(words, seps)| {
            let mut out = String::new();
            for (i, w) in words.iter().enumerate() {
                out.push_str(w);
                out.push_str(seps.get(i).copied().unwrap_or(" "));
            }
            out
        })
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        (word(), word(), word()).prop_map(|(s, v, n)| format!("mcp__{s}__{v}_{n}")),
        (word(), word()).prop_map(|(a, b)| {
            let cap = |w: &str| {
                let mut c = w.chars();
                c.next()
                    .map(|f| f.to_uppercase().chain(c).collect::<String>())
                    .unwrap_or_default()
            };
            format!("{}{}", cap(&a), cap(&b))
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// The index returns exactly what the literal regex-per-term port returns.
    #[test]
    fn index_agrees_with_the_literal_port(
        tools in prop::collection::vec((name(), prop::option::of(text(5)), text(12)), 1..12),
        query in prop::collection::vec(prop_oneof![word(), word().prop_map(|w| format!("+{w}"))], 1..4),
        max in 1usize..6,
    ) {
        let mut seen = std::collections::HashSet::new();
        let tools: Vec<_> = tools.into_iter().filter(|t| seen.insert(t.0.clone())).collect();
        let pool: Vec<Arc<dyn DynTool>> = tools
            .iter()
            .map(|(name, hint, description)| {
                let mut tool = DescribedTool::new(name, description).mcp(true);
                if let Some(hint) = hint { tool = tool.hint(hint); }
                tool.arc()
            })
            .collect();
        let naive_tools: Vec<naive::NaiveTool> = tools
            .iter()
            .map(|(name, hint, description)| naive::NaiveTool {
                name: name.clone(),
                hint: hint.clone(),
                description: description.clone(),
            })
            .collect();
        let names: Vec<&str> = tools.iter().map(|t| t.0.as_str()).collect();
        let query = query.join(" ");
        let fast = SearchState::new(pool).search(&query, max).matches;
        let slow = naive::naive_search(&query, &naive_tools, &names, max);
        prop_assert_eq!(fast, slow);
    }
}
