//! Reading one streamed model response with [`ResponseStream`]: text goes to the screen as it
//! arrives, each tool call goes to the streaming executor as soon as it is complete (SPEC
//! §5.5), and the finished [`StreamedResponse`] holds the assistant message for the history.

use std::sync::Arc;

use tool_registry::orchestration::StreamingToolExecutor;
use tool_registry::providers::ModelApi;
use tool_registry::providers::stream::{ResponseStream, StreamedResponse};
use tool_sdk::DynTool;

/// One response being read, and how much of its text was shown.
pub struct ResponseReader {
    stream: ResponseStream,
    shown: usize,
}

impl ResponseReader {
    /// A reader for `provider`'s stream over `tools`.
    ///
    /// # Errors
    /// `provider` is not a model API.
    pub fn new(provider: ModelApi, tools: &[Arc<dyn DynTool>]) -> Result<Self, String> {
        let stream = provider.stream(tools).map_err(|error| error.to_string())?;
        Ok(Self { stream, shown: 0 })
    }

    /// Reads a chunk of the body: new text goes to `on_text`, finished calls to `executor`.
    /// An event that is not JSON is skipped.
    pub fn push(
        &mut self,
        bytes: &[u8],
        executor: &mut StreamingToolExecutor,
        on_text: &mut dyn FnMut(&str),
    ) {
        if let Err(error) = self.stream.push_bytes(bytes, executor) {
            tracing::warn!(%error, "a stream event is not JSON; skipped");
        }
        let text = self.stream.text();
        on_text(&text[self.shown..]);
        self.shown = text.len();
    }

    /// The response ended (or was cut off): completes the open calls (a call cut off fails
    /// alone and is answered with an error, never run) and returns the response; the text of
    /// a last event not yet shown goes to `on_text`.
    pub fn finish(
        self,
        executor: &mut StreamingToolExecutor,
        on_text: &mut dyn FnMut(&str),
    ) -> StreamedResponse {
        let read = self.stream.finish(executor);
        on_text(&read.text[self.shown..]);
        read
    }
}

/// The span of one prompt's turn: `invoke_agent tool-host` (OpenTelemetry GenAI
/// conventions), parent of its `chat {model}` and `execute_tool {tool}` spans.
pub fn turn_span(provider: ModelApi, model: &str) -> tracing::Span {
    tracing::info_span!(
        "invoke_agent",
        otel.name = "invoke_agent tool-host",
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = "tool-host",
        gen_ai.provider.name = provider_name(provider),
        gen_ai.request.model = model,
    )
}

/// The span of one model request and its streamed response: `chat {model}` (kind
/// `CLIENT`); [`record_response`] fills in what the response said.
pub fn chat_span(provider: ModelApi, model: &str) -> tracing::Span {
    tracing::info_span!(
        "chat",
        otel.name = %format_args!("chat {model}"),
        otel.kind = "client",
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider_name(provider),
        gen_ai.request.model = model,
        gen_ai.usage.input_tokens = tracing::field::Empty,
        gen_ai.usage.output_tokens = tracing::field::Empty,
        gen_ai.response.finish_reasons = tracing::field::Empty,
        error.type = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    )
}

/// The `gen_ai.provider.name` of `api` (the conventions' well-known values).
pub fn provider_name(api: ModelApi) -> &'static str {
    match api {
        ModelApi::Anthropic => "anthropic",
        ModelApi::Gemini | ModelApi::GeminiOpenApi => "gcp.gemini",
        _ => "openai",
    }
}

/// Records on a `chat` span what the response said of itself: token counts, why it
/// stopped, and an error sent inside the stream.
pub fn record_response(span: &tracing::Span, read: &StreamedResponse) {
    // As i64: `tracing-opentelemetry` sends a recorded u64 as text.
    let count = |tokens: u64| i64::try_from(tokens).unwrap_or(i64::MAX);
    if let Some(tokens) = read.input_tokens {
        span.record("gen_ai.usage.input_tokens", count(tokens));
    }
    if let Some(tokens) = read.output_tokens {
        span.record("gen_ai.usage.output_tokens", count(tokens));
    }
    if let Some(reason) = &read.stop_reason {
        span.record("gen_ai.response.finish_reasons", reason.as_str());
    }
    if read.error.is_some() || !read.ended {
        let kind = if read.error.is_some() {
            "stream_error"
        } else {
            "stream_cut"
        };
        span.record("error.type", kind);
        span.record("otel.status_code", "ERROR");
    }
}

/// Records on a `chat` span that its request failed, and returns the error's text.
pub fn request_failed(span: &tracing::Span, error: &impl std::fmt::Display) -> String {
    span.record("error.type", "request_failed");
    span.record("otel.status_code", "ERROR");
    error.to_string()
}
