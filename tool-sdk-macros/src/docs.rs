//! The "Tool" section `#[tool]` appends to the input struct's rustdoc.

use crate::attr::{FlagValue, MaxSize};
use crate::valid::Model;

/// Markdown lines for the section, one `#[doc]` attribute each.
pub(crate) fn tool_section(model: &Model<'_>) -> Vec<String> {
    let mut lines = vec![
        String::new(),
        "# Tool".to_owned(),
        String::new(),
        format!("Registered with `#[tool]` as **`{}`**.", model.name),
        String::new(),
        "| property | value |".to_owned(),
        "|---|---|".to_owned(),
    ];
    if !model.aliases.is_empty() {
        let aliases: Vec<String> = model.aliases.iter().map(|a| format!("`{a}`")).collect();
        lines.push(format!("| aliases | {} |", aliases.join(", ")));
    }
    lines.push(format!(
        "| read-only | {} |",
        flag_cell(model.read_only.as_ref())
    ));
    lines.push(format!(
        "| concurrency-safe | {} |",
        flag_cell(model.concurrency_safe.as_ref())
    ));
    lines.push(format!(
        "| destructive | {} |",
        flag_cell(model.destructive.as_ref())
    ));
    lines.push(format!(
        "| result size limit | {} |",
        match model.max_result_size_chars {
            MaxSize::Chars(chars) => format!("{chars} chars"),
            MaxSize::Unbounded => "unbounded (never persisted)".to_owned(),
        }
    ));
    if let Some(hint) = &model.search_hint {
        lines.push(format!("| search hint | {hint} |"));
    }
    lines.push(format!(
        "| deferred | {} |",
        if model.should_defer {
            "yes: loaded through ToolSearch"
        } else {
            "no (default)"
        }
    ));
    if model.always_load {
        lines.push("| always load | yes |".to_owned());
    }
    if model.strict {
        lines.push("| strict schema | yes |".to_owned());
    }
    if let Some(path) = &model.enabled_if {
        lines.push(format!(
            "| registered | when `{}()` returns `true` at collection |",
            path_text(path)
        ));
    }
    if model.test_only {
        lines.push("| registered | in test environments only |".to_owned());
    }
    if !model.examples.is_empty() {
        lines.push(String::new());
        lines.push("Example inputs (exported as Anthropic `input_examples`):".to_owned());
        for example in &model.examples {
            lines.push(String::new());
            lines.push("```json".to_owned());
            lines.extend(example.value().trim().lines().map(str::to_owned));
            lines.push("```".to_owned());
        }
    }
    lines
}

fn flag_cell(flag: Option<&FlagValue>) -> String {
    match flag {
        None => "no (default, not declared)".to_owned(),
        Some(FlagValue::Const { value: true, .. }) => "yes".to_owned(),
        Some(FlagValue::Const { value: false, .. }) => "no".to_owned(),
        Some(FlagValue::Method(path)) => format!("per input: `{}`", path_text(path)),
    }
}

fn path_text(path: &syn::Path) -> String {
    quote::ToTokens::to_token_stream(path)
        .to_string()
        .replace(' ', "")
}
