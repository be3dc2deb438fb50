//! Gemini streaming (`streamGenerateContent?alt=sse`,
//! <https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent>): each event
//! is a whole `GenerateContentResponse` chunk, and a `functionCall` part arrives complete in
//! one chunk, so each call is handed over with the chunk that carries it.

use serde_json::{Map, Value};

use super::CallAssembler;
use crate::providers::calls::{ModelToolCall, ToolCalls};
use crate::providers::gemini::{GeminiNames, MADE_UP_ID_PREFIX};

/// Assembles Gemini `functionCall` parts from stream chunks (the first candidate), names
/// mapped back with a [`GeminiNames`]. A call without an `id` gets `gemini-call-` plus
/// its position among the calls of the response, as [`ModelApi::read_calls`](crate::providers::ModelApi::read_calls)
/// does.
#[derive(Debug, Default)]
pub struct GeminiStream {
    names: GeminiNames,
    calls: Vec<ModelToolCall>,
}

impl GeminiStream {
    /// An assembler mapping sent names back with `names`.
    pub fn new(names: GeminiNames) -> Self {
        Self {
            names,
            calls: Vec::new(),
        }
    }
}

impl CallAssembler for GeminiStream {
    fn push(&mut self, event: &Value) -> Vec<ModelToolCall> {
        let parts = event
            .get("candidates")
            .and_then(|candidates| candidates.get(0))
            .and_then(|candidate| candidate.get("content"))
            .and_then(|content| content.get("parts"))
            .and_then(Value::as_array);
        let mut out = Vec::new();
        for call in parts
            .into_iter()
            .flatten()
            .filter_map(|p| p.get("functionCall"))
        {
            let Some(name) = call.get("name").and_then(Value::as_str) else {
                tracing::warn!(%call, "a functionCall without a name; skipped");
                continue;
            };
            let input = match call.get("args") {
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(args) => args.clone(),
            };
            let sent = call.get("id").and_then(Value::as_str);
            let mut read = ModelToolCall::new(
                sent.map_or_else(
                    || format!("{MADE_UP_ID_PREFIX}{}", self.calls.len()),
                    str::to_owned,
                ),
                self.names.to_pool(name),
                input,
            );
            read.id_was_sent = sent.is_some();
            self.calls.push(read.clone());
            out.push(read);
        }
        out
    }

    fn end(&mut self) -> Vec<ModelToolCall> {
        Vec::new()
    }

    fn take_calls(&mut self) -> ToolCalls {
        ToolCalls::unchecked(std::mem::take(&mut self.calls))
    }
}
