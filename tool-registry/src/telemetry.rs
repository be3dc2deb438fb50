//! OpenTelemetry export (feature `otel`): the spans every call already makes (`execute_tool`,
//! the MCP spans) and the duration histograms, sent over OTLP (HTTP/protobuf) by the standard
//! crates (`tracing-opentelemetry`, `opentelemetry-otlp`), configured by the standard
//! variables.
//!
//! Nothing is exported unless asked: [`Telemetry::from_env`] is `None` when neither
//! `OTEL_EXPORTER_OTLP_ENDPOINT` nor `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set.
//!
//! ```no_run
//! use tracing_subscriber::layer::SubscriberExt as _;
//! use tracing_subscriber::util::SubscriberInitExt as _;
//!
//! // OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_SERVICE_NAME=my-agent
//! let telemetry = tool_registry::telemetry::Telemetry::from_env().expect("a valid setup");
//! tracing_subscriber::registry()
//!     .with(telemetry.as_ref().map(|telemetry| telemetry.layer()))
//!     .init();
//! // ... run tool calls ...
//! if let Some(telemetry) = telemetry {
//!     telemetry.shutdown().expect("the last spans are sent");
//! }
//! ```
//!
//! What is exported, after the OpenTelemetry GenAI semantic conventions
//! (open-telemetry/semantic-conventions-genai, Development status, November 2026):
//! - every call through `Orchestrator`: an `execute_tool {gen_ai.tool.name}` span (kind
//!   `INTERNAL`; `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
//!   `gen_ai.tool.type`; on failure `error.type` and status `ERROR`; opt-in arguments and
//!   result, see `OrchestratorConfig::capture_tool_content`) and the
//!   `gen_ai.execute_tool.duration` histogram (seconds; `gen_ai.operation.name`,
//!   `gen_ai.tool.name`, `error.type`). `error.type` is `tool_error` when the tool answered
//!   with an error, otherwise why the call was refused: `unknown_tool`, `cancelled`,
//!   `invalid_input`, `validation_failed`, `hook_stopped`, `permission_denied`, `panic`.

use std::sync::{Arc, RwLock};

use opentelemetry::KeyValue;
use opentelemetry::metrics::Histogram;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;

/// The instrumentation scope of everything this crate exports.
const SCOPE: &str = "tool-registry";

/// An OTLP export pipeline: a tracer provider for spans and a meter provider for the duration
/// histograms, both batching in the background. [`Telemetry::shutdown`] sends what is left;
/// dropping it without shutting down may lose the last batch.
#[derive(Debug)]
pub struct Telemetry {
    tracer: SdkTracerProvider,
    meter: SdkMeterProvider,
}

/// The export could not be set up or shut down: the message says what and why.
#[derive(Debug, thiserror::Error)]
#[error("OpenTelemetry export: {0}")]
pub struct TelemetryError(String);

impl Telemetry {
    /// The pipeline the standard variables ask for, or `None` when none is asked for.
    ///
    /// Read (the OpenTelemetry SDK environment specification): `OTEL_EXPORTER_OTLP_ENDPOINT`
    /// (e.g. `http://127.0.0.1:4318`; spans go to `/v1/traces`, metrics to `/v1/metrics`) or
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `..._METRICS_ENDPOINT` (full URLs),
    /// `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_SERVICE_NAME`,
    /// `OTEL_RESOURCE_ATTRIBUTES`, and `OTEL_METRICS_EXPORTER` (`none`: spans only). Only
    /// HTTP/protobuf is spoken. Also makes W3C trace
    /// context (`traceparent`) the global propagator and this meter provider the global one.
    ///
    /// # Errors
    /// [`TelemetryError`] when an exporter cannot be built (a malformed endpoint or header).
    pub fn from_env() -> Result<Option<Self>, TelemetryError> {
        let asked = [
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        ]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()));
        if !asked {
            return Ok(None);
        }
        // Metrics go out only to an endpoint that was given for them (the common one or
        // their own; a traces endpoint alone sends no metrics to a default `localhost`), and
        // not with `OTEL_METRICS_EXPORTER=none` (a backend that takes only traces answers
        // their POSTs 404 or 405); `otlp`, the default, is the only other choice.
        let set = |name: &str| std::env::var_os(name).is_some_and(|value| !value.is_empty());
        let export_metrics = (set("OTEL_EXPORTER_OTLP_ENDPOINT")
            || set("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"))
            && std::env::var("OTEL_METRICS_EXPORTER")
                .map_or(true, |value| !value.trim().eq_ignore_ascii_case("none"));
        let resource = Resource::builder().build();
        let spans = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .build()
            .map_err(|error| TelemetryError(format!("the span exporter: {error}")))?;
        let tracer = SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .with_resource(resource.clone())
            .build();
        let mut meter = SdkMeterProvider::builder().with_resource(resource);
        if export_metrics {
            let metrics = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .build()
                .map_err(|error| TelemetryError(format!("the metric exporter: {error}")))?;
            meter = meter.with_periodic_exporter(metrics);
        }
        let meter = meter.build();
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        opentelemetry::global::set_meter_provider(meter.clone());
        *INSTRUMENTS.write().unwrap_or_else(|e| e.into_inner()) =
            Some(Arc::new(Instruments::of(&meter)));
        Ok(Some(Self { tracer, meter }))
    }

    /// The `tracing` layer that turns spans into OpenTelemetry spans of this pipeline (the
    /// `otel.name`, `otel.kind` and `otel.status_code` fields name them, set their kind and
    /// status, as `tracing-opentelemetry` reads them).
    pub fn layer<S>(&self) -> impl tracing_subscriber::Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        tracing_opentelemetry::layer().with_tracer(self.tracer.tracer(SCOPE))
    }

    /// Sends every span and metric not sent yet, and goes on (for a process about to end
    /// without running [`Telemetry::shutdown`], e.g. on a signal).
    ///
    /// # Errors
    /// [`TelemetryError`] when the backend could not be reached or refused the batch.
    pub fn flush(&self) -> Result<(), TelemetryError> {
        let spans = self.tracer.force_flush();
        let metrics = self.meter.force_flush();
        spans.map_err(|error| TelemetryError(format!("sending the spans: {error}")))?;
        metrics.map_err(|error| TelemetryError(format!("sending the metrics: {error}")))
    }

    /// Sends every span and metric not sent yet, then stops the pipeline.
    ///
    /// # Errors
    /// [`TelemetryError`] when the backend could not be reached or refused the last batch.
    pub fn shutdown(self) -> Result<(), TelemetryError> {
        let spans = self.tracer.shutdown();
        let metrics = self.meter.shutdown();
        spans.map_err(|error| TelemetryError(format!("sending the last spans: {error}")))?;
        metrics.map_err(|error| TelemetryError(format!("sending the last metrics: {error}")))
    }
}

/// The histograms this crate records, made from the meter provider of the last
/// [`Telemetry::from_env`]; none before it (a call then records nothing).
struct Instruments {
    tool: Histogram<f64>,
    mcp_server: Histogram<f64>,
    mcp_client: Histogram<f64>,
}

impl Instruments {
    fn of(provider: &SdkMeterProvider) -> Self {
        use opentelemetry::metrics::MeterProvider as _;
        let meter = provider.meter(SCOPE);
        let histogram = |name: &'static str, description: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .build()
        };
        Self {
            tool: histogram("gen_ai.execute_tool.duration", "Duration of tool execution"),
            mcp_server: histogram(
                "mcp.server.operation.duration",
                "Duration of MCP requests served",
            ),
            mcp_client: histogram(
                "mcp.client.operation.duration",
                "Duration of MCP requests sent",
            ),
        }
    }
}

static INSTRUMENTS: RwLock<Option<Arc<Instruments>>> = RwLock::new(None);

fn instruments() -> Option<Arc<Instruments>> {
    INSTRUMENTS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(Arc::clone)
}

/// Records one call of `tool` that took `seconds`, failed with `error_type` when `Some`.
pub(crate) fn record_tool_duration(tool: &str, seconds: f64, error_type: Option<&'static str>) {
    let Some(instruments) = instruments() else {
        return;
    };
    let mut attributes = vec![
        KeyValue::new("gen_ai.operation.name", "execute_tool"),
        KeyValue::new("gen_ai.tool.name", tool.to_owned()),
    ];
    if let Some(error_type) = error_type {
        attributes.push(KeyValue::new("error.type", error_type));
    }
    instruments.tool.record(seconds, &attributes);
}

#[cfg(feature = "mcp")]
/// Records one `tools/call` of `tool`, served (`server`) or sent, that took `seconds`.
pub(crate) fn record_mcp_duration(
    server: bool,
    tool: &str,
    seconds: f64,
    error_type: Option<&str>,
) {
    // No instruments installed: nothing to build the attributes for.
    let Some(instruments) = instruments() else {
        return;
    };
    let mut attributes = vec![
        KeyValue::new("mcp.method.name", "tools/call"),
        KeyValue::new("gen_ai.tool.name", tool.to_owned()),
        KeyValue::new("gen_ai.operation.name", "execute_tool"),
    ];
    if let Some(error_type) = error_type {
        attributes.push(KeyValue::new("error.type", error_type.to_owned()));
    }
    let histogram = if server {
        &instruments.mcp_server
    } else {
        &instruments.mcp_client
    };
    histogram.record(seconds, &attributes);
}

#[cfg(feature = "mcp")]
/// Makes `span` continue the trace of a W3C `traceparent` (and `tracestate`) received in an
/// MCP request's `_meta` (SEP-414); a missing or malformed `traceparent` leaves it a root.
pub(crate) fn continue_trace(
    span: &tracing::Span,
    traceparent: Option<&str>,
    tracestate: Option<&str>,
) {
    use opentelemetry::propagation::TextMapPropagator as _;
    use opentelemetry::trace::TraceContextExt as _;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    let Some(traceparent) = traceparent else {
        return;
    };
    let mut carrier = std::collections::HashMap::new();
    carrier.insert("traceparent".to_owned(), traceparent.to_owned());
    if let Some(tracestate) = tracestate {
        carrier.insert("tracestate".to_owned(), tracestate.to_owned());
    }
    let context = TraceContextPropagator::new().extract(&carrier);
    if context.span().span_context().is_valid() {
        let _ = span.set_parent(context);
    }
}

#[cfg(feature = "mcp")]
/// The W3C `traceparent` (and `tracestate`, when not empty) of `span`, when it is exported.
pub(crate) fn trace_context_of(span: &tracing::Span) -> Option<(String, Option<String>)> {
    use opentelemetry::propagation::TextMapPropagator as _;
    use opentelemetry::trace::TraceContextExt as _;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    let context = span.context();
    if !context.span().span_context().is_valid() {
        return None;
    }
    let mut carrier = std::collections::HashMap::new();
    TraceContextPropagator::new().inject_context(&context, &mut carrier);
    let traceparent = carrier.remove("traceparent")?;
    let tracestate = carrier
        .remove("tracestate")
        .filter(|state| !state.is_empty());
    Some((traceparent, tracestate))
}
