//! What `dispatch` and `dispatch_paired` both measure: a no-op `#[tool]`, pools of N tools
//! holding it, and the hand-written registry it is compared with.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tool_registry::orchestration::CallOutcome;
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::prelude::*;
use tool_sdk::{
    InputError, MaxResultSize, ToolMeta, ToolOutput, ToolResultContent, ToolUseBlock, dyn_tool,
};

/// Does nothing with its text and answers "ok".
#[tool(
    name = "Noop",
    read_only,
    concurrency_safe,
    max_result_size_chars = 1_000
)]
#[derive(Deserialize, JsonSchema)]
pub struct Noop {
    /// Ignored.
    pub text: String,
}

#[tool]
impl Tool for Noop {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        black_box(&self.text);
        Ok(ToolResult::new("ok".to_owned()))
    }
}

/// A pool filler: a run-time tool that is never called.
struct Filler {
    meta: ToolMeta,
    schema: Value,
}

impl DynTool for Filler {
    fn is_enabled(&self) -> bool {
        true
    }

    fn has_json_schema(&self) -> bool {
        false
    }

    fn shared_input_schema(&self) -> Option<&'static Value> {
        None
    }

    fn output_schema(&self) -> Option<&Value> {
        None
    }

    fn definition_site(&self) -> Option<tool_sdk::DefinitionSite> {
        None
    }

    fn meta(&self) -> &ToolMeta {
        &self.meta
    }
    fn prompt(&self) -> Cow<'_, str> {
        Cow::Borrowed("filler")
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn parse_input(&self, _input: &Value) -> Result<Box<dyn ToolCall>, InputError> {
        Err(InputError::new(Vec::new()))
    }
}

/// `size` tools: `size - 1` fillers named `tool_00001`... and `Noop`.
pub fn pool(size: usize) -> Vec<Arc<dyn DynTool>> {
    let mut tools: Vec<Arc<dyn DynTool>> = (1..size)
        .map(|i| {
            Arc::new(Filler {
                meta: ToolMeta::new(format!("tool_{i:05}"), MaxResultSize::Chars(1_000)),
                schema: json!({"type": "object", "properties": {}}),
            }) as Arc<dyn DynTool>
        })
        .collect();
    tools.push(dyn_tool::<Noop>());
    tools
}

/// A hand-written registry's entry: parses its input and runs.
pub type Handler = Box<dyn Fn(Value) -> BoxFuture<'static, Result<String, String>> + Send + Sync>;

/// What a hand-written registry does: a map from name to a closure that parses and calls.
pub fn hand_registry(size: usize) -> HashMap<String, Handler> {
    hand_registry_with(size)
}

/// [`hand_registry`] with the hasher `S` (the SDK's index uses foldhash).
pub fn hand_registry_with<S: BuildHasher + Default>(size: usize) -> HashMap<String, Handler, S> {
    let mut map: HashMap<String, Handler, S> = (1..size)
        .map(|i| {
            let handler: Handler = Box::new(|_| Box::pin(async { Err("filler".to_owned()) }));
            (format!("tool_{i:05}"), handler)
        })
        .collect();
    let noop: Handler = Box::new(|input| {
        Box::pin(async move {
            let args: Noop = serde_json::from_value(input).map_err(|e| e.to_string())?;
            black_box(&args.text);
            Ok("ok".to_owned())
        })
    });
    map.insert("Noop".to_owned(), noop);
    map
}

/// One SDK dispatch: `find_tool` + `DynTool::dispatch` of `input` (read where it is) with a fresh
/// detached context, polled once. The id goes through `black_box`, as a model's id is not
/// known when the code is compiled.
pub fn sdk_dispatch(orchestrator: &Orchestrator, input: &Value) -> ToolOutput {
    let tool = orchestrator.find_tool(black_box("Noop")).unwrap();
    tool.dispatch(input, &ToolUseContext::detached(black_box("toolu_1")))
        .unwrap()
        .now_or_never()
        .expect("the no-op finishes at once")
        .unwrap()
}

/// One hand-written dispatch: map lookup + the handler on a copy of `input`, polled once.
pub fn hand_dispatch<S: BuildHasher>(hand: &HashMap<String, Handler, S>, input: &Value) -> String {
    let handler = hand.get(black_box("Noop")).unwrap();
    handler(input.clone())
        .now_or_never()
        .expect("the no-op finishes at once")
        .unwrap()
}

/// What the `run_tool_use` comparison runs: a current-thread runtime, an orchestrator over a
/// pool of 100, the `Noop` block and a default turn.
pub struct RunToolUse {
    runtime: tokio::runtime::Runtime,
    orchestrator: Orchestrator,
    block: ToolUseBlock,
    turn: TurnState,
}

impl RunToolUse {
    /// The fixture.
    pub fn new() -> Self {
        Self {
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            orchestrator: Orchestrator::new(&pool(100), OrchestratorConfig::default()),
            block: ToolUseBlock {
                id: "toolu_1".into(),
                name: "Noop".into(),
                input: json!({"text": "hello"}),
            },
            turn: TurnState::default(),
        }
    }

    /// The whole SPEC §5.4 pipeline for the block, inside `block_on`.
    pub fn sdk(&self) -> CallOutcome {
        self.runtime.block_on(self.orchestrator.run_tool_use(
            self.orchestrator.prepare(self.block.clone()),
            &self.turn,
            None,
        ))
    }

    /// Parsing the input with serde, calling the tool's function and mapping its output,
    /// inside `block_on`.
    pub fn direct(&self) -> ToolResultContent {
        self.runtime.block_on(async {
            let args: Noop = serde_json::from_value(self.block.input.clone()).unwrap();
            let ctx = ToolUseContext::detached("toolu_1");
            let result = args.call(&ctx).await.unwrap();
            <Noop as Tool>::map_result(result.data, "toolu_1")
        })
    }
}

/// Nanoseconds per call of `call`, over `calls` calls.
#[allow(dead_code, reason = "the paired benches use it; `dispatch` does not")]
pub fn time_per_call(calls: u32, call: &mut impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        call();
    }
    start.elapsed().as_secs_f64() * 1e9 / f64::from(calls)
}

/// The value at `fraction` (0 to 1) of the sorted `values`.
#[allow(dead_code, reason = "the paired benches use it; `dispatch` does not")]
pub fn quantile(values: &mut [f64], fraction: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let position = ((values.len() - 1) as f64 * fraction).round() as usize;
    values[position]
}
