//! Gemini streaming (`streamGenerateContent?alt=sse`,
//! <https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent>): each event
//! is a whole `GenerateContentResponse` chunk whose `candidates[0].content.parts` continue
//! the model's content; a `functionCall` part arrives complete in one chunk, so each call is
//! handed over with the chunk that carries it. The last chunk carries the candidate's
//! `finishReason` (`STOP`, `MAX_TOKENS`, ...). Thought summaries are text parts with `"thought": true`, and a
//! `thoughtSignature` may come on any part, also on an empty text part of its own
//! (<https://ai.google.dev/gemini-api/docs/thought-signatures>).

use serde_json::{Value, json};

use super::assemble::{Assemble, Found};
use crate::providers::calls::ModelToolCall;
use crate::providers::gemini::{GeminiNames, function_call};

/// Assembles a Gemini content from stream chunks (the first candidate):
/// `{"role":"model","parts":[...]}`.
///
/// Calls: names mapped back with a [`GeminiNames`]; a call without an `id` gets
/// `gemini-call-` plus its position among the calls of the response, as
/// [`crate::providers::gemini::read_calls`] does. Parts: kept in order as received (a
/// `functionCall` part with the name Gemini sent); a text part that is only text is merged
/// into the text part before it when that one is only text too and both are thoughts or both
/// are not. A part carrying a `thoughtSignature` is never merged, so the signature stays on
/// the part it came with.
#[derive(Debug, Default)]
pub(crate) struct GeminiAssembler {
    names: GeminiNames,
    calls: Vec<ModelToolCall>,
    parts: Vec<Value>,
}

impl GeminiAssembler {
    /// An assembler mapping sent names back with `names`.
    pub(crate) fn new(names: GeminiNames) -> Self {
        Self {
            names,
            ..Self::default()
        }
    }

    /// Reads a `functionCall` part: `None` when it has no name (skipped, not a call).
    fn read_call(&mut self, call: &Value) -> Option<ModelToolCall> {
        let Some(name) = call.get("name").and_then(Value::as_str) else {
            tracing::warn!(%call, "a functionCall without a name; skipped");
            return None;
        };
        let read = function_call(call, name, self.calls.len(), &self.names);
        self.calls.push(read.clone());
        Some(read)
    }

    /// Adds a part that is not a call, merging plain text into plain text.
    fn add_part(&mut self, part: &Value) {
        if let Some(text) = plain_text(part)
            && let Some(last) = self.parts.last_mut()
            && plain_text(last).is_some()
            && is_thought(last) == is_thought(part)
            && let Some(Value::String(so_far)) = last.get_mut("text")
        {
            so_far.push_str(text);
            return;
        }
        self.parts.push(part.clone());
    }
}

/// The text of a part that holds only `text` (and the `thought` flag).
fn plain_text(part: &Value) -> Option<&str> {
    let object = part.as_object()?;
    let text = object.get("text")?.as_str()?;
    object
        .keys()
        .all(|key| key == "text" || key == "thought")
        .then_some(text)
}

fn is_thought(part: &Value) -> bool {
    part.get("thought").and_then(Value::as_bool) == Some(true)
}

impl Assemble for GeminiAssembler {
    fn push(&mut self, event: &Value, found: &mut Found) -> Vec<ModelToolCall> {
        let candidate = event
            .get("candidates")
            .and_then(|candidates| candidates.get(0));
        let parts = candidate
            .and_then(|candidate| candidate.get("content"))
            .and_then(|content| content.get("parts"))
            .and_then(Value::as_array);
        let mut out = Vec::new();
        for part in parts.into_iter().flatten() {
            if let Some(call) = part.get("functionCall") {
                if let Some(read) = self.read_call(call) {
                    self.parts.push(part.clone());
                    out.push(read);
                }
                continue;
            }
            if !is_thought(part)
                && let Some(text) = part.get("text").and_then(Value::as_str)
            {
                found.text.push_str(text);
            }
            self.add_part(part);
        }
        if let Some(reason) = candidate
            .and_then(|candidate| candidate.get("finishReason"))
            .and_then(Value::as_str)
            .filter(|reason| *reason != "FINISH_REASON_UNSPECIFIED")
        {
            found.stop_reason = Some(reason.to_owned());
            found.ended = true;
        }
        // A blocked prompt gets no candidate, only `promptFeedback.blockReason` (`SAFETY`,
        // `OTHER`, ...): the response is over, not cut off.
        if let Some(reason) = event
            .get("promptFeedback")
            .and_then(|feedback| feedback.get("blockReason"))
            .and_then(Value::as_str)
        {
            found.stop_reason = Some(reason.to_owned());
            found.ended = true;
        }
        out
    }

    fn end(&mut self) -> Vec<ModelToolCall> {
        Vec::new()
    }

    fn calls(&self) -> Vec<ModelToolCall> {
        self.calls.clone()
    }

    fn message(&self) -> Value {
        json!({"role": "model", "parts": self.parts})
    }
}
