//! Reading one streamed model response: text goes to the screen as it arrives, each tool call
//! goes to the streaming executor as soon as it is complete (SPEC §5.5), and the assistant
//! message is rebuilt for the history.
//!
//! Anthropic Messages streaming: <https://docs.anthropic.com/en/api/messages-streaming>.
//! OpenAI Chat Completions streaming:
//! <https://platform.openai.com/docs/api-reference/chat-streaming>.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value, json};
use tool_registry::orchestration::StreamingToolExecutor;
use tool_registry::providers::ToolCalls;
use tool_registry::providers::stream::{
    AnthropicStream, OpenAiChatStream, SseDecoder, ToolCallStream,
};

use tool_registry::providers::ModelApi;

/// One response being read.
pub struct ResponseReader {
    sse: SseDecoder,
    calls: Calls,
    message: Message,
    /// An `error` event the API sent inside the stream (such as `overloaded_error`), and
    /// whether the API means it may succeed when tried again.
    pub stream_error: Option<(String, bool)>,
    /// The reason the model stopped (`end_turn`, `tool_use`, `max_tokens`, `stop`, ...).
    pub stop_reason: Option<String>,
    /// The stream said it was complete: a stop reason, Anthropic's `message_stop` or
    /// OpenAI's `[DONE]`. A body that ends without it was cut short.
    ended: bool,
}

enum Calls {
    Anthropic(ToolCallStream<AnthropicStream>),
    OpenAi(ToolCallStream<OpenAiChatStream>),
}

enum Message {
    Anthropic {
        blocks: BTreeMap<u64, Value>,
        partial_json: HashMap<u64, String>,
    },
    OpenAi {
        text: String,
    },
}

/// What a finished response left: the assistant message for the history and its calls.
pub struct ReadResponse {
    /// The assistant message in the API's shape, every tool call in it.
    pub message: Value,
    /// The calls, in the API's order, ready for [`ToolCalls::pair`].
    pub calls: ToolCalls,
    /// The text the model wrote.
    pub text: String,
    /// The stream said it was complete (else the connection ended mid-response).
    pub ended: bool,
}

impl ResponseReader {
    /// A reader for `provider`'s stream.
    pub fn new(provider: ModelApi) -> Self {
        let (calls, message) = match provider {
            ModelApi::Anthropic => (
                Calls::Anthropic(ToolCallStream::new(AnthropicStream::default())),
                Message::Anthropic {
                    blocks: BTreeMap::new(),
                    partial_json: HashMap::new(),
                },
            ),
            _ => (
                Calls::OpenAi(ToolCallStream::new(OpenAiChatStream::default())),
                Message::OpenAi {
                    text: String::new(),
                },
            ),
        };
        Self {
            sse: SseDecoder::default(),
            calls,
            message,
            stream_error: None,
            stop_reason: None,
            ended: false,
        }
    }

    /// Reads a chunk of the body: text pieces go to `on_text`, finished calls to `executor`.
    pub fn push(
        &mut self,
        bytes: &[u8],
        executor: &mut StreamingToolExecutor,
        on_text: &mut dyn FnMut(&str),
    ) {
        for event in self.sse.push(bytes) {
            self.push_event(&event.data, executor, on_text);
        }
    }

    fn push_event(
        &mut self,
        data: &str,
        executor: &mut StreamingToolExecutor,
        on_text: &mut dyn FnMut(&str),
    ) {
        if data.trim() == "[DONE]" {
            self.ended = true;
            return;
        }
        let Ok(event) = serde_json::from_str::<Value>(data) else {
            tracing::warn!("a stream event is not JSON; skipped");
            return;
        };
        if let Some(error) = event.get("error").filter(|error| !error.is_null()) {
            let kind = error.get("type").and_then(Value::as_str).unwrap_or("error");
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let retryable = matches!(
                kind,
                "overloaded_error" | "api_error" | "rate_limit_error" | "server_error"
            );
            self.stream_error = Some((
                format!("the API stopped the response ({kind}): {message}"),
                retryable,
            ));
            return;
        }
        self.read_message(&event, on_text);
        if self.stop_reason.is_some()
            || event.get("type").and_then(Value::as_str) == Some("message_stop")
        {
            self.ended = true;
        }
        match &mut self.calls {
            Calls::Anthropic(stream) => stream.push_event(&event, executor),
            Calls::OpenAi(stream) => stream.push_event(&event, executor),
        }
    }

    fn read_message(&mut self, event: &Value, on_text: &mut dyn FnMut(&str)) {
        let text_of = |value: &Value, key: &str| {
            value
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        match &mut self.message {
            Message::Anthropic {
                blocks,
                partial_json,
            } => {
                let index = event.get("index").and_then(Value::as_u64).unwrap_or(0);
                match event.get("type").and_then(Value::as_str) {
                    Some("content_block_start") => {
                        let block = event.get("content_block").cloned().unwrap_or(Value::Null);
                        let text = text_of(&block, "text");
                        if !text.is_empty() {
                            on_text(&text);
                        }
                        blocks.insert(index, block);
                    }
                    Some("content_block_delta") => {
                        let delta = event.get("delta").unwrap_or(&Value::Null);
                        let Some(block) = blocks.get_mut(&index) else {
                            return;
                        };
                        match delta.get("type").and_then(Value::as_str) {
                            Some("text_delta") => {
                                let piece = text_of(delta, "text");
                                on_text(&piece);
                                append(block, "text", &piece);
                            }
                            Some("thinking_delta") => {
                                append(block, "thinking", &text_of(delta, "thinking"));
                            }
                            Some("signature_delta") => {
                                block["signature"] = json!(text_of(delta, "signature"));
                            }
                            Some("input_json_delta") => partial_json
                                .entry(index)
                                .or_default()
                                .push_str(&text_of(delta, "partial_json")),
                            Some("citations_delta") => {
                                if let Some(citation) = delta.get("citation") {
                                    let list = block.as_object_mut().map(|object| {
                                        object.entry("citations").or_insert(json!([]))
                                    });
                                    if let Some(Value::Array(list)) = list {
                                        list.push(citation.clone());
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                    Some("message_delta") => {
                        if let Some(reason) = event
                            .get("delta")
                            .and_then(|delta| delta.get("stop_reason"))
                            .and_then(Value::as_str)
                        {
                            self.stop_reason = Some(reason.to_owned());
                        }
                    }
                    _ => {}
                }
            }
            Message::OpenAi { text } => {
                let Some(choice) = event
                    .get("choices")
                    .and_then(Value::as_array)
                    .and_then(|choices| choices.first())
                else {
                    return;
                };
                if let Some(piece) = choice
                    .get("delta")
                    .and_then(|delta| delta.get("content"))
                    .and_then(Value::as_str)
                {
                    on_text(piece);
                    text.push_str(piece);
                }
                if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(reason.to_owned());
                }
            }
        }
    }

    /// The response ended (or was cut off): completes the open calls (a call cut off fails
    /// alone and is answered with an error, never run) and rebuilds the assistant message.
    pub fn finish(
        mut self,
        executor: &mut StreamingToolExecutor,
        on_text: &mut dyn FnMut(&str),
    ) -> ReadResponse {
        for event in self.sse.finish() {
            self.push_event(&event.data, executor, on_text);
        }
        let calls = match self.calls {
            Calls::Anthropic(stream) => stream.finish(executor),
            Calls::OpenAi(stream) => stream.finish(executor),
        };
        let ended = self.ended;
        let input_of = |id: &str| {
            calls
                .calls
                .iter()
                .find(|call| call.id == id)
                .and_then(|call| call.input.clone().ok())
                .unwrap_or_else(|| Value::Object(Map::new()))
        };
        match self.message {
            Message::Anthropic {
                blocks,
                partial_json,
            } => {
                let mut text = String::new();
                let mut content = Vec::new();
                for (index, mut block) in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            let piece = block["text"].as_str().unwrap_or_default();
                            if piece.is_empty() {
                                continue;
                            }
                            text.push_str(piece);
                        }
                        Some("thinking") if block.get("signature").is_none() => continue,
                        Some("tool_use") => {
                            let id = block["id"].as_str().unwrap_or_default().to_owned();
                            block["input"] = input_of(&id);
                        }
                        Some(_) => {
                            if let Some(raw) = partial_json.get(&index) {
                                block["input"] = serde_json::from_str(raw)
                                    .unwrap_or_else(|_| Value::Object(Map::new()));
                            }
                        }
                        None => continue,
                    }
                    content.push(block);
                }
                ReadResponse {
                    message: json!({"role": "assistant", "content": content}),
                    calls,
                    text,
                    ended,
                }
            }
            Message::OpenAi { text } => {
                let mut message = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
                if !calls.is_empty() {
                    let tool_calls: Vec<Value> = calls
                        .calls
                        .iter()
                        .map(|call| {
                            json!({
                                "id": call.id,
                                "type": "function",
                                "function": {"name": call.name, "arguments": input_of(&call.id).to_string()},
                            })
                        })
                        .collect();
                    message["tool_calls"] = Value::Array(tool_calls);
                }
                ReadResponse {
                    message,
                    calls,
                    text,
                    ended,
                }
            }
        }
    }
}

impl ReadResponse {
    /// `true` when the model wrote nothing: no content block, no text, no call.
    pub fn message_is_empty(&self) -> bool {
        match &self.message["content"] {
            Value::Array(content) => content.is_empty(),
            Value::String(text) => text.is_empty(),
            _ => self.message.get("tool_calls").is_none(),
        }
    }
}

fn append(block: &mut Value, key: &str, piece: &str) {
    match block.get_mut(key) {
        Some(Value::String(text)) => text.push_str(piece),
        _ => block[key] = Value::String(piece.to_owned()),
    }
}
