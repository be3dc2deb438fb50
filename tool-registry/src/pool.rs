//! Ordering and lookup over a list of tools: the reference's pool collation (SPEC "How tool-sdk
//! adapts" rule 4, §7) and `findToolByName` (SPEC §8.1).

use std::cmp::Ordering;
use std::sync::Arc;

use tool_sdk::DynTool;

/// Compares two tool names the way the reference sorts its pool (ICU collation, SPEC §7):
/// case-insensitively with `_` < `-` < digits < letters; when that ties, at the first position
/// whose case differs, lowercase sorts first. Other chars sort after letters, by code point.
///
/// ```
/// use std::cmp::Ordering;
/// use tool_registry::compare_tool_names;
/// assert_eq!(compare_tool_names("a_b", "a-b"), Ordering::Less);
/// assert_eq!(compare_tool_names("a-b", "a1"), Ordering::Less);
/// assert_eq!(compare_tool_names("glob", "Glob"), Ordering::Less);
/// assert_eq!(compare_tool_names("Glob", "grep"), Ordering::Less);
/// ```
pub fn compare_tool_names(a: &str, b: &str) -> Ordering {
    let primary = a
        .chars()
        .map(primary_weight)
        .cmp(b.chars().map(primary_weight));
    primary.then_with(|| {
        a.chars()
            .zip(b.chars())
            .map(|(x, y)| x.is_ascii_uppercase().cmp(&y.is_ascii_uppercase()))
            .find(|ordering| ordering.is_ne())
            .unwrap_or(Ordering::Equal)
    })
}

fn primary_weight(c: char) -> u32 {
    match c {
        '_' => 0,
        '-' => 1,
        '0'..='9' => 2 + (c as u32 - '0' as u32),
        'a'..='z' => 12 + (c as u32 - 'a' as u32),
        'A'..='Z' => 12 + (c as u32 - 'A' as u32),
        other => 100 + other as u32,
    }
}

/// Sorts tools in place by [`compare_tool_names`] on their primary names.
pub fn sort_tools(tools: &mut [Arc<dyn DynTool>]) {
    tools.sort_by(|a, b| compare_tool_names(a.name(), b.name()));
}

/// The first tool in `tools` whose name or alias is exactly `name` (case-sensitive), as the
/// reference's `findToolByName` (SPEC §8.1).
pub fn find_tool_by_name<'a>(
    tools: &'a [Arc<dyn DynTool>],
    name: &str,
) -> Option<&'a Arc<dyn DynTool>> {
    tools.iter().find(|tool| tool.meta().matches_name(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut names: Vec<&str>) -> Vec<&str> {
        names.sort_by(|a, b| compare_tool_names(a, b));
        names
    }

    /// Expected order computed with ICU (`Array.prototype.sort` with `localeCompare` in
    /// Node.js 20), the collation the reference uses.
    #[test]
    fn collation_matches_icu() {
        let icu = [
            "a_b",
            "A_b",
            "a-b",
            "a1",
            "ab",
            "aB",
            "Ab",
            "B",
            "bash",
            "Bash",
            "Glob",
            "mcp__a__b",
            "mcp_a",
            "mcp-a",
            "mcp1",
            "Task",
            "TaskCreate",
            "TodoWrite",
            "Write",
            "Z_",
            "z9",
        ];
        let mut shuffled = icu.to_vec();
        shuffled.reverse();
        shuffled.swap(3, 11);
        assert_eq!(sorted(shuffled), icu);
    }

    #[test]
    fn shorter_prefix_sorts_first() {
        assert_eq!(compare_tool_names("Task", "TaskCreate"), Ordering::Less);
        assert_eq!(compare_tool_names("TaskCreate", "Task"), Ordering::Greater);
        assert_eq!(compare_tool_names("Read", "Read"), Ordering::Equal);
    }

    #[test]
    fn case_is_only_a_tie_breaker() {
        assert_eq!(compare_tool_names("aB", "Ab"), Ordering::Less);
        assert_eq!(compare_tool_names("ab", "B"), Ordering::Less);
    }
}
