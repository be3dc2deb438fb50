//! Structs read as serde_json reads them: from an object, refused otherwise, integral floats
//! read as integers where JSON Schema takes them.

use super::*;

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Inner {
    x: u8,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Outer {
    inner: Inner,
}

/// A struct is read from an object and refused otherwise, as serde_json refuses it (the same
/// issue), whatever the value: past a check that accepts any object, so that serde meets it.
/// serde_json also reads a struct from an array of its fields; the typed reader refuses one,
/// as it refuses any other value that is not an object.
#[test]
fn a_struct_is_read_from_an_object_and_refused_as_serde_json_refuses() {
    let check = InputValidator::native(json!({"type": "object"}));
    for inner in [
        json!(5),
        json!(-5),
        json!(1.5),
        json!("text"),
        json!(true),
        json!(null),
        json!([7]),
        json!([7, 8]),
        json!([]),
        json!({"x": 9}),
        json!({"x": 9, "y": 1}),
    ] {
        let input = json!({ "inner": inner });
        let ours = check
            .parse::<InputOf<Outer>>(&input)
            .map(|InputOf(parsed)| parsed);
        if inner.is_array() {
            let expected = serde_issue("inner", "invalid type: sequence, expected struct Inner");
            assert_eq!(ours.unwrap_err().issues(), [expected], "{input}");
            continue;
        }
        match (ours, serde_json::from_value::<Outer>(input.clone())) {
            (Ok(ours), Ok(reference)) => assert_eq!(ours, reference, "{input}"),
            (Err(ours), Err(reference)) => {
                let expected = serde_issue("inner", &reference.to_string());
                assert_eq!(ours.issues(), [expected], "{input}");
            }
            (ours, reference) => panic!("{input}: {ours:?} against {reference:?}"),
        }
    }
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct FilePath {
    root: String,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Located {
    at: FilePath,
}

/// A refused struct is an object expected, whatever its name says (`FilePath` is no string).
#[test]
fn a_refused_struct_is_an_object_expected_whatever_its_name() {
    let check = InputValidator::native(json!({"type": "object"}));
    for (value, kind) in [
        (json!(5), "number"),
        (json!(["a"]), "array"),
        (json!("a"), "string"),
    ] {
        let error = check
            .parse::<InputOf<Located>>(&json!({ "at": value }))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "Parameter `at` must be of type `object`, but a value of type `{kind}` was provided"
            )
        );
    }
}

/// Under the struct's own schema, an array where a struct is expected never reaches serde:
/// the schema check refuses it as it refuses any other value of the wrong type.
#[test]
fn a_struct_sent_as_an_array_is_refused_by_its_schema() {
    let check = InputValidator::native(serde_json::to_value(schemars::schema_for!(Outer)).unwrap());
    let error = check
        .parse::<InputOf<Outer>>(&json!({"inner": [7]}))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "Parameter `inner` must be of type `object`, but a value of type `array` was provided"
    );
}

/// A schema the plain check cannot read (`format`, `minimum`), with an optional property that
/// refuses `null`.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Counted {
    count: u32,
    #[serde(default)]
    step: u32,
    scale: Option<f64>,
}

#[test]
fn an_integral_float_reads_as_its_integer_where_the_full_validator_takes_it() {
    // Input policy rule 3: JSON Schema takes `3.0` as an integer, so the Rust type reads 3.
    assert_eq!(
        parse_as::<Counted>(json!({"count": 3.0, "scale": 2.0})).unwrap(),
        Counted {
            count: 3,
            step: 0,
            scale: Some(2.0)
        }
    );
    // Also when the policy first has to drop a refused `null` (it repairs a copy, which is
    // what is read).
    assert_eq!(
        parse_as::<Counted>(json!({"count": 3.0, "step": null})).unwrap(),
        Counted {
            count: 3,
            step: 0,
            scale: None
        }
    );
    // A fractional float is still refused, at its path.
    let error = parse_as::<Counted>(json!({"count": 3.5})).unwrap_err();
    assert!(error.to_string().contains("count"), "{error}");
}
