//! `tool-host`: lists, describes and runs the example tools on real input.
//!
//! ```text
//! tool-host list                                   registered tools and their flags
//! tool-host definitions [--format F] [--strict]    the `tools` array for a provider (pool options)
//! tool-host pool [--deny R]... [--tools-json F]... the final tool pool in order (pool options)
//! tool-host run FILE --root DIR [--rebase PREFIX]  answer an assistant message's tool_use blocks
//! tool-host demo                                   a built-in turn over a temporary copy of files
//! tool-host search QUERY [--max-results N] [--json] run ToolSearch over the pool (pool options)
//! tool-host mcp list [--mcp-server NAME='CMD ARGS']... each MCP server's status and tools
//! ```
//!
//! Pool options include live MCP servers: `--mcp-config FILE` (the `mcpServers` JSON),
//! `--mcp-server NAME='CMD ARGS'` (stdio) and `--mcp-url NAME=URL` (streamable HTTP).

mod demo;
mod mcp;
mod pool_options;
mod rebase;
mod search;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use tool_examples::workspace::Workspace;
use tool_registry::{
    Orchestrator, OrchestratorConfig, ToolRegistry, TurnState, describe_batches,
    partition_tool_calls,
};
use tool_sdk::blocks::tool_uses_of;
use tool_sdk::{DynTool, Extensions, ToolResultBlock, ToolUseBlock, UserMessage};

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
        /// anthropic, openai-chat, openai-responses or mcp.
        #[arg(long, default_value = "anthropic")]
        format: tool_registry::export::ExportTarget,
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
    /// Answer the tool_use blocks of an assistant message. Prints the user message
    /// `{"role":"user","content":[tool_result, ...]}` on stdout and the batch plan on stderr.
    Run {
        /// A JSON file: a content array, `{"content":[...]}`, `{"role":"assistant","content":[...]}`,
        /// or any object with a top-level `content` array (such as a recorded transcript).
        file: PathBuf,
        /// The workspace root: file tools only touch files below it.
        #[arg(long)]
        root: PathBuf,
        /// Rewrite every string in the tool inputs that starts with this absolute path so that
        /// it starts with `--root` instead (to replay a recorded session in another place).
        #[arg(long)]
        rebase: Option<String>,
        /// The pool the calls are looked up in (permission rules, run-time and MCP tools).
        #[command(flatten)]
        pool: pool_options::PoolOptions,
    },
    /// Live MCP servers.
    Mcp {
        #[command(subcommand)]
        command: McpCommand,
    },
    /// Run a built-in assistant turn (parallel Glob, Grep and Read, then an Edit) over a
    /// temporary copy of a few files of this repository, printing the plan and the results.
    Demo,
    /// Run the ToolSearch tool over the pool the options describe (ToolSearch added), printing
    /// the matches, or with `--json` the `tool_result` block.
    Search(search::SearchArgs),
}

#[derive(Subcommand)]
enum McpCommand {
    /// Connect to the servers and print each one's status and tools.
    List(mcp::McpOptions),
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
        } => pool_options::definitions(&registry, &pool, format, strict)
            .and_then(|definitions| print_json(&definitions)),
        Command::Pool { pool } => pool.build(&registry).map(|pool| {
            print!("{}", pool_options::describe_pool(&pool));
        }),
        Command::Search(args) => search::run(&registry, &args),
        Command::Run {
            file,
            root,
            rebase,
            pool,
        } => run_file(&registry, &pool, &file, &root, rebase.as_deref()),
        Command::Mcp {
            command: McpCommand::List(options),
        } => mcp::list(&options),
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
    options: &pool_options::PoolOptions,
    file: &Path,
    root: &Path,
    rebase: Option<&str>,
) -> Result<(), String> {
    let text = std::fs::read_to_string(file)
        .map_err(|error| format!("cannot read {}: {error}", file.display()))?;
    let message: serde_json::Value = serde_json::from_str(&text)
        .map_err(|error| format!("{} is not JSON: {error}", file.display()))?;
    let mut blocks =
        tool_uses_of(&message).map_err(|error| format!("{}: {error}", file.display()))?;
    let workspace = Workspace::new(root)
        .map_err(|error| format!("cannot use --root {}: {error}", root.display()))?;
    if let Some(prefix) = rebase {
        let target = workspace.root().to_string_lossy().into_owned();
        for block in &mut blocks {
            rebase::rebase_strings(&mut block.input, prefix, &target);
        }
    }
    let built = options.build_live(registry)?;
    eprint!("{}", plan(built.pool.tools(), &blocks));
    let results = answer(built.pool.tools(), &built.permissions, &blocks, workspace)?;
    eprintln!("{}", summary(&blocks, &results));
    print_json(&UserMessage::from_results(results))
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
fn plan(tools: &[Arc<dyn DynTool>], blocks: &[ToolUseBlock]) -> String {
    describe_batches(&partition_tool_calls(blocks, tools))
}

/// Runs the blocks over `tools`, under `permissions`, with `workspace` as the file tools'
/// root.
fn answer(
    tools: &[Arc<dyn DynTool>],
    permissions: &tool_registry::ToolPermissionContext,
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
    let orchestrator = Orchestrator::new(tools, config).with_permissions(permissions.clone());
    let turn = runtime.block_on(
        orchestrator
            .run_tools(blocks.to_vec(), state)
            .collect_results(),
    );
    Ok(turn.results)
}
