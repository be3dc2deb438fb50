//! A streamed model response read as it arrives, for every model API: each tool call is
//! handed to a [`StreamingToolExecutor`](crate::orchestration::StreamingToolExecutor) as
//! soon as it is complete, so tools start while the model is still writing (SPEC §5.5), the
//! text can be shown as it comes, and the whole assistant message is rebuilt at the end.
//!
//! [`ModelApi::stream`](super::ModelApi::stream) makes a [`ResponseStream`] for one API.
//! Bytes go through a server-sent events decoder
//! (<https://html.spec.whatwg.org/multipage/server-sent-events.html>; a multi-byte character
//! or an escape split across network chunks is only decoded once its line is complete),
//! each event's JSON `data` through the API's assembler, and every finished call to a
//! [`CallSink`]. The arguments of a call are buffered as text and parsed once, when the call
//! is complete; a call left unfinished when the stream ends fails alone
//! ([`super::ArgumentsError::Truncated`]). [`ResponseStream::finish`] returns a
//! [`StreamedResponse`]: the assistant message in the API's own shape, the calls, the text,
//! the stop reason, an error the API sent inside the stream ([`StreamedError`]) and whether
//! the stream said it was complete.
//!
//! The event shapes, per API:
//! - Anthropic Messages: <https://docs.anthropic.com/en/api/messages-streaming>;
//! - OpenAI Chat Completions: <https://platform.openai.com/docs/api-reference/chat-streaming>;
//! - OpenAI Responses: <https://platform.openai.com/docs/api-reference/responses-streaming>;
//! - Gemini `streamGenerateContent?alt=sse`:
//!   <https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent>.
//!
//! ```
//! use serde_json::json;
//! use tool_registry::providers::ModelApi;
//!
//! let mut stream = ModelApi::Anthropic.stream(&[]).unwrap();
//! let mut started = Vec::new();
//! let sse = concat!(
//!     "event: content_block_start\n",
//!     "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
//!     "event: content_block_delta\n",
//!     "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Reading.\"}}\n\n",
//!     "event: content_block_start\n",
//!     "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Read\",\"input\":{}}}\n\n",
//!     "event: content_block_delta\n",
//!     "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"file_path\\\": \\\"/a\"}}\n\n",
//!     "event: content_block_delta\n",
//!     "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"}\"}}\n\n",
//!     "event: content_block_stop\n",
//!     "data: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
//! );
//! stream.push_bytes(sse.as_bytes(), &mut started).unwrap();
//! assert_eq!(stream.text(), "Reading.");
//! assert_eq!(started.len(), 1); // handed over at content_block_stop, before the stream ends
//! let response = stream.finish(&mut started);
//! assert_eq!(response.calls.calls[0].input, Ok(json!({"file_path": "/a"})));
//! assert_eq!(response.message["content"][1]["input"], json!({"file_path": "/a"}));
//! assert!(!response.ended); // no `message_stop`: the body was cut short
//! ```

mod anthropic;
mod assemble;
mod error;
mod gemini;
mod openai_chat;
mod openai_responses;
mod response;
mod sse;

pub use error::{StreamError, StreamedError};
pub use response::{CallSink, ResponseStream, StreamedResponse};
