//! MCP spans, after the OpenTelemetry semantic conventions for MCP (`docs/gen-ai/mcp.md`,
//! open-telemetry/semantic-conventions-genai, Development status, November 2026), and the
//! trace context carried in a request's `_meta` (`traceparent` / `tracestate`, W3C Trace
//! Context, MCP SEP-414).
//!
//! A served `tools/call` is a `tools/call {gen_ai.tool.name}` span of kind `SERVER`, the
//! `execute_tool` span of the call its child; a call to an imported server's tool is a
//! `tools/call {gen_ai.tool.name}` span of kind `CLIENT`. Both carry `mcp.method.name`,
//! `gen_ai.tool.name`, `gen_ai.operation.name` (`execute_tool`), `jsonrpc.request.id` (served
//! side), `mcp.protocol.version` when known, and on failure `error.type` with status `ERROR`:
//! served, `tool_error` for an `isError` result and the JSON-RPC error code for an error;
//! sent, `tool_error` for any failure; either side, `cancelled` when the call was dropped
//! before it ended. With the `otel`
//! feature, a served call whose `_meta` has a `traceparent` continues that trace, and every
//! call to an imported server sends the trace context of its span in `_meta`; the durations
//! go to the `mcp.server.operation.duration` / `mcp.client.operation.duration` histograms.

#[cfg(feature = "otel")]
use std::time::Instant;

use rmcp::model::{CallToolResponse, ErrorData, MetaObject};
use rmcp::service::{RequestContext, RoleServer};

/// A served `tools/call`'s span (and with the `otel` feature when it started). Dropped before
/// [`Served::finish`] (the client cancelled, the connection closed), it ends as `cancelled`.
pub(crate) struct Served {
    span: tracing::Span,
    timing: Timing,
    done: bool,
}

impl Drop for Served {
    fn drop(&mut self) {
        if !self.done {
            finish(&self.span, Side::Server, &self.timing, Some("cancelled"));
        }
    }
}

/// What a call's duration is recorded with (with the `otel` feature): its tool and when it
/// started. Empty without the feature, which records no durations.
struct Timing {
    #[cfg(feature = "otel")]
    tool: String,
    #[cfg(feature = "otel")]
    started: Instant,
}

impl Timing {
    fn start(tool: &str) -> Self {
        #[cfg(not(feature = "otel"))]
        let _ = tool;
        Self {
            #[cfg(feature = "otel")]
            tool: tool.to_owned(),
            #[cfg(feature = "otel")]
            started: Instant::now(),
        }
    }
}

impl Served {
    /// The span of the served call of `tool` that `context` carries.
    /// `version`: the request's protocol version, when known.
    pub(crate) fn start(
        tool: &str,
        context: &RequestContext<RoleServer>,
        version: Option<&str>,
    ) -> Self {
        Self {
            span: server_span(
                "tools/call",
                Some(tool),
                &context.id,
                version,
                &context.meta,
            ),
            timing: Timing::start(tool),
            done: false,
        }
    }

    /// The span, to run the call in.
    pub(crate) fn span(&self) -> tracing::Span {
        self.span.clone()
    }

    /// Records how the call ended: `tool_error` for an `isError` result, the JSON-RPC error's
    /// code for an error.
    pub(crate) fn finish(mut self, response: &Result<CallToolResponse, ErrorData>) {
        self.done = true;
        let code;
        let error_type = match response {
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
                Some("tool_error")
            }
            Ok(_) => None,
            Err(error) => {
                code = error.code.0.to_string();
                Some(code.as_str())
            }
        };
        finish(&self.span, Side::Server, &self.timing, error_type);
    }
}

/// A served request's span: `{method} {target}` (kind `SERVER`), continuing the trace of the
/// `traceparent` in its `_meta` (with the `otel` feature).
fn server_span(
    method: &'static str,
    tool: Option<&str>,
    request_id: &rmcp::model::RequestId,
    protocol_version: Option<&str>,
    meta: &MetaObject,
) -> tracing::Span {
    let span = tracing::info_span!(
        target: "tool_registry::mcp",
        "mcp.server",
        otel.name = %SpanName(method, tool),
        otel.kind = "server",
        mcp.method.name = method,
        gen_ai.tool.name = tool,
        gen_ai.operation.name = tool.map(|_| "execute_tool"),
        jsonrpc.request.id = %request_id,
        mcp.protocol.version = protocol_version,
        error.type = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    );
    #[cfg(feature = "otel")]
    if !span.is_disabled() {
        crate::telemetry::continue_trace(&span, meta.get_traceparent(), meta.get_tracestate());
    }
    #[cfg(not(feature = "otel"))]
    let _ = meta;
    span
}

/// The span of a `tools/call` to the imported server `server` (kind `CLIENT`).
fn client_span(server: &str, tool: &str) -> tracing::Span {
    tracing::info_span!(
        target: "tool_registry::mcp",
        "mcp.client",
        otel.name = %SpanName("tools/call", Some(tool)),
        otel.kind = "client",
        mcp.method.name = "tools/call",
        gen_ai.tool.name = tool,
        gen_ai.operation.name = "execute_tool",
        // The server's name as configured (no conventional attribute names it).
        tool_registry.mcp.server = server,
        error.type = tracing::field::Empty,
        otel.status_code = tracing::field::Empty,
    )
}

/// A `tools/call` sent to an imported server: its span (and with the `otel` feature when it
/// started). Dropped before [`Sent::finish`] (the turn was aborted, a layer timed the call
/// out), it ends as `cancelled`.
pub(crate) struct Sent {
    span: tracing::Span,
    timing: Timing,
    done: bool,
}

impl Sent {
    /// The span of a call of `tool` on the server `server`.
    pub(crate) fn start(server: &str, tool: &str) -> Self {
        Self {
            span: client_span(server, tool),
            timing: Timing::start(tool),
            done: false,
        }
    }

    /// The span, to send the call in.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Records how the call ended: `tool_error` for any failure (this side cannot tell a
    /// tool's error from the server's or the transport's once they are one `ToolError`).
    pub(crate) fn finish(mut self, failed: bool) {
        self.done = true;
        let error_type = failed.then_some("tool_error");
        finish(&self.span, Side::Client, &self.timing, error_type);
    }
}

impl Drop for Sent {
    fn drop(&mut self) {
        if !self.done {
            finish(&self.span, Side::Client, &self.timing, Some("cancelled"));
        }
    }
}

/// Writes `span`'s trace context into `meta` (`traceparent`, and `tracestate` when there is
/// one), with the `otel` feature and when the span is exported; leaves `meta` as it is
/// otherwise.
pub(crate) fn inject(span: &tracing::Span, meta: &mut MetaObject) {
    #[cfg(feature = "otel")]
    if !span.is_disabled()
        && let Some((traceparent, tracestate)) = crate::telemetry::trace_context_of(span)
    {
        meta.set_traceparent(traceparent);
        if let Some(tracestate) = tracestate {
            meta.set_tracestate(tracestate);
        }
    }
    #[cfg(not(feature = "otel"))]
    let _ = (span, meta);
}

/// Which end of a request a span is.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Side {
    /// A request this process serves.
    Server,
    /// A request this process sends.
    Client,
}

/// Records on `span` how the `tools/call` `timing` follows ended (`error_type`; `None`: it
/// succeeded), and with the `otel` feature its duration.
fn finish(span: &tracing::Span, side: Side, timing: &Timing, error_type: Option<&str>) {
    if let Some(error_type) = error_type {
        span.record("error.type", error_type);
        span.record("otel.status_code", "ERROR");
    }
    #[cfg(feature = "otel")]
    crate::telemetry::record_mcp_duration(
        matches!(side, Side::Server),
        &timing.tool,
        timing.started.elapsed().as_secs_f64(),
        error_type,
    );
    #[cfg(not(feature = "otel"))]
    let _ = (side, timing);
}

/// `method` alone, or `method target`.
struct SpanName<'a>(&'static str, Option<&'a str>);

impl std::fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            Some(target) => write!(f, "{} {target}", self.0),
            None => f.write_str(self.0),
        }
    }
}
