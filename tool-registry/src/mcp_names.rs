//! MCP tool names (SPEC §10): normalising server and tool names, building `mcp__SERVER__TOOL`,
//! parsing such a name back, and our guarantee that no exported name exceeds 64 chars.
//!
//! ```
//! use tool_registry::test_support::{build_mcp_tool_name, mcp_info_from_string, normalize_name_for_mcp};
//!
//! assert_eq!(normalize_name_for_mcp("my.server"), "my_server");
//! assert_eq!(build_mcp_tool_name("my.server", "read file"), "mcp__my_server__read_file");
//! let parts = mcp_info_from_string("mcp__github__get_me").unwrap();
//! assert_eq!((parts.server_name.as_str(), parts.tool_name.as_deref()), ("github", Some("get_me")));
//! ```

use std::fmt::Write as _;

/// The longest tool name the Anthropic and OpenAI APIs accept, in chars.
pub const MAX_TOOL_NAME_CHARS: usize = 64;

/// Hex digits of the stable hash appended to a shortened name.
const HASH_HEX_DIGITS: usize = 8;

/// The prefix every prefixed MCP tool name starts with.
pub(crate) const MCP_PREFIX: &str = "mcp__";

/// Replaces every char outside `[A-Za-z0-9_-]` with `_` (SPEC §10 `normalizeNameForMCP`).
///
/// The reference tests UTF-16 units, so a char outside the Basic Multilingual Plane (an emoji)
/// becomes two `_`. A name starting with `"claude.ai "` also has runs of `_` collapsed to one,
/// and one leading and one trailing `_` removed. There is no length limit and no lowercasing.
///
/// ```
/// use tool_registry::test_support::normalize_name_for_mcp;
/// assert_eq!(normalize_name_for_mcp("é-x y"), "_-x_y");
/// assert_eq!(normalize_name_for_mcp("claude.ai My  Server"), "claude_ai_My_Server");
/// ```
pub fn normalize_name_for_mcp(name: &str) -> String {
    let mut normalized = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            normalized.push(c);
        } else {
            normalized.extend(std::iter::repeat_n('_', c.len_utf16()));
        }
    }
    if name.starts_with("claude.ai ") {
        let mut collapsed = String::with_capacity(normalized.len());
        for c in normalized.chars() {
            if !(c == '_' && collapsed.ends_with('_')) {
                collapsed.push(c);
            }
        }
        let trimmed = collapsed.strip_prefix('_').unwrap_or(&collapsed);
        let trimmed = trimmed.strip_suffix('_').unwrap_or(trimmed);
        return trimmed.to_owned();
    }
    normalized
}

/// `"mcp__" + normalize(server) + "__"` (SPEC §10 `getMcpPrefix`).
pub fn mcp_prefix(server_name: &str) -> String {
    format!("{MCP_PREFIX}{}__", normalize_name_for_mcp(server_name))
}

/// `mcp__SERVER__TOOL` with both parts normalised (SPEC §10 `buildMcpToolName`). The result
/// may be longer than [`MAX_TOOL_NAME_CHARS`]; [`exported_mcp_tool_name`] shortens it.
pub fn build_mcp_tool_name(server_name: &str, tool_name: &str) -> String {
    mcp_prefix(server_name) + &normalize_name_for_mcp(tool_name)
}

/// The parts of a name of the form `mcp__SERVER[__TOOL]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct McpNameParts {
    /// The server part, as written in the name.
    pub server_name: String,
    /// The tool part (everything after the second `__`, rejoined with `__`), or `None` when
    /// the name stops after the server.
    pub tool_name: Option<String>,
}

/// Splits `name` on `"__"` into `[p0, server, ...rest]` (SPEC §10 `mcpInfoFromString`).
///
/// `None` unless `p0` is exactly `mcp` and `server` is non-empty (both case-sensitive). The
/// tool part is `rest` joined with `__`, or `None` when `rest` is empty; so `mcp__s__` has the
/// tool part `Some("")`. A server name containing `__` is mis-split, as in the reference.
///
/// ```
/// use tool_registry::test_support::mcp_info_from_string;
/// assert_eq!(mcp_info_from_string("mcp__s").unwrap().tool_name, None);
/// assert_eq!(mcp_info_from_string("mcp__s__a__b").unwrap().tool_name.as_deref(), Some("a__b"));
/// assert!(mcp_info_from_string("MCP__s__t").is_none());
/// assert!(mcp_info_from_string("mcp____t").is_none());
/// ```
pub fn mcp_info_from_string(name: &str) -> Option<McpNameParts> {
    let mut parts = name.split("__");
    if parts.next()? != "mcp" {
        return None;
    }
    let server = parts.next().filter(|server| !server.is_empty())?;
    let rest: Vec<&str> = parts.collect();
    Some(McpNameParts {
        server_name: server.to_owned(),
        tool_name: (!rest.is_empty()).then(|| rest.join("__")),
    })
}

/// The 32-bit FNV-1a hash of `bytes`: a stable hash whose value never depends on the platform,
/// the process or the Rust version.
///
/// ```
/// use tool_registry::test_support::fnv1a_32;
/// assert_eq!(fnv1a_32(b""), 0x811c_9dc5);
/// assert_eq!(fnv1a_32(b"a"), 0xe40c_292c);
/// ```
pub const fn fnv1a_32(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    let mut index = 0;
    while index < bytes.len() {
        hash ^= bytes[index] as u32;
        hash = hash.wrapping_mul(0x0100_0193);
        index += 1;
    }
    hash
}

/// `name` itself when it has at most [`MAX_TOOL_NAME_CHARS`] chars; otherwise its first 55
/// chars, `_`, and the 8 lowercase hex digits of [`fnv1a_32`] over the whole name: 64 chars,
/// the same on every run and platform (SPEC "How tool-sdk adapts" rule 3).
///
/// Two different long names that share their first 55 chars still differ in the hash.
///
/// ```
/// use tool_registry::test_support::shorten_tool_name;
/// assert_eq!(shorten_tool_name("mcp__s__t"), "mcp__s__t");
/// let long = format!("mcp__server__{}", "x".repeat(60));
/// let short = shorten_tool_name(&long);
/// assert_eq!(short.len(), 64);
/// assert!(short.starts_with(&long[..55]));
/// ```
pub fn shorten_tool_name(name: &str) -> String {
    if name.chars().count() <= MAX_TOOL_NAME_CHARS {
        return name.to_owned();
    }
    let keep = MAX_TOOL_NAME_CHARS - HASH_HEX_DIGITS - 1;
    let mut short: String = name.chars().take(keep).collect();
    let _ = write!(short, "_{:08x}", fnv1a_32(name.as_bytes()));
    short
}

/// The name an MCP tool is exported under: [`build_mcp_tool_name`], shortened by
/// [`shorten_tool_name`] when longer than 64 chars. Calls still reach the raw server and tool
/// names through the tool's `mcp_info`, and permission rules still match the full name.
pub fn exported_mcp_tool_name(server_name: &str, tool_name: &str) -> String {
    shorten_tool_name(&build_mcp_tool_name(server_name, tool_name))
}

/// `true` for tools of the reference's IDE server that are dropped on import: names of the
/// form `mcp__ide__*` other than `mcp__ide__executeCode` and `mcp__ide__getDiagnostics`
/// (SPEC §10 "IDE filter").
pub fn is_filtered_ide_tool(name: &str) -> bool {
    name.starts_with("mcp__ide__")
        && name != "mcp__ide__executeCode"
        && name != "mcp__ide__getDiagnostics"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_bmp_chars_become_two_underscores() {
        assert_eq!(normalize_name_for_mcp("a😀b"), "a__b");
        assert_eq!(normalize_name_for_mcp("ünï"), "_n_");
    }

    #[test]
    fn claude_ai_prefix_strips_only_one_underscore_each_side() {
        assert_eq!(normalize_name_for_mcp("claude.ai  Foo  "), "claude_ai_Foo");
        assert_eq!(normalize_name_for_mcp("claude.ai __x__"), "claude_ai_x");
        // Without the prefix nothing collapses.
        assert_eq!(normalize_name_for_mcp("claude.ai"), "claude_ai");
        assert_eq!(normalize_name_for_mcp("  a  "), "__a__");
    }

    #[test]
    fn hash_is_pinned() {
        assert_eq!(fnv1a_32(b"foobar"), 0xbf9c_f968);
    }
}
