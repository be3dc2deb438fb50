//! A literal port of the reference's keyword search (SPEC §3.3–§3.6) that builds one regex per
//! term per tool per query and lowercases every text on every query, as the reference does.
//! It exists only as the baseline of the search benchmark and as the oracle of a property test.

#![allow(dead_code)]

use regex::Regex;

/// One deferred tool: name, hint and the memoized description (`prompt()` text).
pub struct NaiveTool {
    pub name: String,
    pub hint: Option<String>,
    pub description: String,
}

struct Parsed {
    parts: Vec<String>,
    full: String,
    is_mcp: bool,
}

fn js_ws(c: char) -> bool {
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

fn parse(name: &str) -> Parsed {
    if let Some(rest) = name.strip_prefix("mcp__") {
        let rest = rest.to_lowercase();
        let parts = rest
            .split("__")
            .flat_map(|p| p.split('_'))
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect();
        let full = rest.replace("__", " ").replace('_', " ");
        return Parsed {
            parts,
            full,
            is_mcp: true,
        };
    }
    let camel = Regex::new("([a-z])([A-Z])").unwrap();
    let spaced = camel
        .replace_all(name, "$1 $2")
        .replace('_', " ")
        .to_lowercase();
    let parts: Vec<String> = spaced
        .split(js_ws)
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect();
    let full = parts.join(" ");
    Parsed {
        parts,
        full,
        is_mcp: false,
    }
}

fn word_regex(term: &str) -> Regex {
    Regex::new(&format!(r"(?-u:\b){}(?-u:\b)", regex::escape(term))).unwrap()
}

/// `searchToolsWithKeywords(query, deferred, tools, max_results)`; `pool_names` are the names of
/// the whole pool, in order, for the exact-name fast path.
pub fn naive_search(
    query: &str,
    deferred: &[NaiveTool],
    pool_names: &[&str],
    max_results: usize,
) -> Vec<String> {
    let lowered = query.to_lowercase();
    let q = lowered.trim_matches(js_ws);
    if let Some(tool) = deferred.iter().find(|t| t.name.to_lowercase() == q) {
        return vec![tool.name.clone()];
    }
    if let Some(name) = pool_names.iter().find(|n| n.to_lowercase() == q) {
        return vec![(*name).to_owned()];
    }
    if q.starts_with("mcp__") && q.len() > 5 {
        let hits: Vec<String> = deferred
            .iter()
            .filter(|t| t.name.to_lowercase().starts_with(q))
            .take(max_results)
            .map(|t| t.name.clone())
            .collect();
        if !hits.is_empty() {
            return hits;
        }
    }
    let terms: Vec<&str> = q.split(js_ws).filter(|t| !t.is_empty()).collect();
    let mut required = Vec::new();
    let mut optional = Vec::new();
    for term in &terms {
        if term.starts_with('+') && term.len() > 1 {
            required.push(&term[1..]);
        } else {
            optional.push(*term);
        }
    }
    let scoring: Vec<&str> = if required.is_empty() {
        terms.clone()
    } else {
        required.iter().chain(optional.iter()).copied().collect()
    };
    let mut scored: Vec<(usize, u32)> = Vec::new();
    for (position, tool) in deferred.iter().enumerate() {
        let parsed = parse(&tool.name);
        let description = tool.description.to_lowercase();
        let hint = tool.hint.as_deref().unwrap_or("").to_lowercase();
        let matches_required = required.iter().all(|term| {
            let pattern = word_regex(term);
            parsed.parts.iter().any(|p| p == term)
                || parsed.parts.iter().any(|p| p.contains(term))
                || pattern.is_match(&description)
                || (!hint.is_empty() && pattern.is_match(&hint))
        });
        if !matches_required {
            continue;
        }
        let mut score = 0;
        for term in &scoring {
            let pattern = word_regex(term);
            if parsed.parts.iter().any(|p| p == term) {
                score += if parsed.is_mcp { 12 } else { 10 };
            } else if parsed.parts.iter().any(|p| p.contains(term)) {
                score += if parsed.is_mcp { 6 } else { 5 };
            }
            if parsed.full.contains(term) && score == 0 {
                score += 3;
            }
            if !hint.is_empty() && pattern.is_match(&hint) {
                score += 4;
            }
            if pattern.is_match(&description) {
                score += 2;
            }
        }
        scored.push((position, score));
    }
    let mut ranked: Vec<(usize, u32)> = scored.into_iter().filter(|(_, s)| *s > 0).collect();
    ranked.sort_by_key(|&(_, score)| std::cmp::Reverse(score));
    ranked
        .into_iter()
        .take(max_results)
        .map(|(position, _)| deferred[position].name.clone())
        .collect()
}
