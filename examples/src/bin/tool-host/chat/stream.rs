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
