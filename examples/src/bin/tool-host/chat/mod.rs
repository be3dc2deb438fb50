//! `tool-host chat`: a live agent loop against the Anthropic Messages API or any OpenAI-
//! compatible Chat Completions endpoint (OpenAI, Ollama, vLLM, ...).
//!
//! Each user prompt runs to the end: the request streams back, text is printed as it arrives,
//! each tool call goes to the streaming executor as soon as it is complete (so tools start
//! while the model is still writing, SPEC §5.5), and the results go back to the model until it
//! answers without calling a tool. Ctrl-C cancels the running turn (every call still gets its
//! `tool_result`, SPEC §5.5/§5.6); a second Ctrl-C exits.

mod api;
mod ask;
mod conversation;
mod programmatic;
mod stream;

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use clap::Args;
use futures::StreamExt as _;
use tool_examples::tools::BackgroundShells;
use tool_examples::workspace::Workspace;
use tool_registry::providers::ModelApi;
use tool_registry::search::{SearchState, ToolSearchConfig};
use tool_registry::{Orchestrator, OrchestratorConfig, ToolRegistry, TurnState};
use tool_sdk::elicitation::Elicitor;
use tool_sdk::{CancellationToken, DynTool, Extensions};

use crate::pool_options::PoolOptions;
use crate::progress::{Display, Progress};
use api::{ApiClient, ApiKey, Endpoint};
use ask::{Asker, Lines, PromptChoice};
use conversation::{Conversation, INTERRUPTED, RequestSettings, SearchChoice};
use stream::ResponseReader;

/// `--provider`: a model API `chat` speaks, as a [`ModelApi`]; `openai-chat` is an alias of
/// `openai`.
fn provider_parser() -> impl clap::builder::TypedValueParser<Value = ModelApi> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
    PossibleValuesParser::new([
        PossibleValue::new("anthropic")
            .help("The Anthropic Messages API (`POST /v1/messages`), key in `ANTHROPIC_API_KEY`"),
        PossibleValue::new("openai").alias("openai-chat").help(
            "An OpenAI-compatible Chat Completions API (`POST /chat/completions`), key in \
             `OPENAI_API_KEY` (optional for a local server given with `--base-url`)",
        ),
    ])
    .map(|text| {
        if text == "anthropic" {
            ModelApi::Anthropic
        } else {
            ModelApi::OpenAiChat
        }
    })
}

/// The `chat` command's arguments.
#[derive(Args, Debug)]
pub struct ChatArgs {
    /// The model API: anthropic or openai (any OpenAI-compatible Chat Completions endpoint).
    #[arg(long, value_parser = provider_parser(), default_value = "anthropic")]
    pub provider: ModelApi,
    /// The model id (default: claude-sonnet-4-5 for anthropic, gpt-4.1 for openai).
    #[arg(long)]
    pub model: Option<String>,
    /// The API root: `https://api.anthropic.com` (requests go to `/v1/messages` below it), or
    /// for openai the part before `/chat/completions`, such as `http://localhost:11434/v1`
    /// for Ollama (default: `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`, else the provider's
    /// own). With a base URL the key is optional.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Run this one prompt to the end without a terminal and print the final answer.
    #[arg(short = 'p', long = "print", value_name = "PROMPT")]
    pub prompt: Option<String>,
    /// The workspace root: file tools only touch files below it, Bash runs in it (default:
    /// the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// The system prompt (a line naming the workspace root is added to it).
    #[arg(long)]
    pub system: Option<String>,
    /// The most tokens the model may write per response (anthropic: default 8192, the API
    /// requires it; openai: sent only when given, as `max_tokens`).
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// The most model responses per prompt (each tool round trip is one).
    #[arg(long, default_value_t = 50)]
    pub max_turns: u32,
    /// How deferred tools are found: client (our ToolSearch tool), bm25 or regex
    /// (Anthropic's server-side search), or off (every definition sent).
    #[arg(long, value_enum, default_value = "client")]
    pub search: SearchChoice,
    /// Where permission questions are answered: auto (standard input when it is a terminal,
    /// else deny), stdin, or deny.
    #[arg(long, value_enum, default_value = "auto")]
    pub permission_prompt: PromptChoice,
    /// Anthropic programmatic tool calling: send the code execution tool, so code the model
    /// writes can call the tools that allow it (see --allow-programmatic).
    #[arg(long)]
    pub programmatic: bool,
    #[command(flatten)]
    pub pool: PoolOptions,
}

const DEFAULT_SYSTEM: &str = "You are a coding assistant working in the user's workspace through the tools you are given. Use them to look before you answer, run independent calls in parallel, and keep answers short.";

/// Runs the command.
pub fn run(registry: &ToolRegistry, args: &ChatArgs) -> Result<(), String> {
    let provider = args.provider;
    let endpoint = Endpoint::of(provider);
    let key = ApiKey::from_env(endpoint.key_variable);
    let base_url = args.base_url.clone().or_else(|| {
        std::env::var(endpoint.base_url_variable)
            .ok()
            .filter(|url| !url.trim().is_empty())
    });
    if key.is_none() && base_url.is_none() {
        return Err(format!(
            "set {} to your API key (it is read only from the environment), or pass --base-url \
             for a local server that needs none",
            endpoint.key_variable
        ));
    }
    if args.search != SearchChoice::Client
        && args.search != SearchChoice::Off
        && provider != ModelApi::Anthropic
    {
        return Err("--search bm25|regex is Anthropic's server-side search; with --provider openai use client or off".into());
    }
    let root = match &args.root {
        Some(root) => root.clone(),
        None => std::env::current_dir()
            .map_err(|error| format!("cannot read the current directory: {error}"))?,
    };
    let workspace = Workspace::new(&root)
        .map_err(|error| format!("cannot use --root {}: {error}", root.display()))?;
    // Kept until the end: live MCP servers stay connected while the chat runs.
    let live = args.pool.build_live(registry)?;
    let mut search_config = ToolSearchConfig::from_env();
    search_config.deferred_delta = true;
    // The proxy rule of the search gate (SPEC §4.3) is about Anthropic's endpoint only.
    search_config.base_url = base_url.clone().filter(|_| provider == ModelApi::Anthropic);
    let mut tools = live.pool.tools().to_vec();
    programmatic::check(
        args.programmatic,
        &args.pool.allow_programmatic,
        provider,
        &tools,
    )?;
    if args.search == SearchChoice::Client {
        search_config.insert_tool_search(&mut tools);
    }
    let interactive = args.prompt.is_none();
    let asks = args.permission_prompt.asks();
    let lines = (interactive || asks).then(Lines::spawn);
    let progress = Arc::new(Progress::new(Display::detect(false)));
    let asker = Arc::new(Asker::new(
        asks.then(|| lines.clone()).flatten(),
        progress.clone(),
    ));
    let orchestrator = Orchestrator::new(&tools, OrchestratorConfig::from_env())
        .with_permissions(live.permissions.clone())
        .with_observer(progress.clone())
        .with_can_use_tool(asker.clone());
    // A tool's questions (`ToolUseContext::elicit`) go to the same prompt.
    let extensions = Extensions::new()
        .with::<Arc<dyn Elicitor>>(asker)
        .with(crate::mcp::client_roots(workspace.root()))
        .with(workspace)
        .with(BackgroundShells::default())
        .with(SearchState::new(tools.clone()).with_rules(search_config.deferral));
    let base_url = base_url.unwrap_or_else(|| endpoint.default_base_url.to_owned());
    let client = ApiClient::new(provider, &base_url, key)?;
    let model = args
        .model
        .clone()
        .unwrap_or_else(|| endpoint.default_model.to_owned());
    let conversation = Conversation::new(RequestSettings {
        provider,
        model: model.clone(),
        system: format!(
            "{}\n\nThe workspace root, where Bash runs and below which the file tools work (give them absolute paths): {}",
            args.system.as_deref().unwrap_or(DEFAULT_SYSTEM),
            root.display()
        ),
        max_tokens: args.max_tokens,
        search: args.search,
        search_config,
        programmatic: args.programmatic,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    let mut agent = Agent {
        provider,
        model,
        client,
        conversation,
        orchestrator,
        tools,
        extensions,
        progress,
        interrupts: Interrupts::default(),
        max_turns: args.max_turns,
        stream_text: interactive,
    };
    let shells = agent.extensions.get_arc::<BackgroundShells>();
    let interrupts = agent.interrupts.clone();
    let ended = runtime.block_on(async move {
        agent.interrupts.install(shells);
        match &args.prompt {
            Some(prompt) => match agent.prompt(prompt).await? {
                Ending::Answer(text) => {
                    println!("{text}");
                    Ok(())
                }
                Ending::Interrupted => Err("interrupted".into()),
            },
            None => agent.interactive(lines.as_deref()).await,
        }
    });
    if let Some(code) = interrupts.exit_code() {
        // The turn ended on the signal's cancel: leave as the signal asked, every background
        // shell killed when the runtime and its tasks are dropped.
        runtime.shutdown_timeout(std::time::Duration::from_secs(1));
        crate::finish_telemetry();
        std::process::exit(code);
    }
    ended
}

/// How a prompt ended.
enum Ending {
    /// The model answered without calling a tool: its final text.
    Answer(String),
    /// The user pressed Ctrl-C.
    Interrupted,
}

struct Agent {
    provider: ModelApi,
    /// The model asked for (`gen_ai.request.model` of the `chat` spans).
    model: String,
    client: ApiClient,
    conversation: Conversation,
    orchestrator: Orchestrator,
    tools: Vec<Arc<dyn DynTool>>,
    extensions: Extensions,
    progress: Arc<Progress>,
    interrupts: Interrupts,
    max_turns: u32,
    /// Print text as it arrives (interactive), rather than the final answer at the end.
    stream_text: bool,
}

impl Agent {
    async fn interactive(&mut self, lines: Option<&Lines>) -> Result<(), String> {
        let lines = lines.ok_or("no input to read prompts from")?;
        let terminal = std::io::stdin().is_terminal();
        if terminal {
            println!(
                "tool-host chat ({} tools, {}). Ctrl-C cancels a turn, twice exits; Ctrl-D quits.",
                self.tools.len(),
                self.client.url()
            );
        }
        loop {
            if terminal {
                print!("\n> ");
                let _ = std::io::stdout().flush();
            }
            let Some(line) = lines.next().await else {
                return Ok(());
            };
            if line.trim().is_empty() {
                continue;
            }
            match self.prompt(&line).await {
                Ok(Ending::Answer(_)) => {}
                Ok(Ending::Interrupted) => eprintln!("(turn cancelled)"),
                Err(error) => eprintln!("tool-host: {error}"),
            }
        }
    }

    /// Runs one user prompt to the end: requests and tool rounds until the model answers
    /// without a tool call, the user cancels, or an error stops it. The turn is one
    /// `invoke_agent tool-host` span (OpenTelemetry GenAI conventions), parent of its `chat
    /// {model}` and `execute_tool {tool}` spans.
    async fn prompt(&mut self, text: &str) -> Result<Ending, String> {
        let span = stream::turn_span(self.provider, &self.model);
        tracing::Instrument::instrument(self.turn(text), span).await
    }

    /// The work of [`Agent::prompt`].
    async fn turn(&mut self, text: &str) -> Result<Ending, String> {
        self.conversation.push_user_text(text);
        // The tries of the current request, HTTP failures and failed streams together.
        let mut attempts = 0;
        let mut responses = 0;
        loop {
            if responses >= self.max_turns {
                return Err(format!(
                    "stopped after {} model responses (--max-turns)",
                    self.max_turns
                ));
            }
            let cancel = self.interrupts.begin();
            let step = self.step(&cancel, &mut attempts).await;
            match step {
                Ok(Step::Retry(error)) if attempts < api::MAX_ATTEMPTS => {
                    let wait = api::backoff(attempts);
                    self.progress.println(&format!(
                        "tool-host: {error}; retrying in {:.1}s (attempt {} of {})",
                        wait.as_secs_f64(),
                        attempts + 1,
                        api::MAX_ATTEMPTS
                    ));
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = cancel.cancelled() => {
                            self.interrupts.end();
                            self.conversation.push_user_text(INTERRUPTED);
                            return Ok(Ending::Interrupted);
                        }
                    }
                    self.interrupts.end();
                    continue;
                }
                _ => self.interrupts.end(),
            }
            match step? {
                Step::Again => {
                    attempts = 0;
                    responses += 1;
                }
                Step::Retry(error) => {
                    return Err(format!("{error} (gave up after {attempts} attempts)"));
                }
                Step::Done(text) => return Ok(Ending::Answer(text)),
                Step::Interrupted => return Ok(Ending::Interrupted),
            }
        }
    }

    /// One request and its tool calls.
    async fn step(
        &mut self,
        cancel: &CancellationToken,
        attempts: &mut u32,
    ) -> Result<Step, String> {
        let request = self.conversation.request(&self.tools).await?;
        if let Some(beta) = request.beta {
            self.client.set_header("anthropic-beta", beta.to_owned());
        }
        let progress = self.progress.clone();
        // The request and its streamed response (the calls it starts are the turn's
        // children, beside it).
        let chat = stream::chat_span(self.provider, &self.model);
        let send = self.client.send(&request.body, attempts, |line| {
            progress.println(&format!("tool-host: {line}"));
        });
        let sent = tokio::select! {
            sent = tracing::Instrument::instrument(send, chat.clone()) => sent,
            () = cancel.cancelled() => {
                self.conversation.push_user_text(INTERRUPTED);
                return Ok(Step::Interrupted);
            }
        };
        let response = sent.map_err(|error| stream::request_failed(&chat, &error))?;
        let turn = TurnState {
            extensions: self.extensions.clone(),
            abort: cancel.clone(),
            ..TurnState::default()
        };
        let mut executor = self.orchestrator.streaming(turn);
        let mut reader = ResponseReader::new(self.provider, &self.tools)?;
        let mut body = response.bytes_stream();
        let stream_text = self.stream_text;
        let mut wrote = false;
        let mut on_text = |piece: &str| {
            if stream_text && !piece.is_empty() {
                print!("{piece}");
                let _ = std::io::stdout().flush();
                wrote = true;
            }
        };
        let mut broken = None;
        loop {
            tokio::select! {
                chunk = body.next() => match chunk {
                    Some(Ok(bytes)) => reader.push(&bytes, &mut executor, &mut on_text),
                    Some(Err(error)) => {
                        broken = Some(format!("the response stream broke: {error}"));
                        break;
                    }
                    None => break,
                },
                () = cancel.cancelled() => break,
            }
        }
        let read = reader.finish(&mut executor, &mut on_text);
        stream::record_response(&chat, &read);
        programmatic::after_response(&progress, &mut self.conversation, &read);
        drop(chat);
        let stream_error = read
            .error
            .as_ref()
            .map(|error| (self.client.redact(&error.to_string()), error.retryable));
        if wrote {
            println!();
        }
        let wrote_nothing = read.message_is_empty();
        let outcome = executor.collect_results().await;
        self.extensions = outcome.extensions;
        self.progress.finish_unfinished(&outcome.results);
        self.conversation
            .push_turn(read.message, &read.calls, outcome.results)?;
        if cancel.is_cancelled() {
            self.conversation.note_interrupted_turn(&read.calls);
            return Ok(Step::Interrupted);
        }
        let broken = broken.or_else(|| {
            (!read.ended).then(|| "the response ended before it was complete".to_owned())
        });
        if let Some((error, retryable)) = stream_error.or(broken.map(|error| (error, true))) {
            // Nothing came before the error: the request can be sent again as it was.
            if retryable && read.calls.is_empty() && wrote_nothing {
                return Ok(Step::Retry(error));
            }
            return Err(error);
        }
        if read.calls.is_empty() {
            if read.stop_reason.as_deref() == Some("pause_turn") {
                // A long server-side tool turn paused: sending it back lets the model go on.
                return Ok(Step::Again);
            }
            if self.conversation.release_held() {
                // Text kept back from the answer to calls made by code (the next prompt
                // after an error or interruption) now has a message of its own to answer.
                return Ok(Step::Again);
            }
            return Ok(Step::Done(read.text));
        }
        Ok(Step::Again)
    }
}

enum Step {
    Again,
    /// The response failed before any content, with an error the API says may pass.
    Retry(String),
    Done(String),
    Interrupted,
}

/// How long a terminate or hang-up signal waits for the cancelled turn's calls to stop.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Ctrl-C: the first press cancels the running turn; a press with no turn running (or one
/// already cancelled) arms the exit, and the next press exits.
#[derive(Clone, Default)]
struct Interrupts {
    state: Arc<Mutex<InterruptState>>,
}

#[derive(Default)]
struct InterruptState {
    turn: Option<CancellationToken>,
    armed: bool,
    /// A terminate or hang-up signal came: tool-host exits with this code.
    exit_code: Option<i32>,
}

impl Interrupts {
    /// Starts listening for Ctrl-C (and for SIGTERM and SIGHUP, which exit). Exiting kills
    /// `shells`' runs first: `std::process::exit` drops nothing, so they would outlive
    /// tool-host in their own process groups.
    fn install(&self, shells: Option<Arc<BackgroundShells>>) {
        // A terminate or hang-up signal (the terminal closed) ends tool-host with the
        // shell's 128 + signal code: the running turn is cancelled first, so that its calls
        // stop their commands (for at most EXIT_GRACE), then the background shells are
        // killed.
        for (kind, code) in [
            (tokio::signal::unix::SignalKind::terminate(), 143),
            (tokio::signal::unix::SignalKind::hangup(), 129),
        ] {
            let shells = shells.clone();
            let state = self.state.clone();
            if let Ok(mut signal) = tokio::signal::unix::signal(kind) {
                tokio::spawn(async move {
                    if signal.recv().await.is_some() {
                        state
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .exit_code = Some(code);
                        let running = |state: &Mutex<InterruptState>| {
                            state
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .turn
                                .clone()
                        };
                        if let Some(turn) = running(&state) {
                            turn.cancel();
                            let deadline = tokio::time::Instant::now() + EXIT_GRACE;
                            while running(&state).is_some()
                                && tokio::time::Instant::now() < deadline
                            {
                                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                            }
                        }
                        if let Some(shells) = &shells {
                            shells.kill_all();
                        }
                        crate::finish_telemetry();
                        std::process::exit(code);
                    }
                });
            }
        }
        let state = self.state.clone();
        tokio::spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
                match &state.turn {
                    Some(turn) if !turn.is_cancelled() => {
                        turn.cancel();
                        state.armed = true;
                        eprintln!("\n^C cancelling this turn (press Ctrl-C again to exit)");
                    }
                    _ if state.armed => {
                        eprintln!("\n^C exiting");
                        if let Some(shells) = &shells {
                            shells.kill_all();
                        }
                        crate::finish_telemetry();
                        std::process::exit(130);
                    }
                    _ => {
                        state.armed = true;
                        eprintln!("\n^C press Ctrl-C again to exit");
                    }
                }
            }
        });
    }

    /// The exit code a terminate or hang-up signal asked for.
    fn exit_code(&self) -> Option<i32> {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .exit_code
    }

    fn begin(&self) -> CancellationToken {
        let token = CancellationToken::new();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.turn = Some(token.clone());
        state.armed = false;
        token
    }

    fn end(&self) {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .turn = None;
    }
}
