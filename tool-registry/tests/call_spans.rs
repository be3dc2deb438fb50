//! Every call runs in a `tool_call` span naming the tool and the `tool_use` id, and recording
//! the outcome and the duration when it ends.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use common::{all_tools, blocks};
use serde_json::json;
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};

/// The fields of every `tool_call` span, by span id, as `name=value` text.
#[derive(Default)]
struct Spans {
    next: AtomicU64,
    fields: Mutex<BTreeMap<u64, BTreeMap<String, String>>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(
            field.name().to_owned(),
            format!("{value:?}").replace('"', ""),
        );
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
        metadata.name() == "tool_call"
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

#[test]
fn each_call_records_tool_id_outcome_and_duration() {
    let spans = Arc::new(Spans::default());
    let _guard = tracing::subscriber::set_default(Capture(Arc::clone(&spans)));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let orchestrator = Orchestrator::new(&all_tools(), OrchestratorConfig::default());
    let turn = TurnState::default();
    for block in blocks(json!([
        {"id": "toolu_ok", "name": "Sleep", "input": {"ms": 1, "tag": "done"}},
        {"id": "toolu_missing", "name": "Nope", "input": {}},
    ])) {
        runtime.block_on(orchestrator.run_tool_use(orchestrator.prepare(&block), &turn, None));
    }
    let recorded: Vec<BTreeMap<String, String>> =
        spans.fields.lock().unwrap().values().cloned().collect();
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    let summary: Vec<(&str, &str, &str)> = recorded
        .iter()
        .map(|fields| {
            (
                fields["tool"].as_str(),
                fields["tool_use_id"].as_str(),
                fields["outcome"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("Sleep", "toolu_ok", "success"),
            ("Nope", "toolu_missing", "error")
        ]
    );
    let slept: u64 = recorded[0]["duration_us"].parse().unwrap();
    assert!(slept >= 1_000, "the 1 ms sleep took {slept} µs");
}
