//! `tool-host search QUERY [--max-results N] [--json] [pool options]`: runs the ToolSearch tool
//! over the pool the options describe (SPEC §3), as a model's call would.

use clap::Args;
use serde_json::json;
use tool_registry::providers::{ModelApi, ToolCalls};
use tool_registry::search::{SearchState, TOOL_SEARCH_NAME, ToolSearchConfig};
use tool_registry::{Orchestrator, OrchestratorConfig, ToolRegistry, TurnState};
use tool_sdk::{Extensions, ResultBlock, ToolResultContent, ToolUseBlock};

use crate::pool_options::PoolOptions;

/// The `search` command's arguments.
#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Keywords (`notebook jupyter`, `+slack send`), an exact name, an `mcp__server` prefix, or
    /// `select:NAME1,NAME2`.
    pub query: String,
    /// At most this many keyword matches, 1 to 100.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(1..=100))]
    pub max_results: u8,
    /// Print the `tool_result` block the model would receive, as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub pool: PoolOptions,
}

/// The id of the `tool_use` block this command answers.
const TOOL_USE_ID: &str = "toolu_tool_host_search";

/// Builds the pool (with ToolSearch added, as a host with search enabled has it), runs one
/// ToolSearch call and prints its matches, or with `--json` the `tool_result` block.
pub fn run(registry: &ToolRegistry, args: &SearchArgs) -> Result<(), String> {
    let mut tools = args.pool.build(registry)?.tools().to_vec();
    let config = ToolSearchConfig::default();
    config.insert_tool_search(&mut tools);
    let deferred = tools
        .iter()
        .filter(|tool| config.deferral.is_deferred(tool.as_ref()))
        .count();
    let total = tools.len();
    let state = SearchState::new(tools.clone()).with_rules(config.deferral);
    // One call through the orchestrator, as a model's call would run.
    let orchestrator = Orchestrator::new(&tools, OrchestratorConfig::default());
    let turn = TurnState {
        extensions: Extensions::new().with(state),
        ..TurnState::default()
    };
    let block = ToolUseBlock {
        id: TOOL_USE_ID.to_owned(),
        name: TOOL_SEARCH_NAME.to_owned(),
        input: json!({"query": args.query, "max_results": args.max_results}),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    let outcome = runtime.block_on(orchestrator.run_tool_use(
        orchestrator.prepare(block.clone()),
        &turn,
        None,
    ));
    let result = outcome.result;
    if result.is_error {
        return Err(result.text());
    }
    if args.json {
        // The `tool_result` block as the Anthropic writer puts it in the user message.
        let message = ModelApi::Anthropic
            .write_results(&ToolCalls::from(vec![block]), vec![result], &[])
            .map_err(|error| error.to_string())?;
        let text = serde_json::to_string_pretty(&message["content"][0])
            .map_err(|error| error.to_string())?;
        println!("{text}");
        return Ok(());
    }
    print!("{}", describe(&result.content, deferred, total));
    Ok(())
}

/// One line per match, numbered, then how many tools were searched; or the no-match text.
fn describe(content: &ToolResultContent, deferred: usize, total: usize) -> String {
    let mut text = String::new();
    match content {
        ToolResultContent::Blocks(blocks) => {
            for (index, block) in blocks.iter().enumerate() {
                if let ResultBlock::ToolReference { tool_name } = block {
                    text.push_str(&format!("{}. {tool_name}\n", index + 1));
                }
            }
        }
        ToolResultContent::Text(message) => {
            text.push_str(message);
            text.push('\n');
        }
    }
    text.push_str(&format!(
        "searched {deferred} deferred tools in a pool of {total}\n"
    ));
    text
}
