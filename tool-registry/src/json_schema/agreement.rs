//! Schema and runtime agree: for the shapes schemars writes for common Rust inputs, a value the
//! exported schema accepts (judged by an independent 2020-12 validator) is accepted by the
//! runtime, and a value it refuses is refused with an issue naming the field. Values come
//! from the schema itself: a generator walks it and writes mostly valid values with
//! mistakes mixed in, driven by proptest seeds.

#![allow(dead_code, reason = "the shapes are only deserialized, never read")]

use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

use proptest::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use tool_sdk::input::{InputIssue, InputValidator, policy};
use tool_sdk::schema::input_schema_for;
use tool_sdk::tool::InputOf;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Fast,
    Slow,
}

#[derive(Debug, Deserialize, JsonSchema)]
enum Shape {
    Dot,
    Circle(u8),
    Rect { w: u16, h: u16 },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Tagged {
    Text { body: String },
    Count { n: i8 },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Loose {
    Number(u32),
    Words(Vec<String>),
    Named { name: String },
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Inner {
    label: String,
    weight: Option<f64>,
}

/// Every shape in one input, so one generator run mixes them.
#[derive(Debug, Deserialize, JsonSchema)]
struct Everything {
    mode: Mode,
    shape: Option<Shape>,
    tagged: Option<Tagged>,
    loose: Option<Loose>,
    inner: Option<Inner>,
    by_name: Option<HashMap<String, u8>>,
    by_number: Option<BTreeMap<u32, String>>,
    pair: Option<(u8, String)>,
    list: Option<Vec<i16>>,
    any: Option<Value>,
    #[serde(default)]
    flag: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
enum Action {
    Move { x: i32 },
    Say { text: String },
    Stop,
}

/// A flattened enum: the root combines branches.
#[derive(Debug, Deserialize, JsonSchema)]
struct Flattened {
    id: u8,
    #[serde(flatten)]
    action: Action,
}

/// A recursive type: the schema refers to itself.
#[derive(Debug, Deserialize, JsonSchema)]
struct Tree {
    name: String,
    children: Option<Vec<Tree>>,
}

/// A small deterministic generator (xorshift), seeded by proptest.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap_or(0)
    }

    /// `true` one time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// A value that is not what `schema` asks for, of some other kind.
fn mistake(dice: &mut Dice) -> Value {
    [
        json!(null),
        json!(true),
        json!(-1),
        json!(2.5),
        json!(3.0),
        json!(4_294_967_296_u64),
        json!("x"),
        json!(""),
        json!([1]),
        json!({"zz": 1}),
    ][dice.below(10)]
    .clone()
}

/// A value for `schema` (resolving local `$ref`s in `root`), with a mistake one time in 12.
fn generate(schema: &Value, root: &Value, dice: &mut Dice, depth: usize) -> Value {
    if dice.one_in(12) || depth > 6 {
        return mistake(dice);
    }
    let Some(keywords) = schema.as_object() else {
        return mistake(dice);
    };
    if let Some(target) = keywords.get("$ref").and_then(Value::as_str) {
        let target = root
            .pointer(target.trim_start_matches('#'))
            .unwrap_or(&Value::Null);
        return generate(target, root, dice, depth + 1);
    }
    for combinator in ["oneOf", "anyOf"] {
        if let Some(branches) = keywords.get(combinator).and_then(Value::as_array) {
            let branch = &branches[dice.below(branches.len())];
            let mut value = generate(branch, root, dice, depth + 1);
            // A root that combines branches has its own properties too.
            if let (Value::Object(map), Some(Value::Object(own))) =
                (&mut value, keywords.get("properties"))
            {
                let own = generate(
                    &json!({"type": "object", "properties": own, "required": keywords.get("required").cloned().unwrap_or(json!([]))}),
                    root,
                    dice,
                    depth + 1,
                );
                if let Value::Object(own) = own {
                    map.extend(own);
                }
            }
            return value;
        }
    }
    if let Some(values) = keywords.get("enum").and_then(Value::as_array) {
        return values[dice.below(values.len())].clone();
    }
    if let Some(constant) = keywords.get("const") {
        return constant.clone();
    }
    let kind = match keywords.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds[dice.below(kinds.len())].as_str().unwrap_or("null"),
        _ => ["string", "integer", "object"][dice.below(3)],
    };
    match kind {
        "null" => Value::Null,
        "boolean" => Value::Bool(dice.one_in(2)),
        "integer" => {
            let min = keywords
                .get("minimum")
                .and_then(Value::as_i64)
                .unwrap_or(-50);
            let max = keywords
                .get("maximum")
                .and_then(Value::as_i64)
                .unwrap_or(50);
            let span = usize::try_from((max - min).clamp(0, 1000)).unwrap_or(0);
            // Sometimes just outside the range.
            let offset = i64::try_from(dice.below(span + 3)).unwrap_or(0) - 1;
            json!(min + offset)
        }
        "number" => json!(f64::from(u32::try_from(dice.below(100)).unwrap_or(0)) / 4.0),
        "string" => json!(["a", "fast", "7", "body", "  "][dice.below(5)]),
        "array" => {
            let length = dice.below(4);
            let prefix = keywords.get("prefixItems").and_then(Value::as_array);
            let length = prefix.map_or(
                length,
                |prefix| {
                    if dice.one_in(8) { length } else { prefix.len() }
                },
            );
            Value::Array(
                (0..length)
                    .map(|index| {
                        let item = prefix
                            .and_then(|prefix| prefix.get(index))
                            .or_else(|| keywords.get("items"))
                            .unwrap_or(&Value::Bool(true));
                        generate(item, root, dice, depth + 1)
                    })
                    .collect(),
            )
        }
        _ => object(keywords, root, dice, depth),
    }
}

fn object(keywords: &Map<String, Value>, root: &Value, dice: &mut Dice, depth: usize) -> Value {
    let mut map = Map::new();
    let required = tool_sdk::schema::required_names(keywords);
    if let Some(properties) = keywords.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            let include = if required.contains(name) {
                !dice.one_in(15)
            } else {
                dice.one_in(2)
            };
            if include {
                let value = if !required.contains(name) && dice.one_in(6) {
                    Value::Null
                } else {
                    generate(property, root, dice, depth + 1)
                };
                map.insert(name.clone(), value);
            }
        }
    }
    let values = keywords
        .get("patternProperties")
        .and_then(Value::as_object)
        .and_then(|patterns| patterns.values().next())
        .or_else(|| {
            keywords
                .get("additionalProperties")
                .filter(|extra| extra.is_object())
        });
    if let Some(values) = values {
        // Keys inside the range of every integer key type: schemars writes the same pattern
        // (`^\d+$`) for every unsigned key type, so a key too large for `u32` passes the
        // schema and only the runtime refuses it (`key_beyond_the_key_type_is_named`).
        for _ in 0..dice.below(3) {
            let key = ["0", "7", "42", "x", "-1"][dice.below(5)];
            map.insert(key.to_owned(), generate(values, root, dice, depth + 1));
        }
    }
    if dice.one_in(10) {
        map.insert("unknown".to_owned(), json!(1));
    }
    Value::Object(map)
}

/// One value against one type: the schema's answer (after the policy's reading) and the
/// runtime's agree, and a refusal names a field.
fn agree<T: DeserializeOwned + JsonSchema>(judges: &Judges, input: Value) {
    let mut read = input.clone();
    policy::apply(&mut read, &judges.schema);
    let schema_says = judges.reference.is_valid(&read);
    let runtime = judges.runtime.parse::<InputOf<T>>(&input);
    match (&runtime, schema_says) {
        (Ok(_), true) => {}
        (Err(error), false) => {
            for issue in error.issues() {
                let path = match issue {
                    InputIssue::Missing { path }
                    | InputIssue::Unexpected { path, .. }
                    | InputIssue::TypeMismatch { path, .. }
                    | InputIssue::Other { path, .. } => path,
                };
                assert!(
                    !path.is_empty(),
                    "{input}: an issue without a field: {issue}"
                );
            }
        }
        (runtime, schema_says) => panic!(
            "{input}: the schema says {schema_says}, the runtime {:?}",
            runtime.as_ref().map(|_| ()).map_err(ToString::to_string)
        ),
    }
}

/// The pair under test: the runtime's validator and an independent 2020-12 validator of the
/// same exported schema.
struct Judges {
    schema: Value,
    runtime: InputValidator,
    reference: jsonschema::Validator,
}

impl Judges {
    fn of<T: JsonSchema>() -> Self {
        let schema = input_schema_for::<T>();
        let reference = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .unwrap();
        Self {
            runtime: InputValidator::native(schema.clone()),
            schema,
            reference,
        }
    }
}

fn check_type<T: DeserializeOwned + JsonSchema>(judges: &Judges, seed: u64) {
    let mut dice = Dice(seed | 1);
    for _ in 0..16 {
        let input = generate(&judges.schema, &judges.schema, &mut dice, 0);
        agree::<T>(judges, input);
    }
}

static EVERYTHING: LazyLock<Judges> = LazyLock::new(Judges::of::<Everything>);
static FLATTENED: LazyLock<Judges> = LazyLock::new(Judges::of::<Flattened>);
static TREE: LazyLock<Judges> = LazyLock::new(Judges::of::<Tree>);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn generated_values_agree_for_every_shape(seed in any::<u64>()) {
        check_type::<Everything>(&EVERYTHING, seed);
        check_type::<Flattened>(&FLATTENED, seed);
        check_type::<Tree>(&TREE, seed);
    }
}

#[test]
fn hand_written_values_agree() {
    let everything = Judges::of::<Everything>();
    for input in [
        json!({"mode": "fast"}),
        json!({"mode": "later"}),
        json!({"mode": "fast", "shape": "Dot", "tagged": {"kind": "count", "n": 3}}),
        json!({"mode": "fast", "shape": {"Rect": {"w": 1, "h": 70000}}}),
        json!({"mode": "fast", "tagged": {"kind": "text"}}),
        json!({"mode": "fast", "loose": 3}),
        json!({"mode": "fast", "loose": ["a", "b"]}),
        json!({"mode": "fast", "loose": {"name": "n"}}),
        json!({"mode": "fast", "loose": true}),
        json!({"mode": "fast", "by_number": {"7": "x", "42": "y"}}),
        json!({"mode": "fast", "by_number": {"x": "y"}}),
        json!({"mode": "fast", "by_name": {"a": 1, "b": 256}}),
        json!({"mode": "fast", "pair": [1, "a"]}),
        json!({"mode": "fast", "pair": [1, "a", 2]}),
        json!({"mode": "fast", "pair": ["a", 1]}),
        json!({"mode": "fast", "list": [1.0, -2], "any": {"k": [null]}}),
        json!({"mode": "fast", "inner": {"label": "l", "weight": null}, "flag": null}),
    ] {
        agree::<Everything>(&everything, input);
    }
    let flattened = Judges::of::<Flattened>();
    for input in [
        json!({"id": 1, "action": "move", "x": 3}),
        json!({"id": 1, "action": "stop"}),
        json!({"id": 1, "action": "say"}),
        json!({"id": 1, "action": "stop", "x": 3}),
        json!({"id": 1, "action": "jump"}),
        json!({"id": 1}),
    ] {
        agree::<Flattened>(&flattened, input);
    }
    let tree = Judges::of::<Tree>();
    for input in [
        json!({"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}),
        json!({"name": "a", "children": [{"name": "b", "children": [{"nom": "c"}]}]}),
    ] {
        agree::<Tree>(&tree, input);
    }
}

#[test]
fn key_beyond_the_key_type_is_named() {
    let schema = input_schema_for::<Everything>();
    let validator = InputValidator::native(schema);
    let input = json!({"mode": "fast", "by_number": {"4294967296": "x"}});
    let error = validator.parse::<InputOf<Everything>>(&input).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Parameter `by_number`: got 4294967296, but a whole number from 0 to 4294967295 is required"
    );
}

#[test]
fn a_value_field_exports_an_empty_schema_not_true() {
    let schema = input_schema_for::<Everything>();
    assert_eq!(schema["properties"]["any"], json!({}));
}
