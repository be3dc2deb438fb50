//! The `ToolSearch` tool (SPEC §3.1): written with `#[tool]`, reading the pool from the host
//! state, answering with `tool_reference` blocks.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use tool_sdk::prelude::*;
use tool_sdk::{DefinitionSite, InputError, ToolMeta, ToolOutput, TypedTool};

use super::config::ToolSearchConfig;
use super::deferral::TOOL_SEARCH_NAME;
use super::state::{SearchState, ToolSearchOutput};

/// The prompt's opening, before the sentence that says where deferred tools are listed.
pub(crate) const PROMPT_HEAD: &str = "Fetches the full definitions of deferred tools so that they can be called.\n\nA deferred tool is known by name only: its parameters have not been loaded, so it cannot be called until this tool has fetched it. ";
/// Where deferred tools are listed when the deferred-tools delta is on (SPEC §3.1, §8.2).
pub(crate) const LOCATION_DELTA: &str =
    "Deferred tools appear by name in <system-reminder> messages.";
/// Where deferred tools are listed when the delta is off (SPEC §3.1, §4.4).
pub(crate) const LOCATION_BLOCK: &str =
    "Deferred tools appear by name in <available-deferred-tools> messages.";
/// The prompt's end: what a match gives and the three query forms.
pub(crate) const PROMPT_TAIL: &str = "\n\nEvery match comes back as a reference to the tool, and its full definition is available from then on.\n\nQuery forms:\n- \"select:Read,Edit,Grep\" fetches exactly these tools, by name\n- \"notebook jupyter\" searches by keywords and returns the best max_results matches\n- \"+slack send\" requires \"slack\" in the name and ranks by the remaining terms";

/// The ToolSearch prompt (SPEC §3.1): what deferred tools are, the location sentence for the
/// delta gate, then the query forms.
pub fn tool_search_prompt(deferred_delta: bool) -> String {
    let location = if deferred_delta {
        LOCATION_DELTA
    } else {
        LOCATION_BLOCK
    };
    format!("{PROMPT_HEAD}{location}{PROMPT_TAIL}")
}

/// Fetches the full definitions of deferred tools so that they can be called.
///
/// The host opts in: [`ToolRegistry::collect`](crate::ToolRegistry::collect) leaves this tool
/// out (as the reference leaves it out of its base tools unless the optimistic gate of
/// SPEC §4.3 is on), and the host adds it with [`ToolSearchConfig::insert_tool_search`]
/// and puts a [`SearchState`] for its pool into the host state.
#[tool(
    name = "ToolSearch",
    description = "Fetches the full definitions of deferred tools so that they can be called.\n\nA deferred tool is known by name only: its parameters have not been loaded, so it cannot be called until this tool has fetched it. Deferred tools appear by name in <available-deferred-tools> messages.\n\nEvery match comes back as a reference to the tool, and its full definition is available from then on.\n\nQuery forms:\n- \"select:Read,Edit,Grep\" fetches exactly these tools, by name\n- \"notebook jupyter\" searches by keywords and returns the best max_results matches\n- \"+slack send\" requires \"slack\" in the name and ranks by the remaining terms",
    read_only,
    concurrency_safe,
    opt_in,
    max_result_size_chars = 100_000
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ToolSearch {
    /// Keywords to search for, or "select:NAME1,NAME2" to fetch tools by exact name.
    pub(crate) query: String,
    /// How many matches to return at most, 1 to 100 (default 5).
    #[serde(default)]
    pub(crate) max_results: Option<MaxResults>,
}

/// `max_results`: an integer in 1..=100 (SPEC §3.1 with "How tool-sdk adapts" rule 3). Any
/// other number (0, 101, 2.5, even 5.0), or a non-number, is an input-validation error naming
/// the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MaxResults(u8);

impl MaxResults {
    /// The default, 5.
    pub const DEFAULT: Self = Self(5);
    /// The largest value, 100.
    pub const MAX: u8 = 100;

    /// `Some` for 1..=100.
    pub const fn new(value: u8) -> Option<Self> {
        if value >= 1 && value <= Self::MAX {
            Some(Self(value))
        } else {
            None
        }
    }

    /// The value.
    pub const fn get(self) -> usize {
        self.0 as usize
    }
}

const MAX_RESULTS_EXPECTED: &str = "an integer from 1 to 100";

impl<'de> Deserialize<'de> for MaxResults {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = MaxResults;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(MAX_RESULTS_EXPECTED)
            }

            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<MaxResults, E> {
                u8::try_from(value)
                    .ok()
                    .and_then(MaxResults::new)
                    .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Unsigned(value), &self))
            }

            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<MaxResults, E> {
                u64::try_from(value)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(value), &self))
                    .and_then(|value| self.visit_u64(value))
            }

            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<MaxResults, E> {
                Err(E::invalid_value(serde::de::Unexpected::Float(value), &self))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl JsonSchema for MaxResults {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("MaxResults")
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "integer", "minimum": 1, "maximum": 100})
    }
}

/// What a call needs and the host did not provide.
pub const MISSING_STATE: &str = "ToolSearch cannot search: the host did not put a SearchState (the tool pool) into the host state";

#[tool]
impl Tool for ToolSearch {
    type Output = ToolSearchOutput;

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<ToolSearchOutput>, ToolError> {
        let state = ctx
            .get::<SearchState>()
            .ok_or_else(|| ToolError::new(MISSING_STATE))?;
        let max_results = self.max_results.unwrap_or(MaxResults::DEFAULT).get();
        Ok(ToolResult::new(state.search(&self.query, max_results)))
    }

    fn map_result(output: ToolSearchOutput, _tool_use_id: &str) -> ToolResultContent {
        output.to_content()
    }

    fn user_facing_name(&self) -> Cow<'_, str> {
        Cow::Borrowed("")
    }
}

/// The ToolSearch tool as a pool holds it, with the prompt for `config`'s delta gate
/// (SPEC §3.1: the location sentence names `<system-reminder>` or
/// `<available-deferred-tools>`).
pub fn tool_search_tool(config: &ToolSearchConfig) -> Arc<dyn DynTool> {
    let inner = TypedTool::of::<ToolSearch>(None);
    if !config.deferred_delta {
        return Arc::new(inner);
    }
    Arc::new(WithPrompt {
        inner,
        prompt: tool_search_prompt(true),
    })
}

/// A tool with another prompt; everything else is the inner tool's: every [`DynTool`] method
/// but `prompt` delegates, so none falls back to a default that would drop what the inner tool
/// says (its output schema, its shared schema, its fast dispatch).
struct WithPrompt<T> {
    inner: T,
    prompt: String,
}

impl<T: DynTool> DynTool for WithPrompt<T> {
    fn meta(&self) -> &ToolMeta {
        self.inner.meta()
    }

    fn is_enabled(&self) -> bool {
        self.inner.is_enabled()
    }

    fn prompt(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.prompt)
    }

    fn input_schema(&self) -> &Value {
        self.inner.input_schema()
    }

    fn has_json_schema(&self) -> bool {
        self.inner.has_json_schema()
    }

    fn shared_input_schema(&self) -> Option<&'static Value> {
        self.inner.shared_input_schema()
    }

    fn output_schema(&self) -> Option<&Value> {
        self.inner.output_schema()
    }

    fn definition_site(&self) -> Option<DefinitionSite> {
        self.inner.definition_site()
    }

    fn parse_input(&self, input: &Value) -> Result<Box<dyn ToolCall>, InputError> {
        self.inner.parse_input(input)
    }

    fn dispatch<'c>(
        &self,
        input: &Value,
        ctx: &'c ToolUseContext,
    ) -> Result<BoxFuture<'c, Result<ToolOutput, ToolError>>, InputError> {
        self.inner.dispatch(input, ctx)
    }
}

/// Adds the ToolSearch tool ([`tool_search_tool`]) to `tools` when the optimistic gate of
/// `config` is on (SPEC §4.3) and no tool answers to `ToolSearch` yet. It goes where the pool
/// collation puts it among the leading built-in tools (before the first MCP tool, SPEC §7), so
/// a sorted pool stays sorted. Returns `true` when it was added.
pub fn insert_tool_search(tools: &mut Vec<Arc<dyn DynTool>>, config: &ToolSearchConfig) -> bool {
    if !config.is_enabled_optimistic()
        || tools
            .iter()
            .any(|tool| tool.meta().matches_name(TOOL_SEARCH_NAME))
    {
        return false;
    }
    let at = tools
        .iter()
        .position(|tool| {
            tool.name().starts_with("mcp__")
                || tool.meta().is_mcp
                || crate::pool::compare_tool_names(tool.name(), TOOL_SEARCH_NAME)
                    == Ordering::Greater
        })
        .unwrap_or(tools.len());
    tools.insert(at, tool_search_tool(config));
    true
}

impl ToolSearchConfig {
    /// Adds the ToolSearch tool to `tools` when the optimistic gate is on (SPEC §4.3) and no
    /// tool answers to `ToolSearch` yet, where the pool collation puts it among the leading
    /// built-in tools (before the first MCP tool, SPEC §7), so a sorted pool stays sorted.
    /// Returns `true` when it was added.
    pub fn insert_tool_search(&self, tools: &mut Vec<Arc<dyn DynTool>>) -> bool {
        insert_tool_search(tools, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prompt wrapper changes the prompt and nothing else a pool or an export reads.
    #[test]
    fn the_delta_prompt_keeps_everything_else_of_the_tool() {
        let plain = TypedTool::of::<ToolSearch>(None);
        let config = ToolSearchConfig {
            deferred_delta: true,
            ..ToolSearchConfig::default()
        };
        let wrapped = tool_search_tool(&config);
        assert_ne!(wrapped.prompt(), plain.prompt());
        assert_eq!(wrapped.prompt(), tool_search_prompt(true));
        assert_eq!(wrapped.name(), plain.name());
        assert_eq!(wrapped.input_schema(), plain.input_schema());
        assert_eq!(wrapped.output_schema(), plain.output_schema());
        assert_eq!(wrapped.has_json_schema(), plain.has_json_schema());
        let shared = |tool: &dyn DynTool| tool.shared_input_schema().map(std::ptr::from_ref);
        assert!(shared(&plain).is_some());
        assert_eq!(shared(wrapped.as_ref()), shared(&plain));
        assert_eq!(wrapped.definition_site(), plain.definition_site());
    }
}
