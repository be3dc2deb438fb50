//! `tool-host run FILE`: answer the `tool_use` blocks of one assistant message, or replay a
//! Claude Code session log (`.jsonl`) turn by turn, optionally comparing with the recording.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use clap::builder::TypedValueParser;
use serde_json::{Value, json};
use tool_examples::workspace::Workspace;
use tool_registry::ToolRegistry;
use tool_registry::export::{RenderRequest, SchemaCache};
use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
use tool_registry::providers::{ModelApi, ToolCalls, ToolSearchCall};
use tool_registry::search::SearchState;
use tool_sdk::blocks::tool_uses_of;
use tool_sdk::{DynTool, ToolResultBlock, ToolUseBlock};

use crate::host::{Host, summary};
use crate::pool_options::PoolOptions;
use crate::progress::Display;
use crate::session;

/// The `run` command's arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// A JSON file holding one assistant message (a content array, `{"content":[...]}`, or any
    /// object with a top-level `content` array, such as a recorded transcript), or a Claude
    /// Code session log: JSON lines, whose assistant lines sharing a `message.id` are merged
    /// into one message.
    pub file: PathBuf,
    /// The workspace root: file tools only touch files below it, Bash runs in it. Without it
    /// a fresh temporary directory is used (and removed at the end).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Rewrite every string in the tool inputs that starts with this absolute path so that
    /// it starts with the workspace root instead (to replay a recorded session in another place).
    #[arg(long)]
    pub rebase: Option<String>,
    /// Print where our results differ in structure (error flag, content shape) from the
    /// recorded ones: the log's `tool_result`s, or a transcript's `tool_results`.
    #[arg(long)]
    pub compare: bool,
    /// Count every file under the root as already read, so Write and Edit accept them: for
    /// replaying a turn whose reads happened in earlier turns that are not replayed.
    #[arg(long)]
    pub assume_read: bool,
    /// Machine output: for a message, the user message (as always; with `--compare`, an
    /// object with the user message as `message` and the `differences`); for a session, one
    /// JSON object with every turn's results and differences.
    #[arg(long)]
    pub json: bool,
    /// The model API a single message is in, and its answer is written in: every API but mcp
    /// (listed below; a session log is always Anthropic's). For
    /// anthropic the answer is the user message `{"role":"user","content":[tool_result, ...]}`;
    /// openai-chat reads a response, an assistant message or a `tool_calls` array and writes
    /// `tool` messages; openai-responses reads a response or its `output` items and writes
    /// `function_call_output` items; gemini and gemini-openapi read a response, a content or
    /// its parts and write a content of `functionResponse` parts.
    #[arg(long, default_value = "anthropic", value_parser = model_apis_run_reads())]
    pub format: ModelApi,
    /// Run the recorded Bash commands. Without it, every Bash call is refused: a recorded
    /// command holds its own paths and runs against the real filesystem, where `--rebase`
    /// cannot confine it.
    #[arg(long)]
    pub run_bash: bool,
    #[command(flatten)]
    pub pool: PoolOptions,
}

/// Runs the command.
pub fn run(registry: &ToolRegistry, args: &RunArgs) -> Result<(), String> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|error| format!("cannot read {}: {error}", args.file.display()))?;
    let temporary;
    let root = match &args.root {
        Some(root) => root.clone(),
        None => {
            temporary = tempfile::tempdir()
                .map_err(|error| format!("cannot create a temporary directory: {error}"))?;
            eprintln!(
                "workspace: {} (fresh, removed at the end)",
                temporary.path().display()
            );
            temporary.path().to_path_buf()
        }
    };
    let workspace = Workspace::new(&root)
        .map_err(|error| format!("cannot use --root {}: {error}", root.display()))?;
    if args.assume_read {
        workspace.reads().record_tree(workspace.root());
    }
    let target = workspace.root().to_string_lossy().into_owned();
    // Kept until the end: live MCP servers stay connected while the calls run.
    let live = args.pool.build_live(registry)?;
    let pool = &live.pool;
    let mut permissions = live.permissions.clone();
    if !args.run_bash {
        permissions.add_rule_str(
            PermissionRuleSource::CliArg,
            PermissionBehavior::Deny,
            "Bash",
            &AliasTable::from_tools(pool.tools()),
        );
        eprintln!(
            "Bash calls are refused: recorded shell commands would run against the real \
             filesystem (pass --run-bash to run them)"
        );
    }
    let mut host = Host::new(pool.tools(), workspace, permissions, Display::detect(false))?;
    let rebase = |blocks: &mut Vec<ToolUseBlock>| {
        if let Some(prefix) = &args.rebase {
            for block in blocks {
                crate::rebase::rebase_strings(&mut block.input, prefix, &target);
            }
        }
    };
    if session::is_session_log(&text) {
        return replay(&mut host, &text, args, rebase);
    }
    let message: Value = serde_json::from_str(&text)
        .map_err(|error| format!("{} is not JSON: {error}", args.file.display()))?;
    if args.format != ModelApi::Anthropic {
        return answer_in_format(&mut host, &message, args, pool.tools(), &target);
    }
    // Read, run and answer through the Anthropic adapter, as every other format is: a
    // repeated id or a `null` input is handled by the same rules.
    let mut calls = ModelApi::Anthropic
        .read_calls(&message, pool.tools())
        .map_err(|error| format!("{}: {error}", args.file.display()))?;
    warn_when_no_calls(&calls, args);
    let (blocks, results) = answer_calls(&mut host, &mut calls, args, &target)?;
    host.println(&summary(&blocks, &results));
    if args.compare {
        let recorded = recorded_results(&message);
        let differences = session::compare("message", &blocks, &results, &recorded);
        for difference in &differences {
            eprintln!(
                "differs: {} {}: {}",
                difference.tool, difference.tool_use_id, difference.what
            );
        }
        if args.json {
            let compared = results
                .iter()
                .filter(|result| recorded.contains_key(&result.tool_use_id))
                .count();
            return crate::print_json(&json!({
                "message": anthropic_answer(&calls, results)?,
                "compared": compared,
                "differences": differences,
            }));
        }
    }
    crate::print_json(&anthropic_answer(&calls, results)?)
}

/// Says on stderr that `FILE` holds no tool call in `--format`'s shape: right for a response
/// that ends the turn, but more often a file in another API's shape.
fn warn_when_no_calls(calls: &ToolCalls, args: &RunArgs) {
    if calls.is_empty() {
        eprintln!(
            "tool-host: warning: {} holds no tool call read as --format {}; if it has calls, \
             it is in another API's shape: pass the matching --format ({})",
            args.file.display(),
            args.format,
            ModelApi::ALL
                .iter()
                .filter(|api| **api != ModelApi::Mcp)
                .map(|api| api.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// The user message answering `calls` with `results`, by the Anthropic writer every
/// Anthropic answer goes through.
fn anthropic_answer(calls: &ToolCalls, results: Vec<ToolResultBlock>) -> Result<Value, String> {
    ModelApi::Anthropic
        .write_results(calls, results, &[])
        .map_err(|error| error.to_string())
}

/// Answers a message in another model API's shape (`--format`): reads its calls (a call with
/// malformed arguments gets its own error result and is not run), answers the rest, and prints
/// the results in that API's shape.
fn answer_in_format(
    host: &mut Host,
    message: &Value,
    args: &RunArgs,
    tools: &[Arc<dyn DynTool>],
    target: &str,
) -> Result<(), String> {
    let mut calls = args
        .format
        .read_calls(message, tools)
        .map_err(|error| format!("{}: {error}", args.file.display()))?;
    let searches = match args.format {
        ModelApi::OpenAiResponses => ToolSearchCall::read_all(message).unwrap_or_default(),
        _ => Vec::new(),
    };
    if searches.is_empty() {
        warn_when_no_calls(&calls, args);
    }
    let (blocks, results) = answer_calls(host, &mut calls, args, target)?;
    eprintln!("{}", summary(&blocks, &results));
    let mut answer = args
        .format
        .write_results(&calls, results, tools)
        .map_err(|error| error.to_string())?;
    if !searches.is_empty() {
        // Client-executed tool searches (`--tool-search client`) are answered too, each with
        // its `tool_search_output` (paired by `call_id`), after the function outputs.
        let state = SearchState::new(tools.to_vec());
        let cache = SchemaCache::new();
        let items = answer
            .as_array_mut()
            .ok_or("the answer is not an item array")?;
        for search in &searches {
            if let Some(error) = &search.error {
                eprintln!("tool-host: tool_search_call {}: {error}", search.call_id);
            }
            let output = search
                .answer(&state, &cache, &RenderRequest::default())
                .map_err(|error| error.to_string())?;
            items.push(output);
        }
        eprintln!("answered {} client tool_search calls", searches.len());
    }
    crate::print_json(&answer)
}

/// Rebases the calls' inputs (`--rebase`), prints the batch plan, runs the runnable calls and
/// pairs the results: one per call, in call order (a call that was not run has its own error).
/// Returns one `tool_use` block per call beside them (a call whose arguments failed has a
/// `null` input), for the summary and `--compare`.
fn answer_calls(
    host: &mut Host,
    calls: &mut ToolCalls,
    args: &RunArgs,
    target: &str,
) -> Result<(Vec<ToolUseBlock>, Vec<ToolResultBlock>), String> {
    if let Some(prefix) = &args.rebase {
        for input in calls
            .calls
            .iter_mut()
            .filter_map(|call| call.input.as_mut().ok())
        {
            crate::rebase::rebase_strings(input, prefix, target);
        }
    }
    let runnable = calls.runnable();
    eprint!("{}", host.plan(&runnable));
    let results = calls
        .pair(host.answer(&runnable))
        .map_err(|error| error.to_string())?;
    let blocks = calls
        .calls
        .iter()
        .map(|call| ToolUseBlock {
            id: call.id.clone(),
            name: call.name.clone(),
            input: call.input.clone().unwrap_or(Value::Null),
        })
        .collect();
    Ok((blocks, results))
}

/// A transcript's recorded `tool_results` by id (empty for a bare message).
fn recorded_results(message: &Value) -> HashMap<String, Value> {
    message["tool_results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| Some((block["tool_use_id"].as_str()?.to_owned(), block.clone())))
        .collect()
}

fn replay(
    host: &mut Host,
    text: &str,
    args: &RunArgs,
    rebase: impl Fn(&mut Vec<ToolUseBlock>),
) -> Result<(), String> {
    let log = session::parse(text).map_err(|error| format!("{}: {error}", args.file.display()))?;
    let turns: Vec<&session::Turn> = log
        .turns
        .iter()
        .filter(|turn| turn.content.iter().any(|block| block["type"] == "tool_use"))
        .collect();
    let mut report = Vec::new();
    let mut all_differences = 0;
    let mut compared = 0;
    for (number, turn) in turns.iter().enumerate() {
        let mut blocks = tool_uses_of(&Value::Array(turn.content.clone()))
            .map_err(|error| format!("assistant message {}: {error}", turn.id))?;
        rebase(&mut blocks);
        eprint!(
            "turn {}/{} ({}):\n{}",
            number + 1,
            turns.len(),
            turn.id,
            host.plan(&blocks)
        );
        let results = host.answer(&blocks);
        let differences = if args.compare {
            compared += results.len();
            session::compare(&turn.id, &blocks, &results, &log.recorded)
        } else {
            Vec::new()
        };
        all_differences += differences.len();
        if !args.json {
            println!(
                "turn {}/{} {}: {}",
                number + 1,
                turns.len(),
                turn.id,
                summary(&blocks, &results)
            );
            for difference in &differences {
                println!(
                    "  differs: {} {}: {}",
                    difference.tool, difference.tool_use_id, difference.what
                );
            }
        }
        report.push(json!({
            "message_id": turn.id,
            "tool_uses": blocks.len(),
            "results": results,
            "differences": differences,
        }));
    }
    if args.json {
        return crate::print_json(&json!({
            "turns": report,
            "compared": compared,
            "differences": all_differences,
        }));
    }
    if args.compare {
        println!("compared {compared} results with the recording: {all_differences} differ");
    } else {
        println!("replayed {} assistant turns", turns.len());
    }
    Ok(())
}

/// `run --format`: a model API whose messages hold tool calls (`mcp` is a definitions format
/// only: a served pool's calls arrive as `tools/call` requests).
/// The `--format` values `run` reads: [`ModelApi::ALL`] but MCP (which has definitions only),
/// listed by `--help` and in the error for another value.
fn model_apis_run_reads() -> impl TypedValueParser<Value = ModelApi> {
    let names = ModelApi::ALL
        .into_iter()
        .filter(|api| *api != ModelApi::Mcp)
        .map(ModelApi::as_str);
    clap::builder::PossibleValuesParser::new(names).map(|name| {
        name.parse::<ModelApi>()
            .expect("a listed ModelApi name parses")
    })
}
