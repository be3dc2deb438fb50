//! Every call runs in an `execute_tool` span of the OpenTelemetry GenAI semantic conventions:
//! named `execute_tool {gen_ai.tool.name}` (the `otel.name` field `tracing-opentelemetry`
//! reads), with the tool's canonical name, the `tool_use` id and the tool type, and on failure
//! `error.type` (`tool_error` for an error the tool answered, the refusing step otherwise) and
//! the `ERROR` status; the input and result only when the host opts in.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use common::{all_tools, blocks};
use serde_json::json;
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};

/// The fields of every `execute_tool` span, by span id, as `name=value` text.
#[derive(Default)]
struct Spans {
    next: AtomicU64,
    fields: Mutex<BTreeMap<u64, BTreeMap<String, String>>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

struct Capture(Arc<Spans>);

impl tracing::Subscriber for Capture {
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::sometimes()
    }
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        metadata.name() == "execute_tool"
    }
    fn new_span(&self, attributes: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let id = self.0.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut fields = BTreeMap::new();
        attributes.record(&mut Fields(&mut fields));
        self.0.fields.lock().unwrap().insert(id, fields);
        tracing::span::Id::from_u64(id)
    }
    fn record(&self, span: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut all = self.0.fields.lock().unwrap();
        if let Some(fields) = all.get_mut(&span.into_u64()) {
            values.record(&mut Fields(fields));
        }
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// Runs `blocks` one by one through an orchestrator with `config`, and returns the fields of
/// their spans in order.
fn spans_of(
    blocks_json: serde_json::Value,
    config: OrchestratorConfig,
) -> Vec<BTreeMap<String, String>> {
    let spans = Arc::new(Spans::default());
    let _guard = tracing::subscriber::set_default(Capture(Arc::clone(&spans)));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let orchestrator = Orchestrator::new(&all_tools(), config);
    let turn = TurnState::default();
    for block in blocks(blocks_json) {
        runtime.block_on(orchestrator.run_tool_use(orchestrator.prepare(block), &turn, None));
    }
    spans.fields.lock().unwrap().values().cloned().collect()
}

#[test]
fn each_call_is_an_execute_tool_span_with_its_error_type() {
    let recorded = spans_of(
        json!([
            {"id": "toolu_ok", "name": "Sleep", "input": {"ms": 1, "tag": "done"}},
            {"id": "toolu_alias", "name": "Todo", "input": {"todos": []}},
            {"id": "toolu_missing", "name": "Nope", "input": {}},
            {"id": "toolu_bad", "name": "Sleep", "input": {"ms": "soon", "tag": "x"}},
            {"id": "toolu_refused", "name": "Probe", "input": {"mode": "refuse"}},
            {"id": "toolu_failed", "name": "Sleep", "input": {"ms": 0, "tag": "t", "fail": true}},
            {"id": "toolu_panicked", "name": "Probe", "input": {"mode": "panic-call"}},
        ]),
        OrchestratorConfig::default(),
    );
    let field = |fields: &BTreeMap<String, String>, name: &str| {
        fields.get(name).cloned().unwrap_or_else(|| "-".to_owned())
    };
    let summary: Vec<[String; 6]> = recorded
        .iter()
        .map(|fields| {
            [
                field(fields, "otel.name"),
                field(fields, "gen_ai.tool.name"),
                field(fields, "gen_ai.tool.call.id"),
                field(fields, "gen_ai.tool.type"),
                field(fields, "error.type"),
                field(fields, "otel.status_code"),
            ]
        })
        .collect();
    let row = |cells: [&str; 6]| cells.map(str::to_owned);
    assert_eq!(
        summary,
        [
            row([
                "execute_tool Sleep",
                "Sleep",
                "toolu_ok",
                "function",
                "-",
                "-"
            ]),
            // Called by its alias, named by its name.
            row([
                "execute_tool TodoWrite",
                "TodoWrite",
                "toolu_alias",
                "function",
                "-",
                "-"
            ]),
            row([
                "execute_tool Nope",
                "Nope",
                "toolu_missing",
                "-",
                "unknown_tool",
                "ERROR"
            ]),
            row([
                "execute_tool Sleep",
                "Sleep",
                "toolu_bad",
                "function",
                "invalid_input",
                "ERROR"
            ]),
            row([
                "execute_tool Probe",
                "Probe",
                "toolu_refused",
                "function",
                "validation_failed",
                "ERROR"
            ]),
            row([
                "execute_tool Sleep",
                "Sleep",
                "toolu_failed",
                "function",
                "tool_error",
                "ERROR"
            ]),
            row([
                "execute_tool Probe",
                "Probe",
                "toolu_panicked",
                "function",
                "panic",
                "ERROR"
            ]),
        ]
    );
    for fields in &recorded {
        assert_eq!(fields["gen_ai.operation.name"], "execute_tool");
        assert_eq!(fields["otel.kind"], "internal");
        assert!(
            !fields.contains_key("gen_ai.tool.call.arguments")
                && !fields.contains_key("gen_ai.tool.call.result"),
            "content is recorded only when asked: {fields:?}"
        );
    }
}

#[test]
fn input_and_result_are_recorded_only_when_the_host_opts_in() {
    let config = OrchestratorConfig {
        capture_tool_content: true,
        ..OrchestratorConfig::default()
    };
    let recorded = spans_of(
        json!([{"id": "toolu_ok", "name": "Sleep", "input": {"ms": 1, "tag": "secret-ish"}}]),
        config,
    );
    // JSON text: the input as the model sent it, the result's content.
    let arguments: serde_json::Value =
        serde_json::from_str(&recorded[0]["gen_ai.tool.call.arguments"]).unwrap();
    assert_eq!(arguments, json!({"ms": 1, "tag": "secret-ish"}));
    let result: serde_json::Value =
        serde_json::from_str(&recorded[0]["gen_ai.tool.call.result"]).unwrap();
    assert_eq!(result, json!("secret-ish"));
}

/// Answers every call with a success of its own, whatever the tool said.
#[derive(Clone)]
struct Rescue;

impl tower::Layer<tool_registry::orchestration::middleware::ToolService> for Rescue {
    type Service = tool_registry::orchestration::middleware::ToolService;
    fn layer(
        &self,
        inner: tool_registry::orchestration::middleware::ToolService,
    ) -> tool_registry::orchestration::middleware::ToolService {
        use tower::ServiceExt as _;
        tool_registry::orchestration::middleware::ToolService::new(tower::service_fn(
            move |request: tool_registry::orchestration::middleware::ToolRequest| {
                let inner = inner.clone();
                async move {
                    let id = request.context().tool_use_id().to_owned();
                    let mut outcome = inner.oneshot(request).await?;
                    if outcome.result.is_error {
                        outcome.result = tool_sdk::ToolResultBlock::success(
                            id,
                            tool_sdk::ToolResultContent::Text("rescued".into()),
                        );
                    }
                    Ok::<_, tower::BoxError>(outcome)
                }
            },
        ))
    }
}

#[test]
fn a_call_a_layer_answered_with_success_records_no_error() {
    let spans = Arc::new(Spans::default());
    let _guard = tracing::subscriber::set_default(Capture(Arc::clone(&spans)));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let orchestrator = Orchestrator::new(&all_tools(), OrchestratorConfig::default()).layer(Rescue);
    let block = blocks(json!([
        {"id": "toolu_failed", "name": "Sleep", "input": {"ms": 0, "tag": "t", "fail": true}}
    ]))
    .pop()
    .unwrap();
    let outcome = runtime.block_on(orchestrator.run_tool_use(
        orchestrator.prepare(block),
        &TurnState::default(),
        None,
    ));
    assert!(!outcome.result.is_error);
    let recorded: Vec<BTreeMap<String, String>> =
        spans.fields.lock().unwrap().values().cloned().collect();
    assert_eq!(recorded.len(), 1);
    assert!(
        !recorded[0].contains_key("error.type") && !recorded[0].contains_key("otel.status_code"),
        "{recorded:?}"
    );
}
