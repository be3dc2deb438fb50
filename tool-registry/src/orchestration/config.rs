//! How the orchestrator runs: the concurrency cap (SPEC §5.3), where large results are saved
//! and how big they may be (SPEC §9), and which tools parse their input leniently.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::Value;
use tool_sdk::MaxResultSize;

/// Default cap on calls running at once in a concurrency-safe batch (SPEC §5.3).
pub(crate) const DEFAULT_MAX_CONCURRENCY: usize = 10;

/// The environment variable [`OrchestratorConfig::from_env`] reads for the concurrency cap,
/// the same one the reference reads (SPEC §5.3).
pub(crate) const MAX_CONCURRENCY_ENV: &str = "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY";

/// Largest result, in chars, kept inline when a tool declares more (SPEC §9
/// `DEFAULT_MAX_RESULT_SIZE_CHARS`).
pub(crate) const DEFAULT_MAX_RESULT_SIZE_CHARS: usize = 50_000;

/// The variable that turns on [`OrchestratorConfig::capture_tool_content`] in
/// [`OrchestratorConfig::from_env`] (the OpenTelemetry GenAI conventions' opt-in for content).
const CAPTURE_CONTENT_ENV: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/// How the orchestrator runs a turn's calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrchestratorConfig {
    /// Most calls of one concurrency-safe batch running at once; a 0 is read as
    /// `DEFAULT_MAX_CONCURRENCY`, never as "run nothing" (SPEC "How tool-sdk adapts" rule 3).
    pub max_concurrency: usize,
    /// Directory large results are saved into as `<tool_use_id>.txt` / `.json` (SPEC §9). It is
    /// created on first use. `None` keeps every result inline, whatever its size.
    pub result_dir: Option<PathBuf>,
    /// Cap, in chars, on the persistence threshold of every tool: a tool's threshold is
    /// `min(declared, this)`; [`tool_sdk::MaxResultSize::Unbounded`] tools are never persisted.
    /// Default `DEFAULT_MAX_RESULT_SIZE_CHARS`.
    pub max_result_size_chars: usize,
    /// Per-tool persistence thresholds, in chars, by primary tool name (SPEC §9
    /// `getPersistenceThreshold`, where they come from the feature flag `tengu_satin_quoll`).
    /// An entry replaces the tool's `min(declared, max_result_size_chars)`, above or below the
    /// cap, but never makes an [`MaxResultSize::Unbounded`] tool persist. Values are at least 1;
    /// read a flag's JSON with [`OrchestratorConfig::with_persistence_threshold_overrides`].
    pub persistence_threshold_overrides: BTreeMap<String, usize>,
    /// Optional per-message budget, in chars, over all results of one assistant message
    /// (SPEC §9 `enforceToolResultBudget`, off by default as in the reference). Applied by
    /// [`super::ToolUseStream::collect_results`]: while the total is over it, the largest
    /// results are persisted first. Needs `result_dir`. The reference's limit is 200,000
    /// (SPEC §9 `MAX_TOOL_RESULTS_PER_MESSAGE_CHARS`).
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
    /// Record each call's input and result on its `execute_tool` span, as the OpenTelemetry
    /// GenAI attributes `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result` (JSON
    /// text). Off by default, as the conventions ask: inputs and results can hold secrets.
    /// `tool-host` turns it on with `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
    pub capture_tool_content: bool,
}

impl Default for OrchestratorConfig {
    fn default() -> Self {
        Self {
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            result_dir: None,
            max_result_size_chars: DEFAULT_MAX_RESULT_SIZE_CHARS,
            persistence_threshold_overrides: BTreeMap::new(),
            message_budget_chars: None,
            lenient_input_tools: BTreeSet::new(),
            coerce_input_tools: BTreeSet::new(),
            coerce_every_input: false,
            capture_tool_content: false,
        }
    }
}

impl OrchestratorConfig {
    /// The defaults, with the cap read from `MAX_CONCURRENCY_ENV` by
    /// `parse_max_concurrency`, and [`OrchestratorConfig::capture_tool_content`] on when
    /// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is `true` (any case; the opt-in
    /// variable the OpenTelemetry GenAI conventions name). Nothing else is read from the
    /// environment.
    pub fn from_env() -> Self {
        let value = std::env::var(MAX_CONCURRENCY_ENV).ok();
        let capture = std::env::var(CAPTURE_CONTENT_ENV).ok();
        Self {
            max_concurrency: parse_max_concurrency(value.as_deref()),
            capture_tool_content: capture.is_some_and(|value| value.eq_ignore_ascii_case("true")),
            ..Self::default()
        }
    }

    /// Sets the directory large results are saved into (SPEC §9).
    #[must_use]
    pub fn with_result_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.result_dir = Some(dir.into());
        self
    }

    /// Adds the per-tool thresholds of `overrides`, a JSON object mapping primary tool names to
    /// chars, as the reference reads its `tengu_satin_quoll` flag (SPEC §9): an entry counts
    /// only when its value is a finite number with no fractional part and at least 1
    /// (`{"Read": 20000}`); `0`, negatives, `2.5`, strings, `null` and a value that is not an
    /// object are ignored, leaving the tool's own threshold. Values past `usize::MAX` read as
    /// `usize::MAX`. Later entries replace earlier ones for the same tool.
    #[must_use]
    pub fn with_persistence_threshold_overrides(mut self, overrides: &Value) -> Self {
        let Some(entries) = overrides.as_object() else {
            return self;
        };
        for (tool, value) in entries {
            if let Some(chars) = threshold_override(value) {
                self.persistence_threshold_overrides
                    .insert(tool.clone(), chars);
            }
        }
        self
    }

    /// The threshold, in chars, above which a successful result of `tool` (a primary name)
    /// declaring `declared` is persisted (SPEC §9 `getPersistenceThreshold`): `None` for an
    /// [`MaxResultSize::Unbounded`] tool (checked first, so no override applies to it), else the
    /// tool's entry in [`OrchestratorConfig::persistence_threshold_overrides`] if it is at least
    /// 1, else `min(declared, max_result_size_chars)`.
    pub fn persistence_threshold(&self, tool: &str, declared: MaxResultSize) -> Option<usize> {
        let declared = declared.chars()?;
        match self.persistence_threshold_overrides.get(tool) {
            Some(&chars) if chars >= 1 => Some(chars),
            _ => Some(declared.min(self.max_result_size_chars)),
        }
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

/// One entry of a threshold-override object: an integer-valued finite number ≥ 1, saturated
/// at `usize::MAX`.
fn threshold_override(value: &Value) -> Option<usize> {
    if let Some(chars) = value.as_u64() {
        return (chars >= 1).then(|| usize::try_from(chars).unwrap_or(usize::MAX));
    }
    let chars = value.as_f64()?;
    if !chars.is_finite() || chars.fract() != 0.0 || chars < 1.0 {
        return None;
    }
    // A whole number ≥ 1: the saturating cast keeps it, or usize::MAX past the range.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(chars as usize)
}

/// Reads a concurrency cap the way the reference's `parseInt(value, 10) || 10` does (SPEC §5.3):
/// leading whitespace is skipped, then an optional sign and the longest run of ASCII digits
/// are read and the rest ignored (`"2.9"` → 2, `"1e3"` → 1, `" 7"` → 7). Unset, empty,
/// unparsable, 0 **and negative** values give the default, 10 (the reference would
/// pass a negative value through and then run nothing, SPEC "How tool-sdk adapts" rule 3).
///
/// ```
/// use tool_registry::test_support::parse_max_concurrency;
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
    fn threshold_overrides_keep_whole_numbers_of_at_least_one() {
        let config = OrchestratorConfig::default().with_persistence_threshold_overrides(
            &serde_json::json!({
                "Big": 120_000, "Small": 10, "Float": 300.0, "One": 1,
                "Zero": 0, "Negative": -5, "Half": 0.5, "Frac": 2.5,
                "Text": "100", "Null": null, "Huge": 1e300
            }),
        );
        let declared = MaxResultSize::Chars(30_000);
        let threshold = |tool| config.persistence_threshold(tool, declared);
        assert_eq!(
            threshold("Big"),
            Some(120_000),
            "an override may pass the cap"
        );
        assert_eq!(threshold("Small"), Some(10));
        assert_eq!(threshold("Float"), Some(300));
        assert_eq!(threshold("One"), Some(1));
        assert_eq!(threshold("Huge"), Some(usize::MAX));
        for ignored in ["Zero", "Negative", "Half", "Frac", "Text", "Null", "Absent"] {
            assert_eq!(threshold(ignored), Some(30_000), "{ignored}");
        }
        assert_eq!(
            config.persistence_threshold("Big", MaxResultSize::Unbounded),
            None,
            "unbounded is checked before any override"
        );
        let not_an_object = OrchestratorConfig::default()
            .with_persistence_threshold_overrides(&serde_json::json!([["Big", 5]]));
        assert!(not_an_object.persistence_threshold_overrides.is_empty());
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
