//! [`OutputMode`]: what Grep reports.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

/// What Grep reports (`output_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// Matching lines, `path:line:text`, with optional context lines `path-line-text`.
    Content,
    /// The paths of files with at least one match (the default).
    #[default]
    FilesWithMatches,
    /// `path:count` per file with matches, then a total.
    Count,
}

/// A plain string enum, as in Claude Code's schema. (A derived schema would be a `oneOf`
/// of documented constants, because the variants carry docs.)
impl JsonSchema for OutputMode {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("OutputMode")
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "enum": ["content", "files_with_matches", "count"],
        })
    }
}
