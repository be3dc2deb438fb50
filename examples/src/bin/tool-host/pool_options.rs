//! The pool options shared by `tool-host pool` and `tool-host definitions`: permission rules,
//! run-time tools from JSON files, MCP tools from recorded `tools/list` results, and the pool
//! modes (SPEC §6, §7, §10).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use tool_registry::ToolPermissionContext;
use tool_registry::dynamic::{DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list};
use tool_registry::export::{RenderRequest, SchemaCache, StrictPolicy};
use tool_registry::permissions::{
    AliasTable, PermissionBehavior, PermissionRuleSource, validate_rules,
};
use tool_registry::providers::ModelApi;
use tool_registry::providers::gemini::GeminiNames;
use tool_registry::search::DeferralRules;
use tool_registry::{PoolConfig, ToolPool, ToolRegistry};
use tool_sdk::DynTool;

/// How to build the tool pool.
#[derive(Args, Debug, Clone, Default)]
pub struct PoolOptions {
    /// A deny rule such as `Bash`, `Bash(git *)` or `mcp__github` (repeatable).
    #[arg(long = "deny", value_name = "RULE")]
    pub deny: Vec<String>,
    /// An allow rule (repeatable).
    #[arg(long = "allow", value_name = "RULE")]
    pub allow: Vec<String>,
    /// An ask rule (repeatable).
    #[arg(long = "ask", value_name = "RULE")]
    pub ask: Vec<String>,
    /// A JSON file with an array of tool definitions (`name`, `description`, `input_schema`,
    /// flags...). Their calls answer with a fixed text (repeatable).
    #[arg(long = "tools-json", value_name = "FILE")]
    pub tools_json: Vec<PathBuf>,
    /// `SERVER=FILE`: the MCP tools of SERVER from a recorded `tools/list` result (the result
    /// object or the whole JSON-RPC response). MCP servers are not connected, so their calls
    /// answer with an error (repeatable).
    #[arg(long = "mcp-tools-json", value_name = "SERVER=FILE")]
    pub mcp_tools_json: Vec<String>,
    /// Let code the model runs in the provider's sandbox call this tool (a name or alias) or
    /// every tool of this MCP server (programmatic tool calling), besides the model itself:
    /// Anthropic and OpenAI Responses definitions get `allowed_callers`. Tools can also say
    /// it themselves: `#[tool(callers = [...])]`, or `"callers"` in a `--tools-json`
    /// definition (repeatable).
    #[arg(long = "allow-programmatic", value_name = "TOOL_OR_SERVER")]
    pub allow_programmatic: Vec<String>,
    /// Simple mode: only Bash, Read and Edit among the built-in tools.
    #[arg(long)]
    pub simple: bool,
    /// Coordinator mode: keep only the coordinator tools.
    #[arg(long)]
    pub coordinator: bool,
    /// Live MCP servers, whose tools join the pool.
    #[command(flatten)]
    pub mcp: crate::mcp::McpOptions,
}

/// A pool with what it needs to run: the permission rules and the live MCP servers (kept
/// connected while this lives).
pub struct BuiltPool {
    /// The pool.
    pub pool: ToolPool,
    /// The permission rules the options give.
    pub permissions: ToolPermissionContext,
    /// The connected MCP servers, if any were given: held so that their tools keep working
    /// while the pool is used, and stopped when this drops.
    pub mcp: Option<crate::mcp::McpSession>,
    /// What the pool was assembled from, to assemble it again when a server's tools change.
    parts: PoolParts,
}

/// The inputs of [`ToolPool::assemble`] that do not change while a host runs.
struct PoolParts {
    base: Vec<Arc<dyn DynTool>>,
    recorded_mcp: Vec<Arc<dyn DynTool>>,
    config: PoolConfig,
    /// `--allow-programmatic`.
    programmatic: Vec<String>,
}

impl PoolParts {
    fn assemble(
        &self,
        permissions: &ToolPermissionContext,
        live: Option<&crate::mcp::McpSession>,
    ) -> Result<ToolPool, String> {
        let mut mcp = self.recorded_mcp.clone();
        if let Some(session) = live {
            mcp.extend(session.tools());
        }
        let mcp = crate::callers::allow_programmatic(mcp, &self.programmatic);
        let pool = ToolPool::assemble(&self.base, permissions, &mcp, &self.config)
            .map_err(|error| error.to_string())?;
        Ok(if self.config.coordinator {
            pool.merge_initial(&[], &self.config)
        } else {
            pool
        })
    }
}

impl BuiltPool {
    /// The pool assembled again from the live servers' current tools: call it after
    /// [`McpSession::changes`](crate::mcp::McpSession::changes) moves (a server's
    /// `notifications/tools/list_changed`, a server connecting, dying or reconnecting).
    pub fn reassembled(&self) -> Result<ToolPool, String> {
        self.parts.assemble(&self.permissions, self.mcp.as_ref())
    }
}

/// The fixed answer of a tool loaded with `--tools-json`.
pub fn json_tool_answer(file: &Path) -> String {
    format!(
        "This tool is defined in {} and has no implementation in tool-host; this is a fixed answer.",
        file.display()
    )
}

fn read_json(file: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|error| format!("cannot read {}: {error}", file.display()))?;
    serde_json::from_str(&text).map_err(|error| format!("{} is not JSON: {error}", file.display()))
}

impl PoolOptions {
    /// The built-in tools: the registry's plus the `--tools-json` ones, names unique.
    fn base_tools(&self, registry: &ToolRegistry) -> Result<Vec<Arc<dyn DynTool>>, String> {
        let mut tools = registry.tools().to_vec();
        for file in &self.tools_json {
            let definitions = read_json(file)?;
            let handler = ToolHandler::fixed_text(json_tool_answer(file));
            let loaded = DynamicTool::many_from_json(&definitions, &handler)
                .map_err(|error| format!("{}: {error}", file.display()))?;
            tools.extend(loaded);
        }
        ToolRegistry::from_tools(tools)
            .map(|registry| registry.tools().to_vec())
            .map_err(|error| error.to_string())
    }

    fn mcp_tools(&self) -> Result<Vec<Arc<dyn DynTool>>, String> {
        let mut tools = Vec::new();
        for spec in &self.mcp_tools_json {
            let Some((server, file)) = spec.split_once('=') else {
                return Err(format!(
                    "--mcp-tools-json `{spec}`: expected SERVER=FILE, such as github=tools.json"
                ));
            };
            if server.is_empty() {
                return Err(format!(
                    "--mcp-tools-json `{spec}`: the server name is empty"
                ));
            }
            let list = read_json(Path::new(file))?;
            let list = list.get("response").cloned().unwrap_or(list);
            let imported = mcp_tools_from_list(server, &list, &McpImportOptions::default())
                .map_err(|error| format!("{file}: {error}"))?;
            // The same warning a live server's skipped entries get (`mcp list`, `--mcp-server`).
            for skipped in &imported.skipped {
                eprintln!("tool-host: warning: {skipped}");
            }
            tools.extend(imported.tools);
        }
        Ok(tools)
    }

    /// The permission rules, every one checked first (SPEC §6.5).
    fn permissions(&self, aliases: &AliasTable) -> Result<ToolPermissionContext, String> {
        let mut ctx = ToolPermissionContext::default();
        let groups = [
            ("--deny", PermissionBehavior::Deny, &self.deny),
            ("--allow", PermissionBehavior::Allow, &self.allow),
            ("--ask", PermissionBehavior::Ask, &self.ask),
        ];
        let mut problems = String::new();
        for (flag, behavior, rules) in groups {
            for problem in validate_rules(rules.iter().map(String::as_str)) {
                let _ = write!(problems, "\n  {flag} {problem}");
            }
            for rule in rules {
                ctx.add_rule_str(PermissionRuleSource::CliArg, behavior, rule, aliases);
            }
        }
        if problems.is_empty() {
            Ok(ctx)
        } else {
            Err(format!("bad permission rules:{problems}"))
        }
    }

    /// The pool these options describe, over `registry`'s tools.
    pub fn build(&self, registry: &ToolRegistry) -> Result<ToolPool, String> {
        self.build_live(registry).map(|built| built.pool.clone())
    }

    /// [`PoolOptions::build`], keeping the MCP servers connected and the permission rules.
    pub fn build_live(&self, registry: &ToolRegistry) -> Result<BuiltPool, String> {
        let base = self.base_tools(registry)?;
        let permissions = self.permissions(&AliasTable::from_tools(&base))?;
        let recorded_mcp = self.mcp_tools()?;
        let session = self.mcp.connect()?;
        let mut known = base.clone();
        known.extend(recorded_mcp.iter().cloned());
        if let Some(live) = &session {
            known.extend(live.tools());
        }
        let servers: Vec<String> = match &session {
            Some(_) => self
                .mcp
                .server_configs()?
                .into_iter()
                .map(|config| config.name)
                .collect(),
            None => Vec::new(),
        };
        crate::callers::check_unmatched(&known, &self.allow_programmatic, &servers)?;
        let base = crate::callers::allow_programmatic(base, &self.allow_programmatic);
        let parts = PoolParts {
            base,
            recorded_mcp,
            programmatic: self.allow_programmatic.clone(),
            config: PoolConfig {
                simple: self.simple,
                coordinator: self.coordinator,
                ..PoolConfig::default()
            },
        };
        let pool = parts.assemble(&permissions, session.as_ref())?;
        Ok(BuiltPool {
            pool,
            permissions,
            mcp: session,
            parts,
        })
    }
}

/// The pool in order, one line per tool: position, name, kind (built-in or the MCP server),
/// declared flags, and whether the tool is deferred (sent by name only, SPEC §4.1).
pub fn describe_pool(pool: &ToolPool) -> String {
    let width = pool.names().map(str::len).max().unwrap_or(4).max(4);
    let mut text = format!(
        "{:>3}  {:<width$}  {:<12} {:<10} {:<17} {:<12} {}\n",
        "#", "NAME", "KIND", "READ-ONLY", "CONCURRENCY-SAFE", "DESTRUCTIVE", "DEFERRED"
    );
    for (index, tool) in pool.tools().iter().enumerate() {
        let meta = tool.meta();
        let kind = meta.mcp_info.as_ref().map_or_else(
            || "built-in".to_owned(),
            |info| format!("mcp:{}", info.server_name),
        );
        let deferred = if DeferralRules::default().is_deferred(tool.as_ref()) {
            "deferred"
        } else {
            "-"
        };
        let _ = writeln!(
            text,
            "{:>3}  {:<width$}  {:<12} {:<10} {:<17} {:<12} {}",
            index + 1,
            meta.name,
            kind,
            meta.read_only.label(),
            meta.concurrency_safe.label(),
            meta.destructive.label(),
            deferred
        );
    }
    let _ = writeln!(
        text,
        "{} tools: {} built-in, {} MCP",
        pool.len(),
        pool.built_in_count(),
        pool.len() - pool.built_in_count()
    );
    text
}

/// [`describe_pool`] as JSON: one object per tool, in pool order.
pub fn pool_json(pool: &ToolPool) -> Vec<serde_json::Value> {
    pool.tools()
        .iter()
        .map(|tool| {
            let meta = tool.meta();
            serde_json::json!({
                "name": meta.name,
                "kind": meta.mcp_info.as_ref().map_or_else(
                    || "built-in".to_owned(),
                    |info| format!("mcp:{}", info.server_name),
                ),
                "read_only": meta.read_only.label(),
                "concurrency_safe": meta.concurrency_safe.label(),
                "destructive": meta.destructive.label(),
                "deferred": DeferralRules::default().is_deferred(tool.as_ref()),
            })
        })
        .collect()
}

/// The definitions in `api`'s shape for the pool `options` describe, rendered through a
/// schema cache. With `strict`, OpenAI APIs ask for strict mode; a tool whose schema cannot be
/// strict is sent without it and a warning naming the field goes to stderr. For both Gemini
/// formats, each renamed tool and each problem the offline check finds (a keyword Gemini
/// ignores) is said on stderr; with `gemini-openapi`, a tool whose schema
/// cannot be made portable fails the command, naming the tool and field.
pub fn definitions(
    registry: &ToolRegistry,
    options: &PoolOptions,
    api: ModelApi,
    strict: bool,
) -> Result<Vec<serde_json::Value>, String> {
    let pool = options.build(registry)?;
    let cache = SchemaCache::new();
    if matches!(api, ModelApi::OpenAiChat | ModelApi::OpenAiResponses) {
        for error in cache.strict_problems(pool.tools(), strict) {
            eprintln!("tool-host: warning: {error}; sent without strict mode");
        }
    }
    let request = RenderRequest {
        strict,
        strict_policy: StrictPolicy::DropStrict,
        ..RenderRequest::default()
    };
    let definitions = api
        .definitions(&cache, pool.tools(), &request)
        .map_err(|error| error.to_string())?;
    if matches!(api, ModelApi::Gemini | ModelApi::GeminiOpenApi) {
        for (name, sent) in GeminiNames::for_tools(pool.tools()).renamed() {
            eprintln!("tool-host: `{name}` is sent to Gemini as `{sent}`");
        }
        // The offline check: keywords Gemini ignores, kept in `parametersJsonSchema`.
        for definition in &definitions {
            for problem in tool_registry::providers::gemini::check_declaration(definition) {
                let name = definition["name"].as_str().unwrap_or_default();
                eprintln!("tool-host: warning: `{name}`: {problem}");
            }
        }
    }
    Ok(definitions)
}
