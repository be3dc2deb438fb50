//! The ToolSearch query path (keyword and `select:` queries, SPEC §3) over a fixed pool: never
//! a panic, never more keyword matches than asked for (an exact name is returned alone), every
//! match a pool tool.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tool_registry::search::SearchState;
use tool_registry::test_support::{js_trim, select_names};
use tool_sdk_fuzz::{fixed_pool, split};

fn state() -> &'static SearchState {
    static STATE: OnceLock<SearchState> = OnceLock::new();
    STATE.get_or_init(|| SearchState::new(fixed_pool().to_vec()))
}

fuzz_target!(|data: &[u8]| {
    let (selector, payload) = split(data);
    let Ok(query) = std::str::from_utf8(payload) else {
        return;
    };
    let max_results = usize::from(selector % 101);
    let output = state().search(query, max_results);
    if select_names(query).is_none() {
        // SPEC §3.4 step 2: a query that is a tool's exact name (lowercased, trimmed as
        // JavaScript trims) returns that one tool, whatever `max_results` says; every other
        // keyword query returns at most `max_results`.
        let q = js_trim(&query.to_lowercase()).to_owned();
        if fixed_pool()
            .iter()
            .any(|tool| tool.name().to_lowercase() == q)
        {
            assert_eq!(output.matches.len(), 1, "{query:?}: {output:?}");
            assert_eq!(output.matches[0].to_lowercase(), q, "{query:?}: {output:?}");
        } else {
            assert!(output.matches.len() <= max_results, "{query:?}: {output:?}");
        }
    }
    for name in &output.matches {
        assert!(
            fixed_pool().iter().any(|tool| tool.name() == name),
            "{query:?} matched {name:?}, which is not in the pool"
        );
    }
    let content = output.to_content();
    let _ = serde_json::to_string(&content).expect("search output serialises");
});
