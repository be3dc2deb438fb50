//! Tool calls assembled from a streamed response, handed to a [`StreamingToolExecutor`](crate::orchestration::StreamingToolExecutor) as soon
//! as each is complete, so tools start while the model is still writing (SPEC §5.5).
//!
//! Bytes go through [`SseDecoder`] (server-sent events; a multi-byte character or an escape
//! split across network chunks is only decoded once its line is complete), each event's JSON
//! `data` through an API's [`CallAssembler`], and every finished call to a [`CallSink`]. The
//! arguments of a call are buffered as text and parsed once, when the call is complete; a call
//! left unfinished when the stream ends fails alone ([`super::ArgumentsError::Truncated`]).
//!
//! ```
//! use serde_json::json;
//! use tool_registry::providers::stream::{AnthropicStream, ToolCallStream};
//!
//! let mut stream = ToolCallStream::new(AnthropicStream::default());
//! let mut started = Vec::new();
//! let sse = concat!(
//!     "event: content_block_start\n",
//!     "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Read\",\"input\":{}}}\n\n",
//!     "event: content_block_delta\n",
//!     "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"file_path\\\": \\\"/a\"}}\n\n",
//!     "event: content_block_delta\n",
//!     "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"}\"}}\n\n",
//!     "event: content_block_stop\n",
//!     "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
//! );
//! stream.push_bytes(sse.as_bytes(), &mut started).unwrap();
//! assert_eq!(started.len(), 1); // handed over at content_block_stop, before the stream ends
//! let calls = stream.finish(&mut started);
//! assert_eq!(calls.calls[0].input, Ok(json!({"file_path": "/a"})));
//! ```

mod anthropic;
mod gemini;
mod openai_chat;
mod openai_responses;
mod sse;

pub use anthropic::AnthropicStream;
pub use gemini::GeminiStream;
pub use openai_chat::OpenAiChatStream;
pub use openai_responses::OpenAiResponsesStream;
pub use sse::{SseDecoder, SseEvent};

use std::collections::HashSet;

use serde_json::Value;

use super::calls::{ArgumentsError, ModelToolCall, ToolCalls};

/// Where finished calls go.
pub trait CallSink {
    /// A call is complete (its arguments parsed, or failed).
    fn call_ready(&mut self, call: &ModelToolCall);
}

impl CallSink for Vec<ModelToolCall> {
    fn call_ready(&mut self, call: &ModelToolCall) {
        self.push(call.clone());
    }
}

/// One API's stream events → tool calls.
pub trait CallAssembler {
    /// Reads one event (the JSON `data` of a stream event) and returns the calls it completed.
    fn push(&mut self, event: &Value) -> Vec<ModelToolCall>;
    /// The stream ended: completes every open call (one whose arguments are unfinished fails
    /// as truncated) and returns them.
    fn end(&mut self) -> Vec<ModelToolCall>;
    /// Every finished call, in the order the API lists them in the response (ids not checked
    /// for duplicates: [`ToolCallStream`] does that, in the order calls were handed over).
    fn take_calls(&mut self) -> ToolCalls;
}

/// A stream event that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("stream event {index} is not JSON: {source}")]
pub struct StreamError {
    /// The index of the event among the events read so far.
    pub index: usize,
    /// What the JSON parser reported.
    pub source: serde_json::Error,
}

/// A streamed response being read: bytes or events in, finished calls out to a [`CallSink`].
#[derive(Debug, Default)]
pub struct ToolCallStream<A> {
    assembler: A,
    sse: SseDecoder,
    events: usize,
    /// The ids of the calls handed over so far.
    handed: HashSet<String>,
    /// Calls (as assembled) that repeated an id already handed over: marked
    /// [`ArgumentsError::DuplicateId`] and never run.
    duplicates: Vec<ModelToolCall>,
}

impl<A: CallAssembler> ToolCallStream<A> {
    /// A stream read by `assembler`.
    pub fn new(assembler: A) -> Self {
        Self {
            assembler,
            sse: SseDecoder::default(),
            events: 0,
            handed: HashSet::new(),
            duplicates: Vec::new(),
        }
    }

    /// Reads a chunk of the raw SSE body, as it came off the network.
    ///
    /// # Errors
    /// [`StreamError`] for the first event of the chunk whose `data` is not JSON (`[DONE]` is
    /// skipped); every other event of the chunk, before and after it, was read, and reading
    /// may go on.
    pub fn push_bytes(
        &mut self,
        bytes: &[u8],
        sink: &mut impl CallSink,
    ) -> Result<(), StreamError> {
        let mut first_error = None;
        for event in self.sse.push(bytes) {
            if let Err(error) = self.push_sse_event(&event, sink) {
                first_error.get_or_insert(error);
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    fn push_sse_event(
        &mut self,
        event: &SseEvent,
        sink: &mut impl CallSink,
    ) -> Result<(), StreamError> {
        if event.data.trim() == "[DONE]" {
            return Ok(());
        }
        let index = self.events;
        let value: Value =
            serde_json::from_str(&event.data).map_err(|source| StreamError { index, source })?;
        self.push_event(&value, sink);
        Ok(())
    }

    /// Reads one already-decoded event.
    pub fn push_event(&mut self, event: &Value, sink: &mut impl CallSink) {
        self.events += 1;
        for call in self.assembler.push(event) {
            self.hand_over(call, sink);
        }
    }

    /// Hands a finished call to `sink`; one whose id an earlier handed call has is marked
    /// [`ArgumentsError::DuplicateId`] first, so it is never run (the first keeps the id).
    fn hand_over(&mut self, mut call: ModelToolCall, sink: &mut impl CallSink) {
        if !self.handed.insert(call.id.clone()) {
            self.duplicates.push(call.clone());
            call.mark_duplicate();
        }
        sink.call_ready(&call);
    }

    /// The stream ended: reads any last event left in the decoder, completes the open calls
    /// (handing them to `sink`) and returns every call in the API's order (a call that
    /// repeated the id of a call handed over before it marked [`ArgumentsError::DuplicateId`],
    /// as [`ToolCalls`] describes), ready for
    /// [`ToolCalls::pair`]. A host using a [`StreamingToolExecutor`](crate::orchestration::StreamingToolExecutor) then calls its `finish`.
    pub fn finish(mut self, sink: &mut impl CallSink) -> ToolCalls {
        for event in self.sse.finish() {
            // A last event cut mid-JSON carries no complete call part; it is dropped here and
            // its calls fail as truncated below.
            let _ = self.push_sse_event(&event, sink);
        }
        for call in self.assembler.end() {
            self.hand_over(call, sink);
        }
        let mut calls = self.assembler.take_calls().calls;
        for call in &mut calls {
            if let Some(at) = self.duplicates.iter().position(|dup| dup == call) {
                self.duplicates.swap_remove(at);
                call.mark_duplicate();
            }
        }
        ToolCalls::new(calls)
    }
}

/// A call being streamed: its id, name and argument text so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct Partial {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: String,
    pub(crate) scan: JsonScan,
}

impl Partial {
    /// The finished call: arguments parsed once.
    pub(crate) fn complete(&self) -> ModelToolCall {
        ModelToolCall::from_arguments(&self.id, &self.name, &self.arguments)
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
