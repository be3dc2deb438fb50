//! The one place that reads serde's error text. Once the schema check has passed, serde can
//! still refuse an input (an enum value it does not know, a number out of range, a
//! hand-written `Deserialize`); its error is a sentence meant for Rust programmers, such as
//! ``invalid value: integer `300`, expected u8``. [`classify`] turns that sentence into an
//! [`InputIssue`] worded for the model, with no Rust type names. The wording read here is
//! serde's and serde_json's (`serde::de::Error` defaults, and serde_json's own refusals of
//! object keys, which end with the key's position ` at line 1 column 2`); the tests below
//! produce every form [`classify`] reads (invalid value, with and without an expected type,
//! missing and unknown fields, invalid type, and a message passed through) with the real
//! crates, so a change in their wording fails them.

use super::issues::{InputIssue, join_path};

fn backticked(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    Some(&message[start..end])
}

/// Turns a serde error at `path` into an issue.
pub fn classify(path: &str, message: &str) -> InputIssue {
    let path = if path == "." { "" } else { path };
    if let Some(rest) = message.strip_prefix("invalid value: ") {
        return InputIssue::Other {
            path: path.to_owned(),
            message: humanize_invalid_value(rest),
        };
    }
    if message.starts_with("missing field")
        && let Some(field) = backticked(message)
    {
        return InputIssue::Missing {
            path: join_path(path, field),
        };
    }
    if message.starts_with("unknown field")
        && let Some(field) = backticked(message)
    {
        let accepted = message
            .split_once(", expected ")
            .map(|(_, names)| {
                names
                    .split('`')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        return InputIssue::Unexpected {
            path: join_path(path, field),
            accepted,
        };
    }
    if let Some(rest) = message.strip_prefix("invalid type: ")
        && let Some((received, expected)) = rest.split_once(", expected ")
    {
        let expected = expected.split(" at line").next().unwrap_or(expected);
        return InputIssue::TypeMismatch {
            path: path.to_owned(),
            expected: serde_expected_to_json(expected).to_owned(),
            received: serde_received_to_json(received).to_owned(),
        };
    }
    InputIssue::Other {
        path: path.to_owned(),
        message: message.to_owned(),
    }
}

/// `integer `-1`, expected u32` → "got -1, but a non-negative integer that fits in 32 bits
/// is required": no Rust type names reach the model.
fn humanize_invalid_value(rest: &str) -> String {
    let rest = rest.split(" at line ").next().unwrap_or(rest);
    let Some((got, expected)) = rest.split_once(", expected ") else {
        // serde_json's own refusals of a key, such as `expected key to be a number in quotes`.
        return rest.to_owned();
    };
    let got = got.split('`').nth(1).unwrap_or(got);
    let expected = match expected.trim() {
        "u8" => "a whole number from 0 to 255".to_owned(),
        "u16" => "a whole number from 0 to 65535".to_owned(),
        "u32" => "a whole number from 0 to 4294967295".to_owned(),
        "u64" | "usize" | "u128" => "a whole number of at least 0".to_owned(),
        "i8" => "a whole number from -128 to 127".to_owned(),
        "i16" => "a whole number from -32768 to 32767".to_owned(),
        "i32" => "a whole number from -2147483648 to 2147483647".to_owned(),
        "i64" | "isize" | "i128" => "a whole number".to_owned(),
        other => other.to_owned(),
    };
    format!("got {got}, but {expected} is required")
}

fn serde_received_to_json(received: &str) -> &'static str {
    let head = received.split([' ', '`']).next().unwrap_or(received);
    match head {
        "string" | "character" => "string",
        "integer" | "floating" => "number",
        "boolean" => "boolean",
        "sequence" => "array",
        "map" => "object",
        "null" | "unit" => "null",
        _ => "unknown",
    }
}

fn serde_expected_to_json(expected: &str) -> &'static str {
    let lowered = expected.to_ascii_lowercase();
    let integer_words = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "integer",
    ];
    let number_words = ["f32", "f64", "number", "float"];
    if lowered.contains("string") || lowered.contains("char") || lowered.contains("path") {
        "string"
    } else if lowered.contains("bool") {
        "boolean"
    } else if integer_words.iter().any(|word| lowered.contains(word)) {
        "integer"
    } else if number_words.iter().any(|word| lowered.contains(word)) {
        "number"
    } else if lowered.contains("sequence") || lowered.contains("array") || lowered.contains("tuple")
    {
        "array"
    } else if lowered.contains("struct") || lowered.contains("map") {
        "object"
    } else {
        "unknown"
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::classify;
    use crate::input::InputIssue;

    /// The message serde_json gives for reading `input` as `T`.
    fn serde_says<T: for<'de> Deserialize<'de> + std::fmt::Debug>(
        input: serde_json::Value,
    ) -> String {
        serde_json::from_value::<T>(input).unwrap_err().to_string()
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        a: String,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum Mode {
        Fast,
    }

    #[test]
    fn out_of_range_integers_read_serde_s_invalid_value_wording() {
        let message = serde_says::<u8>(json!(300));
        assert_eq!(message, "invalid value: integer `300`, expected u8");
        assert_eq!(
            classify("n", &message),
            InputIssue::Other {
                path: "n".into(),
                message: "got 300, but a whole number from 0 to 255 is required".into()
            }
        );
        let message = serde_says::<u32>(json!(-1));
        assert_eq!(
            classify("", &message).to_string(),
            "got -1, but a whole number from 0 to 4294967295 is required"
        );
    }

    #[test]
    fn serde_json_s_refusals_of_keys_lose_their_position() {
        type Numbered = std::collections::BTreeMap<u32, u8>;
        let message = serde_says::<Numbered>(json!({"-1": 1}));
        assert!(message.ends_with(" at line 1 column 2"), "{message}");
        assert_eq!(
            classify("k", &message).to_string(),
            "Parameter `k`: got -1, but a whole number from 0 to 4294967295 is required"
        );
        let message = serde_says::<Numbered>(json!({"x": 1}));
        assert_eq!(
            message,
            "invalid value: expected key to be a number in quotes"
        );
        assert_eq!(
            classify("k", &message).to_string(),
            "Parameter `k`: expected key to be a number in quotes"
        );
        let message = serde_says::<Numbered>(json!({"1.5": 1}));
        assert!(message.contains(" at line "), "{message}");
        assert_eq!(
            classify("k", &message),
            InputIssue::TypeMismatch {
                path: "k".into(),
                expected: "integer".into(),
                received: "number".into()
            }
        );
    }

    #[test]
    fn missing_and_unknown_fields_read_serde_s_backticked_names() {
        let message = serde_says::<Strict>(json!({}));
        assert_eq!(message, "missing field `a`");
        assert_eq!(
            classify("x", &message),
            InputIssue::Missing { path: "x.a".into() }
        );
        let message = serde_says::<Strict>(json!({"a": "", "b": 1}));
        assert!(message.starts_with("unknown field `b`"), "{message}");
        assert_eq!(
            classify(".", &message),
            InputIssue::Unexpected {
                path: "b".into(),
                accepted: vec!["a".into()]
            }
        );
    }

    #[test]
    fn type_errors_read_serde_s_invalid_type_wording() {
        for (message, expected, received) in [
            (serde_says::<String>(json!(1)), "string", "number"),
            (serde_says::<bool>(json!("x")), "boolean", "string"),
            (serde_says::<u16>(json!(true)), "integer", "boolean"),
            (serde_says::<f64>(json!([])), "number", "array"),
            (serde_says::<Vec<u8>>(json!({})), "array", "object"),
            (serde_says::<Strict>(json!(null)), "object", "null"),
        ] {
            assert!(message.starts_with("invalid type: "), "{message}");
            assert_eq!(
                classify("p", &message),
                InputIssue::TypeMismatch {
                    path: "p".into(),
                    expected: expected.into(),
                    received: received.into()
                },
                "{message}"
            );
        }
    }

    #[test]
    fn other_messages_pass_through() {
        let message = serde_says::<Mode>(json!("Slow"));
        assert_eq!(message, "unknown variant `Slow`, expected `Fast`");
        assert_eq!(
            classify("mode", &message).to_string(),
            "Parameter `mode`: unknown variant `Slow`, expected `Fast`"
        );
    }
}
