//! How the orchestrator runs: the concurrency cap (SPEC §5.3), where large results are saved
//! and how big they may be (SPEC §9), and which tools parse their input leniently.

use std::collections::BTreeSet;
use std::path::PathBuf;

/// Default cap on calls running at once in a concurrency-safe batch (SPEC §5.3).
pub const DEFAULT_MAX_CONCURRENCY: usize = 10;

/// The environment variable [`OrchestratorConfig::from_env`] reads for the concurrency cap,
/// the same one the reference reads (SPEC §5.3).
pub const MAX_CONCURRENCY_ENV: &str = "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY";

/// Largest result, in chars, kept inline when a tool declares more (SPEC §9
/// `DEFAULT_MAX_RESULT_SIZE_CHARS`).
pub const DEFAULT_MAX_RESULT_SIZE_CHARS: usize = 50_000;

/// The reference's per-message aggregate limit, in chars (SPEC §9
/// `MAX_TOOL_RESULTS_PER_MESSAGE_CHARS`); a suggested value for
/// [`OrchestratorConfig::message_budget_chars`].
pub const MAX_TOOL_RESULTS_PER_MESSAGE_CHARS: usize = 200_000;

/// How the orchestrator runs a turn's calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrchestratorConfig {
    /// Most calls of one concurrency-safe batch running at once; a 0 is read as
    /// [`DEFAULT_MAX_CONCURRENCY`], never as "run nothing" (SPEC "How tool-sdk adapts" rule 3).
    pub max_concurrency: usize,
    /// Directory large results are saved into as `<tool_use_id>.txt` / `.json` (SPEC §9). It is
    /// created on first use. `None` keeps every result inline, whatever its size.
    pub result_dir: Option<PathBuf>,
    /// Cap, in chars, on the persistence threshold of every tool: a tool's threshold is
    /// `min(declared, this)`; [`tool_sdk::MaxResultSize::Unbounded`] tools are never persisted.
    /// Default [`DEFAULT_MAX_RESULT_SIZE_CHARS`].
    pub max_result_size_chars: usize,
    /// Optional per-message budget, in chars, over all results of one assistant message
    /// (SPEC §9 `enforceToolResultBudget`, off by default as in the reference). Applied by
    /// [`super::ToolUseStream::collect_results`]: while the total is over it, the largest
    /// results are persisted first. Needs `result_dir`.
    pub message_budget_chars: Option<usize>,
    /// Tools (by primary name) whose input may carry keys their schema lacks: such keys are
    /// dropped before parsing instead of being reported as unexpected. Every other tool is
    /// strict, as the reference's strict object schemas are (SPEC §5.4 step 3).
    pub lenient_input_tools: BTreeSet<String>,
    /// Tools (by primary name) whose input goes through the opt-in coercion mode
    /// (`tool_sdk::input::coerce`): unambiguous type mistakes are corrected and traced before
    /// parsing. Off by default; see also `coerce_every_input`.
    pub coerce_input_tools: BTreeSet<String>,
    /// The coercion mode for every tool of this orchestrator. Default `false`.
    pub coerce_every_input: bool,
}

impl Default for OrchestratorConfig {
    fn default() -> Self {
        Self {
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            result_dir: None,
            max_result_size_chars: DEFAULT_MAX_RESULT_SIZE_CHARS,
            message_budget_chars: None,
            lenient_input_tools: BTreeSet::new(),
            coerce_input_tools: BTreeSet::new(),
            coerce_every_input: false,
        }
    }
}

impl OrchestratorConfig {
    /// The defaults, with the cap read from [`MAX_CONCURRENCY_ENV`] by
    /// [`parse_max_concurrency`]. Nothing else is read from the environment.
    pub fn from_env() -> Self {
        let value = std::env::var(MAX_CONCURRENCY_ENV).ok();
        Self {
            max_concurrency: parse_max_concurrency(value.as_deref()),
            ..Self::default()
        }
    }

    /// Sets the directory large results are saved into (SPEC §9).
    #[must_use]
    pub fn with_result_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.result_dir = Some(dir.into());
        self
    }

    /// Lets `tool` (a primary name) receive input keys its schema lacks; they are dropped.
    #[must_use]
    pub fn with_lenient_input(mut self, tool: impl Into<String>) -> Self {
        self.lenient_input_tools.insert(tool.into());
        self
    }

    /// Turns the input coercion mode on for `tool` (a primary name).
    #[must_use]
    pub fn with_input_coercion_for(mut self, tool: impl Into<String>) -> Self {
        self.coerce_input_tools.insert(tool.into());
        self
    }

    /// Turns the input coercion mode on for every tool.
    #[must_use]
    pub fn with_input_coercion(mut self) -> Self {
        self.coerce_every_input = true;
        self
    }

    /// Whether inputs of `tool` (a primary name) go through the coercion mode here.
    pub fn coerces(&self, tool: &str) -> bool {
        self.coerce_every_input || self.coerce_input_tools.contains(tool)
    }

    /// The cap actually used: `max_concurrency`, or the default for 0.
    pub fn effective_concurrency(&self) -> usize {
        if self.max_concurrency == 0 {
            DEFAULT_MAX_CONCURRENCY
        } else {
            self.max_concurrency
        }
    }
}

/// Reads a concurrency cap the way the reference's `parseInt(value, 10) || 10` does (SPEC §5.3):
/// leading whitespace is skipped, then an optional sign and the longest run of ASCII digits
/// are read and the rest ignored (`"2.9"` → 2, `"1e3"` → 1, `" 7"` → 7). Unset, empty,
/// unparsable, 0 **and negative** values give [`DEFAULT_MAX_CONCURRENCY`] (the reference would
/// pass a negative value through and then run nothing, SPEC "How tool-sdk adapts" rule 3).
///
/// ```
/// use tool_registry::orchestration::parse_max_concurrency;
/// assert_eq!(parse_max_concurrency(Some("2.9")), 2);
/// assert_eq!(parse_max_concurrency(Some("-3")), 10);
/// assert_eq!(parse_max_concurrency(None), 10);
/// ```
pub fn parse_max_concurrency(value: Option<&str>) -> usize {
    let Some(value) = value else {
        return DEFAULT_MAX_CONCURRENCY;
    };
    let text = value.trim_start();
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    let digits = &digits[..end];
    if negative || digits.is_empty() {
        return DEFAULT_MAX_CONCURRENCY;
    }
    match digits.parse::<usize>() {
        Ok(0) => DEFAULT_MAX_CONCURRENCY,
        Ok(cap) => cap,
        // More digits than a usize holds: as many as can run.
        Err(_) => usize::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_parse_int_with_a_floor_of_one() {
        let cases = [
            (None, 10),
            (Some(""), 10),
            (Some("0"), 10),
            (Some("abc"), 10),
            (Some("2.9"), 2),
            (Some("1e3"), 1),
            (Some(" 7"), 7),
            (Some("\t+4x"), 4),
            (Some("-1"), 10),
            (Some("-0"), 10),
            (Some("25"), 25),
            (Some("99999999999999999999999"), usize::MAX),
        ];
        for (value, expected) in cases {
            assert_eq!(parse_max_concurrency(value), expected, "{value:?}");
        }
    }

    #[test]
    fn zero_cap_means_the_default() {
        let config = OrchestratorConfig {
            max_concurrency: 0,
            ..OrchestratorConfig::default()
        };
        assert_eq!(config.effective_concurrency(), 10);
    }
}
