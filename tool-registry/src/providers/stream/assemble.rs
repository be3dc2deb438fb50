//! What the four API assemblers share: the [`Assemble`] interface [`super::ResponseStream`]
//! drives, what an event says besides calls ([`Found`]), and a call whose arguments are still
//! streaming ([`Partial`], with the [`JsonScan`] that tells when its JSON closes).

use serde_json::{Map, Value};
use tool_sdk::callers::Caller;

use super::error::StreamedError;
use crate::providers::calls::{ArgumentsError, ModelToolCall};

/// One API's stream events -> tool calls and the assistant message.
pub(crate) trait Assemble: std::fmt::Debug + Send {
    /// Reads one event (the JSON `data` of a stream event, an error event already taken
    /// out): text, stop reason and end go to `found`; returns the calls it completed.
    fn push(&mut self, event: &Value, found: &mut Found) -> Vec<ModelToolCall>;
    /// The stream ended: completes every open call (one whose arguments are unfinished fails
    /// as truncated) and returns them.
    fn end(&mut self) -> Vec<ModelToolCall>;
    /// Every finished call, as assembled, in the order the API lists them in the response
    /// (ids not checked for duplicates: the stream does that, in the order calls were handed
    /// over).
    fn calls(&self) -> Vec<ModelToolCall>;
    /// The assistant message read so far, in the API's own shape, every call in it.
    fn message(&self) -> Value;
}

/// What the events read so far say besides the calls.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// The text the model wrote (no thinking), in order.
    pub(crate) text: String,
    /// Why the model stopped, as the API says it.
    pub(crate) stop_reason: Option<String>,
    /// An error the API sent inside the stream.
    pub(crate) error: Option<StreamedError>,
    /// The stream said it was complete.
    pub(crate) ended: bool,
    /// The tokens of the prompt and of the response, as the API last reported them.
    pub(crate) input_tokens: Option<u64>,
    pub(crate) output_tokens: Option<u64>,
    /// Anthropic: the id of the code execution container the response used.
    pub(crate) container: Option<String>,
    /// Anthropic: that container's `expires_at`, as sent (RFC 3339).
    pub(crate) container_expires_at: Option<String>,
}

impl Found {
    /// Keeps the token counts `event` reports, wherever its API puts them: Anthropic's
    /// `message_start.message.usage` and `message_delta.usage` (`input_tokens`,
    /// `output_tokens`; the cached input counted in), OpenAI Chat's last chunk `usage`
    /// (`prompt_tokens`, `completion_tokens`, sent when the request asks for it with
    /// `stream_options.include_usage`), OpenAI Responses' `response.completed`
    /// `response.usage` (`input_tokens`, `output_tokens`), Gemini's `usageMetadata`
    /// (`promptTokenCount`, `candidatesTokenCount` plus `thoughtsTokenCount`). A later count
    /// replaces an earlier one.
    pub(crate) fn read_usage(&mut self, event: &Value) {
        let usage = [
            &event["usage"],
            &event["message"]["usage"],
            &event["response"]["usage"],
            &event["usageMetadata"],
        ]
        .into_iter()
        .find(|usage| usage.is_object());
        let Some(usage) = usage else {
            return;
        };
        let count = |key: &str| usage.get(key).and_then(Value::as_u64);
        let input = count("input_tokens")
            .map(|input| {
                // Anthropic counts cache reads and writes apart from `input_tokens`.
                input
                    + count("cache_read_input_tokens").unwrap_or(0)
                    + count("cache_creation_input_tokens").unwrap_or(0)
            })
            .or_else(|| count("prompt_tokens"))
            .or_else(|| count("promptTokenCount"));
        let output = count("output_tokens")
            .or_else(|| count("completion_tokens"))
            .or_else(|| {
                // Gemini counts a thinking model's thoughts apart; the others count them in.
                count("candidatesTokenCount")
                    .map(|output| output + count("thoughtsTokenCount").unwrap_or(0))
            });
        if input.is_some() {
            self.input_tokens = input;
        }
        if output.is_some() {
            self.output_tokens = output;
        }
    }
}

/// Appends `piece` to the text at `key` of `object` (a missing or non-text value becomes
/// `piece`).
pub(crate) fn append_text(object: &mut Map<String, Value>, key: &str, piece: &str) {
    match object.get_mut(key) {
        Some(Value::String(text)) => text.push_str(piece),
        _ => {
            object.insert(key.to_owned(), Value::String(piece.to_owned()));
        }
    }
}

/// A call being streamed: its id, name and argument text so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct Partial {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: String,
    pub(crate) scan: JsonScan,
    /// Who made the call (its `caller` field, programmatic tool calling).
    pub(crate) caller: Caller,
}

impl Partial {
    /// The finished call: arguments parsed once.
    pub(crate) fn complete(&self) -> ModelToolCall {
        let mut call = ModelToolCall::from_arguments(&self.id, &self.name, &self.arguments);
        call.caller = self.caller.clone();
        call
    }

    /// The call at the end of a stream: parsed when its JSON is whole (or empty), failed as
    /// truncated otherwise.
    pub(crate) fn at_end(&self) -> ModelToolCall {
        if self.scan.is_unfinished() {
            self.truncated()
        } else {
            self.complete()
        }
    }

    /// The call failed as cut off by the end of the stream.
    pub(crate) fn truncated(&self) -> ModelToolCall {
        let mut call = ModelToolCall::new(&self.id, &self.name, Value::Null);
        call.caller = self.caller.clone();
        call.input = Err(ArgumentsError::Truncated {
            tool: self.name.clone(),
            received: self.arguments.len(),
        });
        call
    }

    pub(crate) fn append(&mut self, text: &str) {
        self.arguments.push_str(text);
        self.scan.feed(text.as_bytes());
    }
}

/// Tracks whether streamed JSON text is one complete object or array yet, without parsing it:
/// nesting depth, and whether the scan is inside a string or just after a backslash (so a
/// `}` inside a string, or an escape split across two deltas, is read right).
#[derive(Debug, Clone, Default)]
pub(crate) struct JsonScan {
    depth: u32,
    started: bool,
    closed: bool,
    in_string: bool,
    escaped: bool,
}

impl JsonScan {
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if byte == b'\\' {
                    self.escaped = true;
                } else if byte == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match byte {
                b' ' | b'\t' | b'\n' | b'\r' => {}
                b'{' | b'[' => {
                    self.started = true;
                    self.depth += 1;
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 && self.started {
                        self.closed = true;
                    }
                }
                b'"' => self.in_string = true,
                _ => {}
            }
        }
    }

    /// `true` once a top-level object or array has closed.
    pub(crate) fn is_complete_container(&self) -> bool {
        self.closed
    }

    /// `true` when the text is an unclosed object or array, or ends inside a string.
    pub(crate) fn is_unfinished(&self) -> bool {
        self.in_string || (self.started && !self.closed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scan_sees_braces_in_strings_and_split_escapes() {
        let mut scan = JsonScan::default();
        for piece in ["{\"a\": \"}\\", "\"", "}\"", "}"] {
            assert!(!scan.is_complete_container());
            scan.feed(piece.as_bytes());
        }
        assert!(scan.is_complete_container());
        assert!(!scan.is_unfinished());
        let mut open = JsonScan::default();
        open.feed(b"{\"a\": [1, 2");
        assert!(open.is_unfinished());
        let mut empty = JsonScan::default();
        empty.feed(b"  ");
        assert!(!empty.is_unfinished());
    }
}
