//! The permission-rule parser, the settings validator and whole-tool matching over a fixed
//! pool. A rule whose tool part is a plain name must print back to text that parses to the
//! same rule; matching and validation must never panic.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tool_registry::permissions::{AliasTable, validate_rules};
use tool_registry::test_support::{parse_rule, tool_matches_rule};
use tool_sdk_fuzz::fixed_pool;

fn aliases() -> &'static AliasTable {
    static ALIASES: OnceLock<AliasTable> = OnceLock::new();
    ALIASES.get_or_init(|| AliasTable::from_tools(fixed_pool()))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let rule = parse_rule(text, aliases());
    let _ = validate_rules([text]);
    for tool in fixed_pool() {
        let _ = tool_matches_rule(tool.as_ref(), &rule);
    }
    let plain_name = !rule.tool_name.is_empty()
        && rule
            .tool_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain_name {
        let printed = rule.to_string();
        assert_eq!(
            parse_rule(&printed, aliases()),
            rule,
            "{text:?} printed as {printed:?}"
        );
    }
});
