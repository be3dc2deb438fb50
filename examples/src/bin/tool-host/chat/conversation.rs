//! The conversation of `tool-host chat`: the message history in the API's shape, and the body
//! of each request: the tools (with ToolSearch and deferred tools, SPEC §4.4), the
//! deferred-tools delta (SPEC §8.2) and, for Anthropic, prompt-cache breakpoints on the stable
//! prefix (tools, system prompt) and on the newest message.

use std::sync::Arc;

use serde_json::{Value, json};
use tool_registry::export::{RenderRequest, SchemaCache, StrictPolicy};
use tool_registry::providers::AnthropicToolSearch;
use tool_registry::providers::{ModelApi, ToolCalls};
use tool_registry::search::{DeferredToolsDelta, RequestTools, ToolSearchConfig, ToolSearchGate};
use tool_sdk::{DynTool, ToolResultBlock};

/// The text sent after the results of a turn whose tools the user cancelled (SPEC §5.6).
pub const INTERRUPTED_FOR_TOOL_USE: &str = "[Request interrupted by user for tool use]";

/// The text sent after a response the user cancelled while the model was writing.
pub const INTERRUPTED: &str = "[Request interrupted by user]";

/// The `max_tokens` of an Anthropic request when `--max-tokens` is not given.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;

/// Which search the model gets for deferred tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchChoice {
    /// Our ToolSearch tool, run by tool-host; deferred tools are announced by name.
    Client,
    /// Anthropic's server-side BM25 tool search (Anthropic only).
    Bm25,
    /// Anthropic's server-side regex tool search (Anthropic only).
    Regex,
    /// No search: every tool's definition is sent.
    Off,
}

/// Everything that shapes a request besides the history.
pub struct RequestSettings {
    /// The API.
    pub provider: ModelApi,
    /// The model id.
    pub model: String,
    /// The system prompt.
    pub system: String,
    /// The most tokens the model may write per response: Anthropic requires it (default
    /// [`DEFAULT_MAX_TOKENS`]); OpenAI-compatible servers get it only when set.
    pub max_tokens: Option<u32>,
    /// The search choice.
    pub search: SearchChoice,
    /// The tool search configuration (deferral rules, gate, delta switch).
    pub search_config: ToolSearchConfig,
    /// Anthropic programmatic tool calling: send the code execution tool
    /// ([`ModelApi::ANTHROPIC_CODE_EXECUTION`]).
    pub programmatic: bool,
}

/// The history and the per-session caches.
pub struct Conversation {
    settings: RequestSettings,
    gate: ToolSearchGate,
    schemas: SchemaCache,
    /// The messages sent so far, in the API's shape.
    messages: Vec<Value>,
    /// Every turn's results as Anthropic user messages, whatever the API: where discovered
    /// tools are read from (`tool_reference` blocks, SPEC §4.4).
    result_history: Vec<Value>,
    /// The deferred-tools deltas announced so far (SPEC §8.2).
    announced: Vec<DeferredToolsDelta>,
    /// Anthropic: the code execution container of the last response that had one and its
    /// `expires_at` (RFC 3339), sent as the next request's `container` until it expires
    /// (programmatic tool calling resumes the code there).
    container: Option<(String, Option<String>)>,
    /// The last message answers calls that code made: Anthropic's programmatic tool calling
    /// rule is that such a message holds `tool_result` blocks only (no text, even after the
    /// results), so text for it waits in `held` until the model has replied.
    answers_code: bool,
    /// Text kept back while `answers_code` (the user's next prompt, an interruption note),
    /// sent as a user message of its own after the model's reply.
    held: Vec<String>,
}

/// A request ready to send: its body and the headers it needs.
pub struct Request {
    /// The JSON body.
    pub body: Value,
    /// `anthropic-beta`, when the request uses deferred loading.
    pub beta: Option<&'static str>,
}

impl Conversation {
    /// An empty conversation.
    pub fn new(settings: RequestSettings) -> Self {
        Self {
            gate: ToolSearchGate::new(settings.search_config.clone()),
            settings,
            schemas: SchemaCache::new(),
            messages: Vec::new(),
            result_history: Vec::new(),
            announced: Vec::new(),
            container: None,
            answers_code: false,
            held: Vec::new(),
        }
    }

    /// Notes in the history that the user interrupted the turn that made `calls` (each
    /// cancelled call's result says it was cancelled): the interruption text, kept back by
    /// [`Conversation::push_user_text`] when the results answer calls made by code.
    pub fn note_interrupted_turn(&mut self, calls: &ToolCalls) {
        let note = if calls.is_empty() {
            INTERRUPTED
        } else {
            INTERRUPTED_FOR_TOOL_USE
        };
        self.push_user_text(note);
    }

    /// Keeps the code execution container a response named with its `expires_at` (`None`
    /// keeps the last one, which is dropped once expired: a request naming an expired
    /// container fails).
    pub fn keep_container(&mut self, container: Option<String>, expires_at: Option<String>) {
        if let Some(id) = container {
            self.container = Some((id, expires_at));
        }
    }

    /// The container to send: the kept one unless its `expires_at` has passed (an
    /// `expires_at` that is not RFC 3339 is ignored).
    fn live_container(&mut self) -> Option<String> {
        let (id, expires_at) = self.container.as_ref()?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| {
                i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
            });
        let expired = expires_at
            .as_deref()
            .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
            .is_some_and(|at| at.timestamp() <= now);
        if expired {
            self.container = None;
            return None;
        }
        Some(id.clone())
    }

    /// Whether text may join the last message now: not while it answers calls made by code
    /// (Anthropic's programmatic tool calling: tool results only). The one guard for every
    /// text tool-host adds (prompts, interruption notes, deferred-tools announcements).
    fn text_may_follow(&self) -> bool {
        !self.answers_code
    }

    /// After a response the model ended (no calls, not paused): the text kept back while the
    /// last message answered code, as a new user message. True when one was added (the
    /// model then has a message to answer).
    pub fn release_held(&mut self) -> bool {
        if self.held.is_empty() || self.answers_code {
            return false;
        }
        let content: Vec<Value> = self
            .held
            .drain(..)
            .map(|text| json!({"type": "text", "text": text}))
            .collect();
        self.messages
            .push(json!({"role": "user", "content": content}));
        true
    }

    /// Adds the user's text: to the last message when it is a user message (after tool
    /// results, which must come first), else as a new user message; kept back (see
    /// [`Conversation::release_held`]) while the last message answers calls made by code.
    pub fn push_user_text(&mut self, text: &str) {
        if !self.text_may_follow() {
            self.held.push(text.to_owned());
            return;
        }
        let block = json!({"type": "text", "text": text});
        if let Some(last) = self.messages.last_mut()
            && last["role"] == "user"
        {
            match &mut last["content"] {
                Value::Array(content) => {
                    content.push(block);
                    return;
                }
                Value::String(existing) => {
                    let existing = std::mem::take(existing);
                    last["content"] = json!([{"type": "text", "text": existing}, block]);
                    return;
                }
                _ => {}
            }
        }
        self.messages
            .push(json!({"role": "user", "content": [block]}));
    }

    /// Adds the assistant message of a response and, when it called tools, the answer to
    /// every call (one result per call id, in call order; a call whose arguments failed gets
    /// its error result).
    pub fn push_turn(
        &mut self,
        assistant: Value,
        calls: &ToolCalls,
        results: Vec<ToolResultBlock>,
    ) -> Result<(), String> {
        let empty = match &assistant["content"] {
            Value::Array(content) => content.is_empty(),
            Value::Null => assistant.get("tool_calls").is_none(),
            Value::String(text) => text.is_empty(),
            _ => false,
        };
        if !empty {
            self.messages.push(assistant);
            // The model replied: the results it answered no longer end the history.
            self.answers_code = false;
        }
        if calls.is_empty() {
            return Ok(());
        }
        self.answers_code = self.settings.provider == ModelApi::Anthropic
            && calls.calls.iter().any(|call| call.caller.is_programmatic());
        let as_anthropic = ModelApi::Anthropic
            .write_results(calls, results.clone(), &[])
            .map_err(|error| error.to_string())?;
        self.result_history.push(as_anthropic.clone());
        match self.settings.provider {
            ModelApi::Anthropic => self.messages.push(as_anthropic),
            api => match api
                .write_results(calls, results, &[])
                .map_err(|error| error.to_string())?
            {
                Value::Array(messages) => self.messages.extend(messages),
                answer => self.messages.push(answer),
            },
        }
        Ok(())
    }

    /// The next request's body over `pool`: with search on, the deferred tools not yet
    /// discovered are left out and announced by a delta (or the `<available-deferred-tools>`
    /// block) added to the newest user message; Anthropic requests get `cache_control` on the
    /// last built-in tool, the system prompt and the newest message.
    pub async fn request(&mut self, pool: &[Arc<dyn DynTool>]) -> Result<Request, String> {
        let settings = &self.settings;
        let anthropic = settings.provider == ModelApi::Anthropic;
        let cache = json!({"type": "ephemeral"});
        let render = RenderRequest {
            strict_policy: StrictPolicy::DropStrict,
            cache_control: anthropic.then(|| cache.clone()),
            ..RenderRequest::default()
        };
        let rules = &settings.search_config.deferral;
        let (tools, beta) = match settings.search {
            SearchChoice::Bm25 | SearchChoice::Regex if anthropic => {
                let search = if settings.search == SearchChoice::Bm25 {
                    AnthropicToolSearch::Bm25
                } else {
                    AnthropicToolSearch::Regex
                };
                let request = search
                    .request(&self.schemas, pool, rules, &render)
                    .map_err(|error| error.to_string())?;
                (request.tools, Some(request.beta_header))
            }
            SearchChoice::Client => {
                let enabled = self.gate.is_enabled(&settings.model, pool).await;
                let chosen = RequestTools::choose(
                    pool,
                    &self.result_history,
                    enabled,
                    false,
                    &settings.search_config,
                );
                if chosen.tool_search {
                    self.announce(pool, &chosen);
                }
                let settings = &self.settings;
                let render = RenderRequest {
                    defer_loading: if anthropic {
                        chosen.defer_loading.clone()
                    } else {
                        Vec::new()
                    },
                    ..render
                };
                let tools = settings
                    .provider
                    .definitions(&self.schemas, &chosen.tools, &render)
                    .map_err(|error| error.to_string())?;
                let beta = (anthropic && !chosen.defer_loading.is_empty())
                    .then_some(AnthropicToolSearch::BETA);
                (tools, beta)
            }
            SearchChoice::Bm25 | SearchChoice::Regex | SearchChoice::Off => {
                let tools: Vec<Arc<dyn DynTool>> = pool
                    .iter()
                    .filter(|tool| {
                        tool.name() != tool_registry::search::TOOL_SEARCH_NAME || tool.meta().is_mcp
                    })
                    .cloned()
                    .collect();
                let tools = settings
                    .provider
                    .definitions(&self.schemas, &tools, &render)
                    .map_err(|error| error.to_string())?;
                (tools, None)
            }
        };
        let settings = &self.settings;
        let body = if anthropic {
            let mut messages = self.messages.clone();
            if let Some(Value::Array(content)) =
                messages.last_mut().map(|message| &mut message["content"])
                && let Some(Value::Object(block)) = content.last_mut()
            {
                block.insert("cache_control".to_owned(), cache.clone());
            }
            let mut body = json!({
                "model": settings.model,
                "max_tokens": settings.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
                "system": [{"type": "text", "text": settings.system, "cache_control": cache}],
                "messages": messages,
                "stream": true,
            });
            let mut tools = tools;
            if settings.programmatic {
                // Programmatic tool calling: the server tool whose code calls ours (the
                // version the definitions' `allowed_callers` name).
                tools.push(
                    json!({"type": ModelApi::ANTHROPIC_CODE_EXECUTION, "name": "code_execution"}),
                );
            }
            if !tools.is_empty() {
                body["tools"] = Value::Array(tools);
            }
            if let Some(container) = self.live_container() {
                body["container"] = json!(container);
            }
            body
        } else {
            let mut messages = vec![json!({"role": "system", "content": settings.system})];
            messages.extend(self.messages.iter().cloned());
            let mut body = json!({
                "model": settings.model,
                "messages": messages,
                "stream": true,
                // The last chunk then carries the token counts (for the `chat` span).
                "stream_options": {"include_usage": true},
            });
            if let Some(max_tokens) = settings.max_tokens {
                body["max_tokens"] = json!(max_tokens);
            }
            if !tools.is_empty() {
                body["tools"] = Value::Array(tools);
            }
            body
        };
        Ok(Request { body, beta })
    }

    /// Announces deferred tools in the newest user message: the delta since the last
    /// announcement when the delta gate is on (SPEC §8.2), else the whole
    /// `<available-deferred-tools>` block on the first request.
    fn announce(&mut self, pool: &[Arc<dyn DynTool>], chosen: &RequestTools) {
        if !self.text_may_follow() {
            // Announced with a later request, whose last message may hold text.
            return;
        }
        let text = if self.settings.search_config.deferred_delta {
            let Some(delta) = DeferredToolsDelta::since(
                pool,
                &self.announced,
                &self.settings.search_config.deferral,
            ) else {
                return;
            };
            let text = delta.render();
            self.announced.push(delta);
            text
        } else {
            match &chosen.available_deferred_tools {
                Some(block) if self.announced.is_empty() => {
                    self.announced.push(DeferredToolsDelta::default());
                    block.clone()
                }
                _ => return,
            }
        };
        let block = json!({"type": "text", "text": text});
        if let Some(last) = self.messages.last_mut()
            && last["role"] == "user"
            && let Value::Array(content) = &mut last["content"]
        {
            // After any tool results, which must lead the message.
            let at = content
                .iter()
                .position(|block| block["type"] != "tool_result")
                .unwrap_or(content.len());
            content.insert(at, block);
        } else if self.settings.provider == ModelApi::OpenAiChat {
            self.messages.push(json!({"role": "user", "content": text}));
        }
    }
}
