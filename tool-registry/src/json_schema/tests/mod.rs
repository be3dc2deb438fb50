//! Parsing as a whole: the check's issues, serde's refusals and their paths, against
//! serde_json and serde_path_to_error reading the same inputs.

use std::fmt;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use tool_sdk::input::{InputError, InputIssue, InputValidator, serde_issue};
use tool_sdk::schema::input_schema_for;

mod structs;
use tool_sdk::tool::InputOf;

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Todo {
    content: String,
    #[serde(rename = "activeForm")]
    active_form: String,
    status: Option<Status>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Status {
    Pending,
    Done,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Todos {
    todos: Vec<Todo>,
    limit: Option<u32>,
    ratio: Option<f64>,
}

fn parse_as<T: DeserializeOwned + JsonSchema>(input: Value) -> Result<T, InputError> {
    let validator = InputValidator::native(input_schema_for::<T>());
    validator
        .parse::<InputOf<T>>(&input)
        .map(|InputOf(parsed)| parsed)
}

fn todos(input: Value) -> Result<Todos, InputError> {
    parse_as::<Todos>(input)
}

#[test]
fn nested_missing_field_has_a_json_path() {
    let error = todos(json!({"todos":[{"content":"x"}]})).unwrap_err();
    assert_eq!(
        error.issues(),
        [InputIssue::Missing {
            path: "todos[0].activeForm".into()
        }]
    );
}

#[test]
fn every_issue_is_reported_in_order_missing_unexpected_mismatch() {
    let error = todos(json!({
        "todos": [{"content": 1}, {"activeForm": "y"}],
        "limit": 2.5,
        "ratio": "high",
        "extra": 1
    }))
    .unwrap_err();
    assert_eq!(
        error.format_for("TodoWrite"),
        "TodoWrite cannot run because of the following input issues:\n\
         Required parameter `todos[0].activeForm` is missing\n\
         Required parameter `todos[1].content` is missing\n\
         Parameter `extra` is not part of the input schema (accepted: `todos`, `limit`, `ratio`)\n\
         Parameter `todos[0].content` must be of type `string`, but a value of type `number` was provided\n\
         Parameter `limit` must be of type `integer`, but a value of type `number` was provided\n\
         Parameter `ratio` must be of type `number`, but a value of type `string` was provided"
    );
}

#[test]
fn out_of_range_numbers_are_explained_without_rust_types() {
    let error = todos(json!({"todos": [], "limit": -1})).unwrap_err();
    assert_eq!(
        error.format_for("T"),
        "T cannot run because of the following input issue:\n\
         Parameter `limit`: got -1, but an integer from 0 to 4294967295 is required"
    );
}

#[test]
fn a_non_object_input_is_a_mismatch() {
    let error = todos(json!([1])).unwrap_err();
    assert_eq!(
        error.format_for("T"),
        "T cannot run because of the following input issue:\n\
         Parameter `(input)` must be of type `object`, but a value of type `array` was provided"
    );
}

#[test]
fn an_explicit_null_for_an_optional_field_is_absent_but_not_for_a_required_one() {
    let parsed = todos(json!({"todos": [], "limit": null, "ratio": null})).unwrap();
    assert_eq!((parsed.limit, parsed.ratio), (None, None));
    let error = todos(json!({"todos": null, "limit": null})).unwrap_err();
    assert_eq!(
        error.format_for("T"),
        "T cannot run because of the following input issue:\n\
         Parameter `todos` must be of type `array`, but a value of type `null` was provided"
    );
}

#[test]
fn an_unknown_enum_value_deep_in_an_array_is_located() {
    let input = json!({"todos": [
        {"content": "a", "activeForm": "b"},
        {"content": "a", "activeForm": "b", "status": "later"}
    ]});
    let error = todos(input).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Parameter `todos[1].status`: \"later\" is not one of \"pending\" or \"done\""
    );
}

/// How a count is made; documented variants, which schemars writes as one `const` branch of a
/// `oneOf` each, not as an `enum`.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    /// Count words.
    Words,
    /// Count characters.
    Chars,
    /// Count lines.
    Lines,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Counting {
    mode: Mode,
}

/// A value that is none of the documented variants is told as an `enum`'s is, every accepted
/// value listed (not as the first branch's `const`).
#[test]
fn an_unknown_value_of_documented_variants_lists_every_accepted_value() {
    let schema = input_schema_for::<Counting>();
    assert!(schema.to_string().contains("\"oneOf\""), "{schema}");
    let error = parse_as::<Counting>(json!({"mode": "pages"})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Parameter `mode`: \"pages\" is not one of \"words\", \"chars\" or \"lines\""
    );
    assert_eq!(
        parse_as::<Counting>(json!({"mode": "chars"})).unwrap(),
        Counting { mode: Mode::Chars }
    );
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Plain {
    pattern: String,
    path: Option<String>,
    hidden: Option<bool>,
    weight: Option<f64>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(transparent)]
struct MaybePlain {
    inner: Option<Plain>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Nested {
    file: String,
    edits: Vec<Checked>,
    tags: std::collections::BTreeMap<String, u8>,
    pair: Option<(String, i8)>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Checked {
    other: String,
    #[serde(deserialize_with = "not_empty")]
    pattern: String,
}

fn not_empty<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    if text.is_empty() {
        return Err(serde::de::Error::custom("must not be empty"));
    }
    Ok(text)
}

/// Our reading against serde_json's: the same value when both accept; when serde refuses, the
/// same message at the path serde_path_to_error reports.
fn agrees_with_serde_json<T>(input: Value)
where
    T: DeserializeOwned + JsonSchema + PartialEq + fmt::Debug,
{
    let schema = input_schema_for::<T>();
    let check = InputValidator::native(schema.clone());
    // The policy's reading (nulls of optional fields dropped) is what serde then reads.
    let Ok(input) = check.validate(input) else {
        return;
    };
    let ours = check
        .parse::<InputOf<T>>(&input)
        .map(|InputOf(parsed)| parsed);
    let reference = serde_path_to_error::deserialize::<_, T>(&input);
    match (ours, reference) {
        (Ok(ours), Ok(reference)) => assert_eq!(ours, reference, "{input}"),
        (Err(ours), Err(reference)) => {
            let path = reference.path().to_string();
            let expected = serde_issue(&path, &reference.inner().to_string());
            assert_eq!(ours.issues(), [expected], "{input}");
        }
        (ours, reference) => panic!("{input}: {ours:?} against {reference:?}"),
    }
}

#[test]
fn reading_by_value_agrees_with_serde_json() {
    for input in [
        json!({"pattern": "*.rs"}),
        json!({"pattern": "*.rs", "path": "src", "hidden": true, "weight": 0.5}),
        json!({"pattern": "*.rs", "weight": 2}),
    ] {
        agrees_with_serde_json::<Plain>(input.clone());
        agrees_with_serde_json::<MaybePlain>(input);
    }
    let edit = |pattern: &str| json!({"other": "a", "pattern": pattern});
    for input in [
        json!({"file": "f", "edits": [edit("x"), edit("y")], "tags": {"a": 1}}),
        json!({"file": "f", "edits": [edit("x"), edit("")], "tags": {}}),
        json!({"file": "f", "edits": [], "tags": {"a": 300}}),
        json!({"file": "f", "edits": [], "tags": {}, "pair": ["x", 1]}),
        json!({"file": "f", "edits": [], "tags": {}, "pair": ["x", 1000]}),
        json!({"file": "f", "edits": [], "tags": {}, "pair": ["x", 1, 2]}),
    ] {
        agrees_with_serde_json::<Nested>(input);
    }
    for input in [
        json!({"todos": [{"content": "a", "activeForm": "b", "status": "done"}], "limit": 3}),
        json!({"todos": [{"content": "a", "activeForm": "b", "status": "no"}]}),
        json!({"todos": [], "limit": 5_000_000_000u64}),
        json!({"todos": [], "ratio": -1.5}),
    ] {
        agrees_with_serde_json::<Todos>(input);
    }
}

#[test]
fn a_refusal_inside_an_array_keeps_its_full_path() {
    let edits = json!([{"other": "a", "pattern": "b"}, {"other": "c", "pattern": ""}]);
    let input = json!({"file": "f", "edits": edits, "tags": {}});
    let error = parse_as::<Nested>(input).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Parameter `edits[1].pattern`: must not be empty"
    );
}

#[test]
fn a_root_option_inside_a_transparent_input_is_read_as_serde_json_reads_it() {
    let parsed = parse_as::<MaybePlain>(json!({"pattern": "*.rs", "hidden": false})).unwrap();
    assert_eq!(parsed.inner.unwrap().hidden, Some(false));
}

/// Reads the first entry of an object and stops.
#[derive(Debug, PartialEq, JsonSchema)]
struct FirstOnly;

impl<'de> Deserialize<'de> for FirstOnly {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = FirstOnly;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<FirstOnly, A::Error> {
                map.next_entry::<String, String>()?;
                Ok(FirstOnly)
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

#[test]
fn a_visitor_that_stops_early_is_refused_as_serde_json_refuses_it() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}}
    });
    let check = InputValidator::native(schema.clone());
    let input = json!({"a": "x", "b": "y"});
    let ours = check.parse::<FirstOnly>(&input).unwrap_err();
    let reference = serde_json::from_value::<FirstOnly>(input).unwrap_err();
    assert_eq!(ours.to_string(), reference.to_string());
    assert!(check.parse::<FirstOnly>(&json!({"a": "x"})).is_ok());
}

#[test]
fn a_refusal_of_a_top_level_property_names_it() {
    let error = parse_as::<Checked>(json!({"other": "x", "pattern": ""})).unwrap_err();
    assert_eq!(error.to_string(), "Parameter `pattern`: must not be empty");
}

#[test]
fn a_valid_input_parses() {
    let parsed =
        todos(json!({"todos": [{"content": "a", "activeForm": "b"}], "limit": 3})).unwrap();
    assert_eq!(parsed.limit, Some(3));
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
struct Id(String);

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Keyed {
    by_id: Option<std::collections::BTreeMap<Id, u8>>,
    by_flag: Option<std::collections::BTreeMap<bool, u8>>,
    by_number: Option<std::collections::BTreeMap<u32, u8>>,
    by_small: Option<std::collections::BTreeMap<u8, u8>>,
    by_float: Option<std::collections::BTreeMap<i64, Vec<f32>>>,
}

/// Our reading of `input` as `Keyed` against serde_json's, past a check that accepts any
/// object (the schema check does not read the patterns of `patternProperties`, which schemars
/// writes for number-keyed maps).
fn keys_agree(input: Value) {
    let check = InputValidator::native(json!({"type": "object"}));
    let ours = check
        .parse::<InputOf<Keyed>>(&input)
        .map(|InputOf(parsed)| parsed);
    match (ours, serde_json::from_value::<Keyed>(input.clone())) {
        (Ok(ours), Ok(reference)) => assert_eq!(ours, reference, "{input}"),
        // A refused key is reported at its object (serde_path_to_error says `by_flag.?`),
        // with serde_json's message less the position in the key's text it gives.
        (Err(ours), Err(reference)) => {
            let field = input.as_object().unwrap().keys().next().unwrap();
            let message = reference.to_string();
            let message = message.split(" at line ").next().unwrap();
            let expected = serde_issue(field, message);
            assert_eq!(ours.issues(), [expected], "{input}");
        }
        (ours, reference) => panic!("{input}: {ours:?} against {reference:?}"),
    }
}

#[test]
fn object_keys_are_read_as_serde_json_reads_them() {
    for input in [
        json!({"by_id": {"a": 1, "b": 2}}),
        json!({"by_flag": {"true": 1, "false": 0}}),
        json!({"by_number": {"7": 1, "4000000000": 2}}),
        json!({"by_float": {"-3": [0.5]}}),
        json!({"by_flag": {"yes": 1}}),
        json!({"by_number": {"-1": 1}}),
        json!({"by_number": {"x": 1}}),
        json!({"by_number": {"1.5": 1}}),
        json!({"by_small": {"300": 1}}),
    ] {
        keys_agree(input);
    }
    let check = InputValidator::native(json!({"type": "object"}));
    let InputOf(parsed) = check
        .parse::<InputOf<Keyed>>(&json!({"by_number": {"7": 1}, "by_id": {"a": 2}}))
        .unwrap();
    assert_eq!(parsed.by_number.unwrap()[&7], 1);
    assert_eq!(parsed.by_id.unwrap()[&Id("a".into())], 2);
    let error = check
        .parse::<InputOf<Keyed>>(&json!({"by_number": {"x": 1}}))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "Parameter `by_number`: expected key to be a number in quotes"
    );
    // Through the type's own schema, whose number-keyed maps have `patternProperties`.
    let parsed = parse_as::<Keyed>(json!({"by_number": {"7": 1}, "by_small": {"3": 4}})).unwrap();
    assert_eq!(parsed.by_small.unwrap()[&3], 4);
    let error = parse_as::<Keyed>(json!({"by_small": {"300": 1}})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Parameter `by_small`: got 300, but a whole number from 0 to 255 is required"
    );
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
enum Action {
    Stop,
    Move { x: u8, y: Option<u8> },
    Say(String),
    Pair(u8, u8),
    Empty(),
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Act {
    action: Action,
    then: Option<Vec<Action>>,
}

#[test]
fn a_refusal_inside_an_enum_variant_is_located_under_the_variant() {
    for input in [
        json!({"action": "Stop"}),
        json!({"action": {"Move": {"x": 1, "y": 2}}}),
        json!({"action": {"Move": {"x": 300}}}),
        json!({"action": {"Say": "hi"}}),
        json!({"action": {"Pair": [1, 2]}}),
        json!({"action": {"Pair": [1, 999]}}),
        json!({"action": {"Empty": []}}),
        json!({"action": "Stop", "then": [{"Say": "a"}, {"Move": {"x": -1}}]}),
    ] {
        agrees_with_serde_json::<Act>(input);
    }
    let error = parse_as::<Act>(json!({"action": {"Move": {"x": 300}}})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Parameter `action.Move.x`: got 300, but an integer from 0 to 255 is required"
    );
}

#[derive(Debug, PartialEq, Deserialize)]
struct Small {
    v: u8,
}

fn ok_or_none<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Small>, D::Error> {
    Ok(Small::deserialize(deserializer).ok())
}

/// Accepts any value by ignoring it; only a reader that drops ignored values unread can give
/// it the unit it asks for.
#[derive(Debug, PartialEq)]
struct Skipped;

impl<'de> Deserialize<'de> for Skipped {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Skipped;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Skipped, E> {
                Ok(Skipped)
            }
        }
        deserializer.deserialize_ignored_any(Visitor)
    }
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Lenient {
    #[serde(default, deserialize_with = "ok_or_none")]
    #[schemars(with = "Option<Value>")]
    soft: Option<Small>,
    #[schemars(with = "Value")]
    skipped: Skipped,
    hard: Option<u8>,
}

#[test]
fn ignored_values_are_dropped_unread() {
    for input in [
        json!({"soft": {"v": "bad"}, "skipped": {"a": [1]}, "hard": 1}),
        json!({"soft": [{"v": 1}], "skipped": "x", "hard": 1}),
        json!({"soft": {"v": 2}, "skipped": 3}),
    ] {
        agrees_with_serde_json::<Lenient>(input);
    }
}

#[test]
fn a_caught_refusal_leaves_no_steps_in_a_later_path() {
    agrees_with_serde_json::<Lenient>(json!({"soft": {"v": "bad"}, "skipped": null}));
    // serde_path_to_error itself keeps the caught step here (`soft.v`), so the path is
    // checked on its own.
    // The schema refuses 300 first; serde's own refusal is read with a permissive schema.
    let permissive = InputValidator::native(json!({"type": "object"}));
    let unchecked = |input| {
        permissive
            .parse::<InputOf<Lenient>>(&input)
            .map(|InputOf(l)| l)
    };
    let input = json!({"soft": {"v": "bad"}, "skipped": null, "hard": 300});
    let error = unchecked(input).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Parameter `hard`: got 300, but a whole number from 0 to 255 is required"
    );
    let input = json!({"soft": [{"v": "bad"}], "skipped": null, "hard": 300});
    let error = unchecked(input).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Parameter `hard`: got 300, but a whole number from 0 to 255 is required"
    );
}
