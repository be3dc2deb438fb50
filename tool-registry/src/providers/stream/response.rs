//! [`ResponseStream`]: one streamed model response read as it arrives (bytes or events in,
//! finished calls out to a [`CallSink`]), and the [`StreamedResponse`] it leaves.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;
use tool_sdk::DynTool;

use super::anthropic::MessagesAssembler;
use super::assemble::{Assemble, Found};
use super::error::{StreamError, StreamedError};
use super::gemini::GeminiAssembler;
use super::openai_chat::ChatAssembler;
use super::openai_responses::ResponsesAssembler;
use super::sse::{SseDecoder, SseEvent};
use crate::providers::calls::{ModelToolCall, ToolCalls};
use crate::providers::gemini::GeminiNames;
use crate::providers::namespaces::ResponsesNames;

/// Where finished calls go as a response streams: a
/// [`StreamingToolExecutor`](crate::orchestration::StreamingToolExecutor) (which starts each
/// at once, SPEC §5.5) or a `Vec<ModelToolCall>`.
pub trait CallSink {
    /// A call is complete (its arguments parsed, or failed).
    fn call_ready(&mut self, call: &ModelToolCall);
}

impl CallSink for Vec<ModelToolCall> {
    fn call_ready(&mut self, call: &ModelToolCall) {
        self.push(call.clone());
    }
}

/// A streamed response of one model API being read, made by
/// [`ModelApi::stream`](crate::providers::ModelApi::stream): raw SSE bytes
/// ([`push_bytes`](Self::push_bytes)) or decoded events ([`push_event`](Self::push_event))
/// in; each tool call out to a [`CallSink`] as soon as it is complete (SPEC §5.5); the text
/// so far readable at any time ([`text`](Self::text)); the whole assistant message at the
/// end ([`finish`](Self::finish)).
///
/// A call whose id was already handed over is marked
/// [`ArgumentsError::DuplicateId`](crate::providers::ArgumentsError::DuplicateId) before it
/// reaches the sink, so it never runs (the first keeps the id). A call left unfinished when
/// the stream ends fails alone
/// ([`ArgumentsError::Truncated`](crate::providers::ArgumentsError::Truncated)).
#[derive(Debug)]
pub struct ResponseStream {
    api: Box<dyn Assemble>,
    sse: SseDecoder,
    events: usize,
    /// The ids of the calls handed over so far.
    handed: HashSet<String>,
    /// Calls (as assembled) that repeated an id already handed over: marked
    /// [`ArgumentsError::DuplicateId`](crate::providers::ArgumentsError::DuplicateId) and
    /// never run.
    duplicates: Vec<ModelToolCall>,
    found: Found,
    /// The pool, for [`ModelToolCall::check_caller`].
    tools: Vec<Arc<dyn DynTool>>,
    /// Whether the API has `allowed_callers` (see [`ModelToolCall::check_caller`]).
    has_callers: bool,
}

/// What a finished stream left: the assistant message, its calls, its text, and how it
/// ended.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamedResponse {
    /// The assistant's turn in the API's own shape, every tool call in it, ready to append
    /// to the history:
    /// - Anthropic: `{"role":"assistant","content":[block, ...]}`, the blocks in index order
    ///   (text with its `citations`, `thinking` with its `signature`, `redacted_thinking`,
    ///   server tool blocks, `tool_use` with its parsed `input`); empty text blocks and
    ///   thinking blocks whose signature never came are left out;
    /// - OpenAI Chat: `{"role":"assistant","content":text or null,"tool_calls":[{"id",
    ///   "type":"function","function":{"name","arguments"}}, ...]}` (`tool_calls` only when
    ///   there is a call);
    /// - OpenAI Responses: the array of output items (`message`, `reasoning`,
    ///   `function_call`, `custom_tool_call`, ...), to extend the next request's `input` with;
    ///   an item cut off is marked `"status":"incomplete"`, and a trailing `reasoning` item
    ///   cut off is left out (the API refuses one without the item it led to);
    /// - Gemini: `{"role":"model","parts":[...]}`, names as Gemini sent them.
    ///
    /// A call that failed (cut off, arguments not JSON) is in it with the input `{}`.
    pub message: Value,
    /// The calls, in the API's order, ready for [`ToolCalls::pair`].
    pub calls: ToolCalls,
    /// The text the model wrote (thinking left out), as [`ResponseStream::text`] gave it.
    pub text: String,
    /// Why the model stopped, as the API says it: Anthropic's `stop_reason` (`end_turn`,
    /// `tool_use`, `max_tokens`, `pause_turn`, ...), OpenAI Chat's `finish_reason` (`stop`,
    /// `tool_calls`, `length`, ...), OpenAI Responses' `incomplete_details.reason` or else
    /// its `status` (`completed`), Gemini's `finishReason` (`STOP`, `MAX_TOKENS`, ...).
    pub stop_reason: Option<String>,
    /// The error the API sent inside the stream, if any (the last one).
    pub error: Option<StreamedError>,
    /// The stream said it was complete: a stop reason came, or Anthropic's `message_stop`,
    /// or OpenAI Chat's `data: [DONE]`. `false` when the body ended before (the connection
    /// was cut): the message is what came.
    pub ended: bool,
    /// The prompt's tokens as the API reported them (cache reads and writes included), if it
    /// did: Anthropic `input_tokens`, OpenAI Chat `prompt_tokens` (only when the request set
    /// `stream_options.include_usage`), OpenAI Responses `input_tokens`, Gemini
    /// `promptTokenCount`.
    pub input_tokens: Option<u64>,
    /// The response's tokens as the API reported them, if it did (`output_tokens`,
    /// `completion_tokens`, `candidatesTokenCount`).
    pub output_tokens: Option<u64>,
    /// Anthropic: the id of the code execution container the response ran code in
    /// (`message_start.message.container` or `message_delta.delta.container`), `None` for the
    /// other APIs and when no code ran. A response whose code made tool calls (programmatic
    /// tool calling) is continued by sending the results with this id as the next request's
    /// `container`
    /// (<https://platform.claude.com/docs/en/agents-and-tools/tool-use/programmatic-tool-calling>,
    /// read 2026-12-03).
    pub container: Option<String>,
    /// Anthropic: when [`StreamedResponse::container`] expires (its `expires_at`, RFC 3339
    /// text as sent; `anthropic` SDK 2.16.0 `types/container.py`, read 2026-12-03): a request
    /// naming an expired container fails, so a host drops the id after this time.
    pub container_expires_at: Option<String>,
}

impl ResponseStream {
    fn new(api: Box<dyn Assemble>) -> Self {
        Self {
            api,
            sse: SseDecoder::default(),
            events: 0,
            handed: HashSet::new(),
            duplicates: Vec::new(),
            found: Found::default(),
            tools: Vec::new(),
            has_callers: true,
        }
    }

    /// Refuses each call whose tool (in `tools`) does not allow its caller, as it is handed
    /// over and again in [`ResponseStream::finish`]'s calls.
    /// `has_callers`: whether the API has `allowed_callers` ([`ModelToolCall::check_caller`]).
    pub(crate) fn checking_callers(
        mut self,
        tools: &[Arc<dyn DynTool>],
        has_callers: bool,
    ) -> Self {
        self.tools = tools.to_vec();
        self.has_callers = has_callers;
        self
    }

    /// An Anthropic Messages stream.
    pub(crate) fn anthropic() -> Self {
        Self::new(Box::<MessagesAssembler>::default())
    }

    /// An OpenAI Chat Completions stream.
    pub(crate) fn openai_chat() -> Self {
        Self::new(Box::<ChatAssembler>::default())
    }

    /// An OpenAI Responses stream.
    pub(crate) fn openai_responses(names: ResponsesNames) -> Self {
        Self::new(Box::new(ResponsesAssembler::new(names)))
    }

    /// A Gemini stream, names mapped back with `names`.
    pub(crate) fn gemini(names: GeminiNames) -> Self {
        Self::new(Box::new(GeminiAssembler::new(names)))
    }

    /// Reads a chunk of the raw SSE body, as it came off the network: finished calls go to
    /// `sink`. A multi-byte character or an escape split across chunks is read once its line
    /// is complete.
    ///
    /// # Errors
    /// [`StreamError`] for the first event of the chunk whose `data` is not JSON (`[DONE]` is
    /// read as the end of an OpenAI Chat stream); every other event of the chunk, before and
    /// after it, was read, and reading may go on.
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
            self.found.ended = true;
            return Ok(());
        }
        let index = self.events;
        let value: Value = serde_json::from_str(&event.data).map_err(|source| {
            // Counted, so that the next event's index is its own.
            self.events += 1;
            StreamError { index, source }
        })?;
        self.push_event(&value, sink);
        Ok(())
    }

    /// Reads one already-decoded event (the JSON `data` of a stream event): finished calls
    /// go to `sink`. An error event ([`StreamedError`]) is kept for
    /// [`StreamedResponse::error`]. OpenAI Chat's closing `data: [DONE]`, which is not JSON, is
    /// given as the string `"[DONE]"`.
    pub fn push_event(&mut self, event: &Value, sink: &mut impl CallSink) {
        if event.as_str().is_some_and(|data| data.trim() == "[DONE]") {
            self.found.ended = true;
            return;
        }
        self.events += 1;
        if let Some(error) = StreamedError::of_event(event) {
            self.found.error = Some(error);
            return;
        }
        self.found.read_usage(event);
        for call in self.api.push(event, &mut self.found) {
            self.hand_over(call, sink);
        }
    }

    /// The text the model has written so far (thinking left out); it only grows, so a host
    /// printing as it arrives prints what lies past the length it printed last.
    pub fn text(&self) -> &str {
        &self.found.text
    }

    /// Hands a finished call to `sink`; one whose id an earlier handed call has is marked
    /// [`ArgumentsError::DuplicateId`](crate::providers::ArgumentsError::DuplicateId) first,
    /// so it is never run (the first keeps the id).
    fn hand_over(&mut self, mut call: ModelToolCall, sink: &mut impl CallSink) {
        if !self.handed.insert(call.id.clone()) {
            // As assembled, to be found again among `finish`'s calls.
            self.duplicates.push(call.clone());
            call.mark_duplicate();
        }
        call.check_caller(&self.tools, self.has_callers);
        sink.call_ready(&call);
    }

    /// The stream ended (or was cut off): reads any last event left in the decoder,
    /// completes the open calls (handing them to `sink`; one cut off fails alone) and returns
    /// the response. Its calls are in the API's order, a call that repeated the id of a call
    /// handed over before it marked
    /// [`ArgumentsError::DuplicateId`](crate::providers::ArgumentsError::DuplicateId) (as
    /// [`ToolCalls`] describes), ready for [`ToolCalls::pair`]. A host using a
    /// [`StreamingToolExecutor`](crate::orchestration::StreamingToolExecutor) then calls its
    /// `finish`.
    pub fn finish(mut self, sink: &mut impl CallSink) -> StreamedResponse {
        for event in self.sse.finish() {
            // A last event cut mid-JSON carries no complete call part; it is dropped here and
            // its calls fail as truncated below.
            let _ = self.push_sse_event(&event, sink);
        }
        for call in self.api.end() {
            self.hand_over(call, sink);
        }
        let mut calls = self.api.calls();
        for call in &mut calls {
            if let Some(at) = self.duplicates.iter().position(|dup| dup == call) {
                self.duplicates.swap_remove(at);
                call.mark_duplicate();
            }
        }
        StreamedResponse {
            message: self.api.message(),
            calls: ToolCalls::new(calls).check_callers(&self.tools, self.has_callers),
            text: self.found.text,
            stop_reason: self.found.stop_reason,
            error: self.found.error,
            ended: self.found.ended,
            input_tokens: self.found.input_tokens,
            output_tokens: self.found.output_tokens,
            container: self.found.container,
            container_expires_at: self.found.container_expires_at,
        }
    }
}

impl StreamedResponse {
    /// `true` when the model wrote nothing: no content block, item or part, no text, no
    /// call.
    pub fn message_is_empty(&self) -> bool {
        match &self.message {
            Value::Array(items) => items.is_empty(),
            message => match message.get("content").or_else(|| message.get("parts")) {
                Some(Value::Array(content)) => content.is_empty(),
                Some(Value::String(text)) => text.is_empty(),
                _ => message.get("tool_calls").is_none(),
            },
        }
    }
}
