//! What can go wrong while a response streams: an event that cannot be read ([`StreamError`],
//! reading goes on) and an error the API itself sends inside the stream ([`StreamedError`],
//! the response stops there).
//!
//! The in-stream error shapes:
//! - Anthropic Messages (<https://docs.anthropic.com/en/api/messages-streaming#error-events>):
//!   `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`;
//! - OpenAI Chat Completions (and compatible servers): a chunk `{"error":{"message",
//!   "type","code"}}` with no `choices` (the shape OpenAI's non-streamed errors have; the
//!   streaming reference does not document an in-stream error);
//! - OpenAI Responses
//!   (<https://platform.openai.com/docs/api-reference/responses-streaming/error>):
//!   `{"type":"error","code","message","param"}`, and `response.failed`, whose
//!   `response.error` is `{"code","message"}` (read by the Responses assembler);
//! - Gemini (<https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes>):
//!   `{"error":{"code":503,"message","status":"UNAVAILABLE"}}`.

use serde_json::Value;

/// A stream event that could not be read: its `data` is not JSON.
#[derive(Debug, thiserror::Error)]
#[error("stream event {index} is not JSON: {source}")]
pub struct StreamError {
    /// The index of the event among the stream's events read so far (from 0; `[DONE]` not
    /// counted).
    pub index: usize,
    /// What the JSON parser reported.
    pub source: serde_json::Error,
}

/// An error the API sent inside the stream: the response stopped there, and whatever came
/// before it is all there is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the API stopped the response ({kind}): {message}")]
pub struct StreamedError {
    /// The error's kind as the API names it: Anthropic's and OpenAI Chat's `error.type`
    /// (`overloaded_error`, `server_error`, ...), OpenAI Responses' `code`, Gemini's
    /// `status` (`UNAVAILABLE`, ...); `error` when it names none.
    pub kind: String,
    /// The API's message (may be empty).
    pub message: String,
    /// `true` when the kind says the same request may succeed when sent again: Anthropic's
    /// `overloaded_error`, `api_error` and `rate_limit_error`, OpenAI's `server_error` and
    /// `rate_limit_exceeded`, Gemini's `UNAVAILABLE`, `RESOURCE_EXHAUSTED` and `INTERNAL`.
    pub retryable: bool,
}

/// The kinds [`StreamedError::retryable`] lists.
const RETRYABLE: &[&str] = &[
    "overloaded_error",
    "api_error",
    "rate_limit_error",
    "server_error",
    "rate_limit_exceeded",
    "UNAVAILABLE",
    "RESOURCE_EXHAUSTED",
    "INTERNAL",
];

impl StreamedError {
    /// An error of `kind` with `message`, retryable as its kind says.
    pub(crate) fn new(kind: &str, message: &str) -> Self {
        Self {
            kind: kind.to_owned(),
            message: message.to_owned(),
            retryable: RETRYABLE.contains(&kind),
        }
    }

    /// The error `event` carries, when it is an error event: one with a non-null top-level
    /// `error` (Anthropic, OpenAI Chat, Gemini), or of `"type":"error"` (OpenAI Responses).
    pub(crate) fn of_event(event: &Value) -> Option<Self> {
        match event.get("error").filter(|error| !error.is_null()) {
            Some(Value::String(message)) => Some(Self::new("error", message)),
            Some(error) => {
                // The kind is the first of these the API gives; it may be retried when any of
                // them says so (OpenAI Chat: `"type":"requests"`, `"code":"rate_limit_exceeded"`).
                let named = ["type", "code", "status"].map(|key| text(error, key));
                Some(Self {
                    kind: named
                        .into_iter()
                        .flatten()
                        .next()
                        .unwrap_or("error")
                        .to_owned(),
                    message: text(error, "message").unwrap_or_default().to_owned(),
                    retryable: named
                        .into_iter()
                        .flatten()
                        .any(|kind| RETRYABLE.contains(&kind)),
                })
            }
            None if text(event, "type") == Some("error") => Some(Self::new(
                text(event, "code").unwrap_or("error"),
                text(event, "message").unwrap_or_default(),
            )),
            None => None,
        }
    }
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_api_s_error_event_is_read_with_its_kind() {
        let cases = [
            (
                json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
                ("overloaded_error", "Overloaded", true),
            ),
            (
                json!({"error": {"message": "bad", "type": "invalid_request_error", "code": null}}),
                ("invalid_request_error", "bad", false),
            ),
            (
                json!({"type": "error", "code": "server_error", "message": "boom", "param": null, "sequence_number": 3}),
                ("server_error", "boom", true),
            ),
            (
                json!({"error": {"code": 503, "message": "busy", "status": "UNAVAILABLE"}}),
                ("UNAVAILABLE", "busy", true),
            ),
        ];
        for (event, (kind, message, retryable)) in cases {
            let error = StreamedError::of_event(&event).expect("an error event");
            assert_eq!(
                (error.kind.as_str(), error.message.as_str(), error.retryable),
                (kind, message, retryable),
                "{event}"
            );
        }
        assert_eq!(
            StreamedError::new("overloaded_error", "Overloaded").to_string(),
            "the API stopped the response (overloaded_error): Overloaded"
        );
        for quiet in [
            json!({"type": "message_stop"}),
            json!({"type": "response.completed", "response": {"error": null}}),
            json!({"choices": [], "error": null}),
        ] {
            assert_eq!(StreamedError::of_event(&quiet), None, "{quiet}");
        }
    }
}
