//! The example tools' exported input schemas against Claude Code's real ones in
//! `../shared/fixtures/claude-code-tool-schemas.json` (the 2.x sets): the same properties,
//! the same required ones, compatible types and the same enum values. Skips, saying so, when
//! the fixture is absent.

mod common;

use std::collections::BTreeSet;

use serde_json::Value;
use std::sync::Arc;

use tool_sdk::DynTool;

fn fixture() -> Option<Value> {
    let path = common::fixtures_dir().join("claude-code-tool-schemas.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(serde_json::from_str(&text).expect("the fixture is JSON")),
        Err(_) => {
            eprintln!(
                "SKIPPED: {} is absent, so no schema was compared with Claude Code's",
                path.display()
            );
            None
        }
    }
}

/// The reference's schema for `name` in the 2.x sets: the primary set (2.0.36) first, then
/// the 2.1.45 variant.
fn reference_schema<'a>(fixture: &'a Value, name: &str) -> Option<&'a Value> {
    let primary = fixture["tools"].as_array().into_iter().flatten();
    let newer = fixture["version_variants"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|variant| {
            variant["claude_code_version"]
                .as_str()
                .is_some_and(|version| version.starts_with('2'))
        })
        .flat_map(|variant| variant["tools"].as_array().into_iter().flatten());
    primary
        .chain(newer)
        .find(|tool| tool["name"] == name)
        .map(|tool| &tool["input_schema"])
}

fn keys(schema: &Value) -> BTreeSet<String> {
    schema["properties"]
        .as_object()
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

fn required(schema: &Value) -> BTreeSet<String> {
    schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|name| name.as_str().map(str::to_owned))
        .collect()
}

/// Differences between our property schema and the reference's, at `path`.
fn compare(path: &str, ours: &Value, theirs: &Value, problems: &mut Vec<String>) {
    let (our_type, their_type) = (&ours["type"], &theirs["type"]);
    // An integer is a number: our line counts are integers where 2.0.36 says `number`.
    let compatible = our_type == their_type || (our_type == "integer" && their_type == "number");
    if !compatible {
        problems.push(format!(
            "{path}: type {our_type} where the reference has {their_type}"
        ));
    }
    if ours.get("enum") != theirs.get("enum") {
        problems.push(format!(
            "{path}: enum {:?} where the reference has {:?}",
            ours.get("enum"),
            theirs.get("enum")
        ));
    }
    if theirs.get("default").is_some() && ours.get("default") != theirs.get("default") {
        problems.push(format!("{path}: default differs"));
    }
    if theirs["type"] == "object" {
        compare_object(path, ours, theirs, problems);
    }
    if theirs["type"] == "array" {
        compare(
            &format!("{path}[]"),
            &ours["items"],
            &theirs["items"],
            problems,
        );
    }
}

fn compare_object(path: &str, ours: &Value, theirs: &Value, problems: &mut Vec<String>) {
    if keys(ours) != keys(theirs) {
        problems.push(format!(
            "{path}: properties {:?} where the reference has {:?}",
            keys(ours),
            keys(theirs)
        ));
    }
    if required(ours) != required(theirs) {
        problems.push(format!(
            "{path}: required {:?} where the reference has {:?}",
            required(ours),
            required(theirs)
        ));
    }
    if theirs["additionalProperties"] == false && ours["additionalProperties"] != false {
        problems.push(format!("{path}: additional properties are allowed"));
    }
    for key in keys(theirs).intersection(&keys(ours)) {
        compare(
            &format!("{path}.{key}"),
            &ours["properties"][key],
            &theirs["properties"][key],
            problems,
        );
    }
}

#[test]
fn every_example_tool_takes_the_reference_input() {
    let Some(fixture) = fixture() else { return };
    let tools: Vec<Arc<dyn DynTool>> = tool_examples::tools::all();
    let mut problems = Vec::new();
    let mut compared = Vec::new();
    for tool in &tools {
        let meta = tool.meta();
        let found = std::iter::once(meta.name.as_ref())
            .chain(meta.aliases.iter().map(AsRef::as_ref))
            .find_map(|name| reference_schema(&fixture, name).map(|schema| (name, schema)));
        let Some((reference_name, theirs)) = found else {
            problems.push(format!(
                "{}: no reference schema in the 2.x sets",
                meta.name
            ));
            continue;
        };
        compare_object(
            &format!("{} (reference {reference_name})", meta.name),
            tool.input_schema(),
            theirs,
            &mut problems,
        );
        compared.push(meta.name.to_string());
    }
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(compared.len(), 9, "{compared:?}");
}
