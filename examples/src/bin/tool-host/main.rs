//! `tool-host`: lists, describes and runs the example tools on real input.
//!
//! ```text
//! tool-host list                                   registered tools and their flags
//! tool-host definitions [--format F] [--strict]    the `tools` array for a provider (pool options)
//! tool-host pool [--deny R]... [--tools-json F]... the final tool pool in order (pool options)
//! tool-host run FILE --root DIR [--rebase PREFIX] [--format API]
//!                                                  answer an assistant message's tool calls
//! tool-host demo                                   a built-in turn over a temporary copy of files
//! tool-host search QUERY [--max-results N] [--json] run ToolSearch over the pool (pool options)
//! ```

mod demo;
mod pool_options;
mod provider_format;
mod rebase;
mod search;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use tool_examples::workspace::Workspace;
use tool_registry::{
    OrchestratorConfig, ToolRegistry, TurnState, describe_batches, partition_tool_calls, run_tools,
};
use tool_sdk::{DynTool, Extensions, ToolResultBlock, ToolUseBlock};

#[derive(Parser)]
#[command(
    name = "tool-host",
    version,
    about = "Run tool-sdk tools on real model output"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the registered tools and their flags.
    List,
    /// Print the `tools` array of a provider API as JSON, for the pool the options describe.
    Definitions {
        /// anthropic, openai-chat, openai-responses, gemini or mcp.
        #[arg(long, default_value = "anthropic")]
        format: provider_format::DefinitionsFormat,
        /// OpenAI strict mode for every tool (a tool whose schema cannot be strict is sent
        /// without it, with a warning on stderr naming the field).
        #[arg(long)]
        strict: bool,
        #[command(flatten)]
        pool: pool_options::PoolOptions,
    },
    /// Print the final tool pool in order: built-in tools sorted, then MCP tools sorted, with
    /// flags and a deferred mark.
    Pool {
        #[command(flatten)]
        pool: pool_options::PoolOptions,
    },
    /// Answer the tool calls of an assistant message. Prints the answer in the same API's
    /// shape on stdout (for anthropic the user message `{"role":"user","content":[tool_result,
    /// ...]}`) and the batch plan on stderr.
    Run {
        /// A JSON file. anthropic: a content array, `{"content":[...]}`,
        /// `{"role":"assistant","content":[...]}`, or any object with a top-level `content`
        /// array (such as a recorded transcript); openai-chat: a response, an assistant message
        /// or a `tool_calls` array; openai-responses: a response or its `output` items; gemini:
        /// a response, a content or its parts.
        file: PathBuf,
        /// The API the file is in and the answer is written in: anthropic, openai-chat,
        /// openai-responses or gemini.
        #[arg(long, default_value = "anthropic")]
        format: provider_format::ApiFormat,
        /// The workspace root: file tools only touch files below it.
        #[arg(long)]
        root: PathBuf,
        /// Rewrite every string in the tool inputs that starts with this absolute path so that
        /// it starts with `--root` instead (to replay a recorded session in another place).
        #[arg(long)]
        rebase: Option<String>,
    },
    /// Run a built-in assistant turn (parallel Glob, Grep and Read, then an Edit) over a
    /// temporary copy of a few files of this repository, printing the plan and the results.
    Demo,
    /// Run the ToolSearch tool over the pool the options describe (ToolSearch added), printing
    /// the matches, or with `--json` the `tool_result` block.
    Search(search::SearchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let registry = match ToolRegistry::collect() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("tool-host: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = match cli.command {
        Command::List => {
            print!("{}", list(registry.tools()));
            Ok(())
        }
        Command::Definitions {
            format,
            strict,
            pool,
        } => match format {
            provider_format::DefinitionsFormat::Export(target) => {
                pool_options::definitions(&registry, &pool, target, strict)
            }
            provider_format::DefinitionsFormat::Gemini => {
                provider_format::gemini_definitions(&registry, &pool)
            }
        }
        .and_then(|definitions| print_json(&definitions)),
        Command::Pool { pool } => pool.build(&registry).map(|pool| {
            print!("{}", pool_options::describe_pool(&pool));
        }),
        Command::Search(args) => search::run(&registry, &args),
        Command::Run {
            file,
            format,
            root,
            rebase,
        } => run_file(&registry, &file, format, &root, rebase.as_deref()),
        Command::Demo => demo::run(&registry),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("tool-host: {message}");
            ExitCode::FAILURE
        }
    }
}

fn print_json(value: &impl serde::Serialize) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|error| error.to_string())?;
    println!("{text}");
    Ok(())
}

/// One line per tool: name, aliases and declared flags.
fn list(tools: &[Arc<dyn DynTool>]) -> String {
    let mut text = format!(
        "{:<12} {:<10} {:<10} {:<17} {:<12} {:<16} {}\n",
        "NAME", "ALIASES", "READ-ONLY", "CONCURRENCY-SAFE", "DESTRUCTIVE", "MAX RESULT", "DEFERRED"
    );
    for tool in tools {
        let meta = tool.meta();
        let aliases = if meta.aliases.is_empty() {
            "-".to_owned()
        } else {
            meta.aliases.join(",")
        };
        let max = meta
            .max_result_size_chars
            .chars()
            .map_or_else(|| "unbounded".to_owned(), |chars| format!("{chars} chars"));
        text.push_str(&format!(
            "{:<12} {:<10} {:<10} {:<17} {:<12} {:<16} {}\n",
            meta.name,
            aliases,
            meta.read_only.label(),
            meta.concurrency_safe.label(),
            meta.destructive.label(),
            max,
            if meta.should_defer { "yes" } else { "no" }
        ));
    }
    text
}

fn run_file(
    registry: &ToolRegistry,
    file: &Path,
    format: provider_format::ApiFormat,
    root: &Path,
    rebase: Option<&str>,
) -> Result<(), String> {
    let text = std::fs::read_to_string(file)
        .map_err(|error| format!("cannot read {}: {error}", file.display()))?;
    let message: serde_json::Value = serde_json::from_str(&text)
        .map_err(|error| format!("{} is not JSON: {error}", file.display()))?;
    let mut calls = format
        .read(&message, registry)
        .map_err(|error| format!("{}: {error}", file.display()))?;
    let workspace = Workspace::new(root)
        .map_err(|error| format!("cannot use --root {}: {error}", root.display()))?;
    if let Some(prefix) = rebase {
        let target = workspace.root().to_string_lossy().into_owned();
        for input in calls
            .calls
            .iter_mut()
            .filter_map(|call| call.input.as_mut().ok())
        {
            rebase::rebase_strings(input, prefix, &target);
        }
    }
    let blocks = calls.runnable();
    eprint!("{}", plan(registry, &blocks));
    let results = calls
        .pair(answer(registry, &blocks, workspace)?)
        .map_err(|error| error.to_string())?;
    let named: Vec<ToolUseBlock> = calls
        .calls
        .iter()
        .map(|call| ToolUseBlock {
            id: call.id.clone(),
            name: call.name.clone(),
            input: serde_json::Value::Null,
        })
        .collect();
    eprintln!("{}", summary(&named, &results));
    print_json(&format.write(&calls, results, registry)?)
}

/// One line for stderr: how many calls were answered and which failed, e.g.
/// `answered 3 tool_use blocks: 2 ok, 1 error (Bash toolu_02)`.
fn summary(blocks: &[ToolUseBlock], results: &[ToolResultBlock]) -> String {
    let failed: Vec<String> = results
        .iter()
        .filter(|result| result.is_error)
        .map(|result| {
            let name = blocks
                .iter()
                .find(|block| block.id == result.tool_use_id)
                .map_or("?", |block| block.name.as_str());
            format!("{name} {}", result.tool_use_id)
        })
        .collect();
    let which = if failed.is_empty() {
        String::new()
    } else {
        format!(" ({})", failed.join(", "))
    };
    format!(
        "answered {} tool_use block{}: {} ok, {} error{}{which}",
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        results.len() - failed.len(),
        failed.len(),
        if failed.len() == 1 { "" } else { "s" },
    )
}

/// The batch plan, one line per batch.
fn plan(registry: &ToolRegistry, blocks: &[ToolUseBlock]) -> String {
    describe_batches(&partition_tool_calls(blocks, registry.tools()))
}

/// Runs the blocks with `workspace` as the file tools' root.
fn answer(
    registry: &ToolRegistry,
    blocks: &[ToolUseBlock],
    workspace: Workspace,
) -> Result<Vec<ToolResultBlock>, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    let state = TurnState {
        extensions: Extensions::new().with(workspace),
        ..TurnState::default()
    };
    let config = OrchestratorConfig::from_env();
    let turn =
        runtime.block_on(run_tools(blocks, registry.tools(), state, &config).collect_results());
    Ok(turn.results)
}
