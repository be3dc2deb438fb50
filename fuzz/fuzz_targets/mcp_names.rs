//! MCP name building and parsing (SPEC §10): a normalised name holds only `[A-Za-z0-9_-]`, an
//! exported name never exceeds 64 chars and is stable, and a built name parses back to its
//! normalised server part whenever that part has no `__` and does not start or end with `_`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tool_registry::test_support::{MAX_TOOL_NAME_CHARS, build_mcp_tool_name, exported_mcp_tool_name, is_filtered_ide_tool, mcp_info_from_string, normalize_name_for_mcp, shorten_tool_name};
use tool_sdk_fuzz::split;

fuzz_target!(|data: &[u8]| {
    let (cut, payload) = split(data);
    let Ok(text) = std::str::from_utf8(payload) else {
        return;
    };
    let mut cut = usize::from(cut).min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let (server, tool) = text.split_at(cut);

    let normalized = normalize_name_for_mcp(server);
    assert!(
        normalized
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
        "{server:?} normalised to {normalized:?}"
    );
    let built = build_mcp_tool_name(server, tool);
    let exported = exported_mcp_tool_name(server, tool);
    assert!(
        exported.chars().count() <= MAX_TOOL_NAME_CHARS,
        "{exported:?}"
    );
    assert_eq!(exported, shorten_tool_name(&built));
    assert_eq!(
        shorten_tool_name(&exported),
        exported,
        "shortening is idempotent"
    );
    // A server part that is empty, holds `__`, or starts or ends with `_` is mis-split when the
    // name is parsed back, exactly as in the reference (SPEC §10).
    let splits_cleanly = !normalized.is_empty()
        && !normalized.contains("__")
        && !normalized.starts_with('_')
        && !normalized.ends_with('_');
    if splits_cleanly {
        let parts = mcp_info_from_string(&built).expect("a built name parses");
        assert_eq!(parts.server_name, normalized);
        assert_eq!(
            parts.tool_name.unwrap_or_default(),
            normalize_name_for_mcp(tool)
        );
    }
    let _ = mcp_info_from_string(text);
    let _ = is_filtered_ide_tool(text);
});
