//! `tool-host`: lists, documents and runs the example tools on real input.
//!
//! ```text
//! tool-host list [--json]                          registered tools and their flags
//! tool-host definitions [--format F] [--strict]    the `tools` array for a model API (pool options)
//! tool-host pool [--json] [--deny R]...            the final tool pool in order (pool options)
//! tool-host docs --out DIR                         a Markdown page per pool tool, index.md, tools.json
//! tool-host run FILE [--root DIR] [--format API]   answer an assistant message, or replay a session log
//! tool-host demo [--json]                          a built-in turn over a temporary copy of files
//! tool-host search QUERY [--max-results N] [--json] run ToolSearch over the pool (pool options)
//! tool-host mcp list [--mcp-server NAME='CMD ARGS']... each MCP server's status and tools
//! tool-host mcp login NAME --mcp-url NAME=URL      log in to an OAuth-protected server
//! tool-host mcp logout NAME                        forget a server's stored tokens
//! tool-host chat [--provider P] [--model M] [-p PROMPT] a live agent loop against a model API
//! tool-host serve --stdio | --http ADDR [--root DIR] [--store URL]   the pool as an MCP server (pool options)
//! ```
//!
//! Pool options include live MCP servers: `--mcp-config FILE` (the `mcpServers` JSON),
//! `--mcp-server NAME='CMD ARGS'` (stdio) and `--mcp-url NAME=URL` (streamable HTTP).
//!
//! Logs go to stderr, filtered by `RUST_LOG` (`RUST_LOG=tool_registry=debug`); the default
//! shows errors only (the commands print their own warnings).
//!
//! Traces and metrics go to an OpenTelemetry backend over OTLP (HTTP/protobuf) when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, named by
//! `OTEL_SERVICE_NAME` (`tool_registry::telemetry`): every call's `execute_tool` span, the MCP
//! spans, and `chat`'s `invoke_agent` / `chat {model}` spans. Tool inputs and results are
//! recorded only with `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. Whatever is
//! left is sent before the command exits.

mod callers;
mod chat;
mod demo;
mod docs;
mod host;
mod mcp;
mod oauth;
mod pool_options;
mod progress;
mod provider_search;
mod rebase;
mod run;
mod search;
mod serve;
mod session;

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use serde_json::json;
use tool_registry::ToolRegistry;
use tool_registry::providers::ModelApi;
use tool_sdk::DynTool;

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
    List {
        /// Print a JSON array, one object per tool.
        #[arg(long)]
        json: bool,
    },
    /// Print the `tools` array of a provider API as JSON, for the pool the options describe.
    /// Tools that allow calls from code get `allowed_callers`, but the tool that runs the code
    /// is not added (a request sends it beside them: anthropic
    /// `{"type":"code_execution_20260120","name":"code_execution"}`, openai-responses
    /// `{"type":"programmatic_tool_calling"}`).
    Definitions {
        /// anthropic, openai-chat, openai-responses, gemini (`parametersJsonSchema`),
        /// gemini-openapi (the OpenAPI-subset `parameters`) or mcp.
        #[arg(long, default_value = "anthropic")]
        format: ModelApi,
        /// OpenAI strict mode for every tool (a tool whose schema cannot be strict is sent
        /// without it, with a warning on stderr naming the field).
        #[arg(long)]
        strict: bool,
        /// The API's own tool search: deferred tools carry `defer_loading` and the API's
        /// search tool is added; for openai-responses (`hosted` or `client`) each MCP server's
        /// tools form a `namespace`; for anthropic, `bm25` or `regex`.
        #[arg(long, value_name = "KIND")]
        tool_search: Option<provider_search::ProviderSearch>,
        /// Accepted for symmetry with the other commands: the output is always JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        pool: pool_options::PoolOptions,
    },
    /// Print the final tool pool in order: built-in tools sorted, then MCP tools sorted, with
    /// flags and a deferred mark.
    Pool {
        /// Print a JSON array, one object per tool, in pool order.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        pool: pool_options::PoolOptions,
    },
    /// Write the tool catalog of the pool the options describe: one Markdown page per tool,
    /// `index.md` and `tools.json`.
    Docs(docs::DocsArgs),
    /// Answer the tool_use blocks of an assistant message, or replay a Claude Code session log
    /// (`.jsonl`) turn by turn.
    Run(run::RunArgs),
    /// Run a built-in assistant turn (parallel Glob, Grep, Read and a read-only Bash, then an
    /// Edit) over a temporary copy of a few files of this repository.
    Demo {
        /// Print the plan and results as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Live MCP servers.
    Mcp {
        #[command(subcommand)]
        command: McpCommand,
    },
    /// Run the ToolSearch tool over the pool the options describe (ToolSearch added), printing
    /// the matches, or with `--json` the `tool_result` block.
    Search(search::SearchArgs),
    /// Chat with a model (Anthropic Messages or an OpenAI-compatible Chat Completions API)
    /// that calls the pool's tools: interactive, or one prompt with `-p`. The API key is read
    /// from ANTHROPIC_API_KEY / OPENAI_API_KEY only.
    Chat(Box<chat::ChatArgs>),
    /// Serve the pool the options describe as an MCP server, over stdio or streamable HTTP,
    /// with the permission rules in front of every call.
    Serve(Box<serve::ServeArgs>),
}

#[derive(Subcommand)]
enum McpCommand {
    /// Connect to the servers and print each one's status and tools.
    List(mcp::McpOptions),
    /// Log in to an HTTP server that asks for OAuth: print the authorization URL, wait for
    /// the browser's redirect on a loopback port, keep the tokens (mode 0600).
    Login(oauth::LoginArgs),
    /// Forget the stored OAuth tokens of a server.
    Logout(oauth::LogoutArgs),
}

fn main() -> ExitCode {
    exit_quietly_on_broken_pipe();
    match init_tracing() {
        Ok(telemetry) => *TELEMETRY.lock().unwrap_or_else(|e| e.into_inner()) = telemetry,
        Err(error) => {
            eprintln!("tool-host: {error}");
            return ExitCode::FAILURE;
        }
    }
    let code = run_command();
    finish_telemetry();
    code
}

/// The OpenTelemetry export, while it runs.
static TELEMETRY: std::sync::Mutex<Option<tool_registry::telemetry::Telemetry>> =
    std::sync::Mutex::new(None);

/// Sends what the OpenTelemetry export has not sent yet and stops it: at the end of `main`,
/// and before any `std::process::exit` (a signal ending `chat`), which skips the end of
/// `main`.
pub fn finish_telemetry() {
    let telemetry = TELEMETRY.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(telemetry) = telemetry
        && let Err(error) = telemetry.shutdown()
    {
        eprintln!("tool-host: {error}");
    }
}

/// Parses the command line and runs the command.
fn run_command() -> ExitCode {
    let cli = Cli::parse();
    let registry = match ToolRegistry::collect() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("tool-host: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = match cli.command {
        Command::List { json } => {
            if json {
                print_json(&list_json(registry.tools()))
            } else {
                print!("{}", list(registry.tools()));
                Ok(())
            }
        }
        Command::Definitions {
            format,
            strict,
            tool_search,
            json: _,
            pool,
        } => match tool_search {
            Some(search) => provider_search::definitions(&registry, &pool, format, strict, search),
            None => pool_options::definitions(&registry, &pool, format, strict),
        }
        .and_then(|definitions| print_json(&definitions)),
        Command::Pool { json, pool } => pool.build(&registry).and_then(|pool| {
            if json {
                print_json(&pool_options::pool_json(&pool))
            } else {
                print!("{}", pool_options::describe_pool(&pool));
                Ok(())
            }
        }),
        Command::Docs(args) => docs::run(&registry, &args),
        Command::Mcp {
            command: McpCommand::List(options),
        } => mcp::list(&options),
        Command::Mcp {
            command: McpCommand::Login(args),
        } => oauth::login(&args),
        Command::Mcp {
            command: McpCommand::Logout(args),
        } => oauth::logout(&args),
        Command::Search(args) => search::run(&registry, &args),
        Command::Run(args) => run::run(&registry, &args),
        Command::Demo { json } => demo::run(&registry, json),
        Command::Chat(args) => chat::run(&registry, &args),
        Command::Serve(args) => serve::run(&registry, &args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("tool-host: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Logs on stderr, filtered by `RUST_LOG` (default `error`: the commands print their own
/// warnings), and the OpenTelemetry export the `OTEL_*` variables ask for (spans of this
/// crate and of `tool_registry` at INFO and above), returned to be shut down at exit.
fn init_tracing() -> Result<Option<tool_registry::telemetry::Telemetry>, String> {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;

    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error"))
        // rmcp's OAuth logs authorization codes and token responses at debug level: never
        // below info, whatever RUST_LOG asks.
        .add_directive(
            "rmcp::transport::auth=info"
                .parse()
                .expect("a valid directive"),
        );
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_filter(filter);
    let telemetry =
        tool_registry::telemetry::Telemetry::from_env().map_err(|error| error.to_string())?;
    let exported = telemetry.as_ref().map(|telemetry| {
        telemetry.layer().with_filter(
            tracing_subscriber::filter::Targets::new()
                .with_target("tool_registry", tracing::Level::INFO)
                .with_target("tool_host", tracing::Level::INFO),
        )
    });
    tracing_subscriber::registry()
        .with(logs)
        .with(exported)
        .init();
    Ok(telemetry)
}

/// Ends the process quietly, with success, when stdout is closed early (`tool-host
/// definitions | head`): `println!` panics on a broken pipe, and that panic is not a failure of
/// the command. Every other panic reports as usual.
fn exit_quietly_on_broken_pipe() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        report(info);
    }));
}

fn print_json(value: &impl serde::Serialize) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|error| error.to_string())?;
    println!("{text}");
    Ok(())
}

/// One line per tool: name, aliases and declared flags.
fn list(tools: &[Arc<dyn DynTool>]) -> String {
    let mut text = format!(
        "{:<13} {:<10} {:<10} {:<17} {:<12} {:<16} {}\n",
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
            "{:<13} {:<10} {:<10} {:<17} {:<12} {:<16} {}\n",
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

/// [`list`] as JSON: one object per tool.
fn list_json(tools: &[Arc<dyn DynTool>]) -> Vec<serde_json::Value> {
    tools
        .iter()
        .map(|tool| {
            let meta = tool.meta();
            json!({
                "name": meta.name,
                "aliases": meta.aliases,
                "read_only": meta.read_only.label(),
                "concurrency_safe": meta.concurrency_safe.label(),
                "destructive": meta.destructive.label(),
                "max_result_size_chars": meta.max_result_size_chars.chars(),
                "should_defer": meta.should_defer,
                "search_hint": meta.search_hint,
            })
        })
        .collect()
}
