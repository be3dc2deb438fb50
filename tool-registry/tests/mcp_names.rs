//! MCP tool naming (SPEC §10) and the 64-char guarantee, with exact values.

use serde_json::json;
use tool_registry::dynamic::{McpImportOptions, mcp_tools_from_list};
use tool_registry::test_support::tool_name_for_permission_check;
use tool_registry::test_support::{
    MAX_TOOL_NAME_CHARS, McpNameParts, build_mcp_tool_name, exported_mcp_tool_name,
    is_filtered_ide_tool, mcp_info_from_string, mcp_prefix, normalize_name_for_mcp,
    shorten_tool_name,
};

fn parts(server: &str, tool: Option<&str>) -> Option<McpNameParts> {
    Some(McpNameParts {
        server_name: server.to_owned(),
        tool_name: tool.map(str::to_owned),
    })
}

#[test]
fn normalisation_replaces_each_utf16_unit_outside_the_safe_set() {
    assert_eq!(normalize_name_for_mcp("my-server_1"), "my-server_1");
    assert_eq!(normalize_name_for_mcp("my.server"), "my_server");
    assert_eq!(normalize_name_for_mcp("a b/c:d"), "a_b_c_d");
    assert_eq!(normalize_name_for_mcp("café"), "caf_");
    assert_eq!(normalize_name_for_mcp("x🦀y"), "x__y");
    assert_eq!(normalize_name_for_mcp("Get_URL"), "Get_URL");
    assert_eq!(normalize_name_for_mcp(""), "");
}

#[test]
fn claude_ai_servers_collapse_and_trim_underscores() {
    assert_eq!(
        normalize_name_for_mcp("claude.ai Google Drive"),
        "claude_ai_Google_Drive"
    );
    assert_eq!(normalize_name_for_mcp("claude.ai  a..b "), "claude_ai_a_b");
    assert_eq!(normalize_name_for_mcp("claude.ai"), "claude_ai");
    assert_eq!(normalize_name_for_mcp("x claude.ai  a"), "x_claude_ai__a");
}

#[test]
fn names_are_built_from_the_normalised_parts() {
    assert_eq!(mcp_prefix("github"), "mcp__github__");
    assert_eq!(
        build_mcp_tool_name("github", "get_me"),
        "mcp__github__get_me"
    );
    assert_eq!(
        build_mcp_tool_name("my.server", "read file"),
        "mcp__my_server__read_file"
    );
    assert_eq!(
        build_mcp_tool_name("everything", "get-sum"),
        "mcp__everything__get-sum"
    );
}

#[test]
fn names_parse_back_into_server_and_tool() {
    assert_eq!(
        mcp_info_from_string("mcp__github__get_me"),
        parts("github", Some("get_me"))
    );
    assert_eq!(mcp_info_from_string("mcp__github"), parts("github", None));
    assert_eq!(
        mcp_info_from_string("mcp__github__"),
        parts("github", Some(""))
    );
    assert_eq!(
        mcp_info_from_string("mcp__github__*"),
        parts("github", Some("*"))
    );
    assert_eq!(
        mcp_info_from_string("mcp__s__a__b"),
        parts("s", Some("a__b"))
    );
    // A server name with `__` is mis-split, as in the reference.
    assert_eq!(
        mcp_info_from_string("mcp__my__srv__t"),
        parts("my", Some("srv__t"))
    );
    assert_eq!(mcp_info_from_string("mcp____t"), None);
    assert_eq!(mcp_info_from_string("mcp__"), None);
    assert_eq!(mcp_info_from_string("Mcp__s__t"), None);
    assert_eq!(mcp_info_from_string("mcp_s__t"), None);
    assert_eq!(mcp_info_from_string("Bash"), None);
}

#[test]
fn long_names_are_shortened_to_64_chars_deterministically() {
    let server = "a-very-long-server-name-for-testing";
    let tool = "and_an_even_longer_tool_name_that_goes_past_the_limit";
    let full = build_mcp_tool_name(server, tool);
    assert_eq!(full.len(), 95);
    let short = exported_mcp_tool_name(server, tool);
    assert_eq!(short.len(), MAX_TOOL_NAME_CHARS);
    assert_eq!(
        short,
        "mcp__a-very-long-server-name-for-testing__and_an_even_l_16167f8c"
    );
    // Same input, same output; a different long name with the same 55-char prefix differs.
    assert_eq!(exported_mcp_tool_name(server, tool), short);
    let sibling = exported_mcp_tool_name(
        server,
        "and_an_even_longer_tool_name_that_goes_past_the_limit2",
    );
    assert_eq!(&sibling[..55], &short[..55]);
    assert_ne!(sibling, short);
    // Exactly 64 stays as it is.
    let exact = "m".repeat(64);
    assert_eq!(shorten_tool_name(&exact), exact);
}

#[test]
fn shortened_tools_still_route_and_match_rules_by_their_raw_names() {
    let long_tool = "t".repeat(70);
    let list = json!({"tools": [{"name": long_tool, "inputSchema": {"type": "object"}}]});
    let tools = mcp_tools_from_list("srv", &list, &McpImportOptions::default())
        .unwrap()
        .tools;
    let tool = &tools[0];
    assert_eq!(tool.name().len(), 64);
    let info = tool.meta().mcp_info.clone().unwrap();
    assert_eq!(
        (info.server_name.as_str(), info.tool_name.as_str()),
        ("srv", long_tool.as_str())
    );
    assert_eq!(
        tool_name_for_permission_check(tool.as_ref()),
        format!("mcp__srv__{long_tool}")
    );
}

#[test]
fn two_tools_normalising_to_one_name_are_both_kept_under_distinct_names() {
    let list = json!({"tools": [
        {"name": "read.file", "inputSchema": {"type": "object"}},
        {"name": "read file", "inputSchema": {"type": "object"}},
    ]});
    let imported = mcp_tools_from_list("fs", &list, &McpImportOptions::default()).unwrap();
    assert!(imported.skipped.is_empty(), "{:?}", imported.skipped);
    let names: Vec<&str> = imported.tools.iter().map(|tool| tool.name()).collect();
    // Neither raw name is clean, so both get the hash suffix; calls still use the raw names.
    assert_eq!(names.len(), 2);
    assert_ne!(names[0], names[1]);
    for (tool, raw) in imported.tools.iter().zip(["read.file", "read file"]) {
        assert!(
            tool.name().starts_with("mcp__fs__read_file_"),
            "{}",
            tool.name()
        );
        assert_eq!(tool.meta().mcp_info.as_ref().unwrap().tool_name, raw);
    }
    // The suffix depends on the raw name only, not on the server's order.
    let reversed = json!({"tools": [list["tools"][1], list["tools"][0]]});
    let again = mcp_tools_from_list("fs", &reversed, &McpImportOptions::default()).unwrap();
    assert_eq!(again.tools[0].name(), names[1]);
    assert_eq!(again.tools[1].name(), names[0]);
}

#[test]
fn ide_tools_are_filtered_except_two() {
    assert!(is_filtered_ide_tool("mcp__ide__openFile"));
    assert!(!is_filtered_ide_tool("mcp__ide__executeCode"));
    assert!(!is_filtered_ide_tool("mcp__ide__getDiagnostics"));
    assert!(!is_filtered_ide_tool("mcp__idea__openFile"));
    let list = json!({"tools": [
        {"name": "openFile", "inputSchema": {"type": "object"}},
        {"name": "getDiagnostics", "inputSchema": {"type": "object"}},
    ]});
    let tools = mcp_tools_from_list("ide", &list, &McpImportOptions::default())
        .unwrap()
        .tools;
    let names: Vec<&str> = tools.iter().map(|tool| tool.name()).collect();
    assert_eq!(names, ["mcp__ide__getDiagnostics"]);
}
