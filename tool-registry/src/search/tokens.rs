//! Text rules of ToolSearch: tool-name tokenisation (SPEC §3.3), query whitespace and trimming
//! (SPEC §3.4 steps 1 and 4), and the ASCII `\b` word boundary (SPEC §3.4 step 7).
//!
//! The reference runs on JavaScript strings; these functions reproduce its results on Rust
//! strings: whitespace is ECMAScript's (`\s`, `String.prototype.trim`), and a word character is
//! ASCII `[A-Za-z0-9_]` as in a regex without the `u` flag.

/// A tool name split into search parts (SPEC §3.3 `parseToolName`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedToolName {
    /// Lowercased parts, never empty strings. MCP names split on `__` and `_`; other names split
    /// at lower→Upper boundaries, `_` and whitespace.
    pub parts: Vec<String>,
    /// The whole name as one lowercased, space-separated string.
    pub full: String,
    /// `true` when the name starts with `mcp__` (case-sensitive); only the prefix decides, not
    /// the tool's `is_mcp` flag.
    pub is_mcp: bool,
}

/// Tokenises a tool name exactly as SPEC §3.3 says.
///
/// ```
/// use tool_registry::test_support::parse_tool_name;
/// let mcp = parse_tool_name("mcp__my-server__Send_Message");
/// assert_eq!(mcp.parts, ["my-server", "send", "message"]);
/// assert_eq!(mcp.full, "my-server send message");
/// assert!(mcp.is_mcp);
/// assert_eq!(parse_tool_name("getURLData").parts, ["get", "urldata"]);
/// assert_eq!(parse_tool_name("MCPTool").parts, ["mcptool"]);
/// ```
pub fn parse_tool_name(name: &str) -> ParsedToolName {
    if let Some(rest) = name.strip_prefix("mcp__") {
        let rest = rest.to_lowercase();
        let parts = rest
            .split("__")
            .flat_map(|piece| piece.split('_'))
            .filter(|part| !part.is_empty())
            .map(str::to_owned)
            .collect();
        let full = rest.replace("__", " ").replace('_', " ");
        return ParsedToolName {
            parts,
            full,
            is_mcp: true,
        };
    }
    let mut spaced = String::with_capacity(name.len() + 4);
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if previous.is_some_and(|p| p.is_ascii_lowercase()) && c.is_ascii_uppercase() {
            spaced.push(' ');
        }
        spaced.push(if c == '_' { ' ' } else { c });
        previous = Some(c);
    }
    let parts: Vec<String> = split_js_whitespace(&spaced.to_lowercase())
        .map(str::to_owned)
        .collect();
    let full = parts.join(" ");
    ParsedToolName {
        parts,
        full,
        is_mcp: false,
    }
}

/// ECMAScript whitespace and line terminators: what `\s` matches and `trim()` removes.
pub(crate) fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `s.trim()` with ECMAScript's whitespace.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// `s.split(/\s+/)` with the empty strings dropped.
pub(crate) fn split_js_whitespace(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_js_whitespace).filter(|piece| !piece.is_empty())
}

/// An ASCII regex word character, `[A-Za-z0-9_]`. Bytes of non-ASCII chars are never word
/// characters, as in a JavaScript regex without the `u` flag.
pub const fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// `true` when every byte of `term` is a word character: then `\bterm\b` matches a text exactly
/// when `term` is one of the text's maximal runs of word characters.
pub fn is_word_term(term: &str) -> bool {
    !term.is_empty() && term.bytes().all(is_word_byte)
}

/// `true` when the literal `term` occurs in `text` with an ASCII `\b` on both sides: what the
/// reference's `new RegExp("\\b" + escapeRegExp(term) + "\\b").test(text)` answers.
pub fn word_bounded_contains(text: &str, finder: &memchr::memmem::Finder<'_>) -> bool {
    let hay = text.as_bytes();
    let needle = finder.needle();
    let (Some(&first), Some(&last)) = (needle.first(), needle.last()) else {
        return false;
    };
    let mut from = 0;
    while let Some(found) = finder.find(&hay[from..]) {
        let start = from + found;
        let end = start + needle.len();
        let before = start > 0 && is_word_byte(hay[start - 1]);
        let after = end < hay.len() && is_word_byte(hay[end]);
        if before != is_word_byte(first) && after != is_word_byte(last) {
            return true;
        }
        from = start + 1;
    }
    false
}

/// The maximal runs of ASCII word characters in `text`, in order (with repeats).
pub fn word_runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|run| !run.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounded(text: &str, term: &str) -> bool {
        word_bounded_contains(text, &memchr::memmem::Finder::new(term))
    }

    #[test]
    fn boundaries_follow_ascii_regex_rules() {
        assert!(bounded("send a message", "send"));
        assert!(!bounded("sender", "send"));
        assert!(bounded("snake_case send", "send"));
        assert!(!bounded("snake_send", "send"));
        assert!(bounded("écrire send", "send"));
        assert!(!bounded("xsendé", "sendé"));
        // A term starting with a non-word char needs a word char before it.
        assert!(bounded("asp.net", ".net"));
        assert!(!bounded("use .net", ".net"));
        // Overlapping occurrences are all tried.
        assert!(bounded("a-a-a", "a-a"));
        assert!(bounded("xa-a a-a", "a-a"));
    }

    #[test]
    fn whitespace_is_javascripts() {
        assert_eq!(js_trim("\u{FEFF} a \u{3000}"), "a");
        assert_eq!(js_trim("\u{85}a"), "\u{85}a");
        assert_eq!(
            split_js_whitespace(" a\u{A0}b\t\tc ").collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn camel_case_splits_only_lower_to_upper() {
        let parsed = parse_tool_name("NotebookEdit_v2Tool");
        assert_eq!(parsed.parts, ["notebook", "edit", "v2tool"]);
        assert_eq!(parsed.full, "notebook edit v2tool");
        assert!(!parsed.is_mcp);
        assert_eq!(parse_tool_name("Mcp__x").parts, ["mcp", "x"]);
    }

    #[test]
    fn mcp_names_keep_hyphens_and_drop_empty_parts() {
        let parsed = parse_tool_name("mcp__a___B__c-d");
        assert_eq!(parsed.parts, ["a", "b", "c-d"]);
        assert_eq!(parsed.full, "a  b c-d");
    }
}
