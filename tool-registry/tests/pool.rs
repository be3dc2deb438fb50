//! The tool pool (SPEC §7): get_tools, assemble_tool_pool, merge_and_filter_tools, and the
//! alias fallback of SPEC §5.4 step 1, over real run-time and MCP tools.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{Value, json};
use tool_registry::ToolPermissionContext;
use tool_registry::dynamic::{DynamicTool, McpImportOptions, ToolHandler, mcp_tools_from_list};
use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
use tool_registry::test_support::{
    assemble_tool_pool, find_tool_for_use, get_tools, is_mcp_tool, merge_and_filter_tools,
};
use tool_registry::{PoolConfig, ToolPool};
use tool_sdk::{DynTool, InputError, ToolCall, ToolMeta};

fn tool(name: &str) -> Arc<dyn DynTool> {
    tool_with(name, &[])
}

fn tool_with(name: &str, aliases: &[&str]) -> Arc<dyn DynTool> {
    Arc::new(
        DynamicTool::from_json(
            &json!({"name": name, "description": format!("The {name} tool."), "aliases": aliases,
                    "input_schema": {"type": "object", "properties": {}}}),
            ToolHandler::fixed_text(name),
        )
        .unwrap(),
    )
}

/// A host tool that is switched off: `is_enabled()` is false.
struct Disabled(DynamicTool);

/// The wrapped tool, disabled; everything else is the inner tool's.
impl DynTool for Disabled {
    fn has_json_schema(&self) -> bool {
        self.0.has_json_schema()
    }

    fn shared_input_schema(&self) -> Option<&'static Value> {
        self.0.shared_input_schema()
    }

    fn output_schema(&self) -> Option<&Value> {
        self.0.output_schema()
    }

    fn definition_site(&self) -> Option<tool_sdk::DefinitionSite> {
        self.0.definition_site()
    }

    fn meta(&self) -> &ToolMeta {
        self.0.meta()
    }
    fn is_enabled(&self) -> bool {
        false
    }
    fn prompt(&self) -> Cow<'_, str> {
        self.0.prompt()
    }
    fn input_schema(&self) -> &Value {
        self.0.input_schema()
    }
    fn parse_input(&self, input: &Value) -> Result<Box<dyn ToolCall>, InputError> {
        self.0.parse_input(input)
    }
}

fn disabled(name: &str) -> Arc<dyn DynTool> {
    Arc::new(Disabled(
        DynamicTool::from_json(
            &json!({"name": name, "description": "off", "input_schema": {"type": "object"}}),
            ToolHandler::fixed_text("off"),
        )
        .unwrap(),
    ))
}

fn mcp_tools(server: &str, names: &[&str]) -> Vec<Arc<dyn DynTool>> {
    let tools: Vec<Value> = names
        .iter()
        .map(|name| json!({"name": name, "inputSchema": {"type": "object"}}))
        .collect();
    mcp_tools_from_list(
        server,
        &json!({"tools": tools}),
        &McpImportOptions::default(),
    )
    .unwrap()
    .tools
}

/// Records every `tracing` event at WARN or above as `LEVEL field=value ...`.
struct Capture(Arc<std::sync::Mutex<Vec<String>>>);

struct Fields<'a>(&'a mut String);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        use std::fmt::Write as _;
        let _ = write!(self.0, " {}={value:?}", field.name());
    }
}

impl tracing::Subscriber for Capture {
    // Asked again for every event, so an interest cached while another test ran without a
    // subscriber cannot hide this test's events.
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::sometimes()
    }
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() <= tracing::Level::WARN
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut text = event.metadata().level().to_string();
        event.record(&mut Fields(&mut text));
        self.0.lock().unwrap().push(text);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

fn names(tools: &[Arc<dyn DynTool>]) -> Vec<&str> {
    tools.iter().map(|tool| tool.name()).collect()
}

fn deny(rules: &[&str]) -> ToolPermissionContext {
    let mut ctx = ToolPermissionContext::default();
    for rule in rules {
        ctx.add_rule_str(
            PermissionRuleSource::CliArg,
            PermissionBehavior::Deny,
            rule,
            &AliasTable::new(),
        );
    }
    ctx
}

fn base() -> Vec<Arc<dyn DynTool>> {
    vec![
        tool("Read"),
        tool("Bash"),
        tool("Edit"),
        tool("StructuredOutput"),
        tool("ListMcpResourcesTool"),
        tool("ReadMcpResourceTool"),
        disabled("Sleep"),
        tool("Agent"),
        tool("TaskStop"),
        tool("SendMessage"),
        tool("glob"),
        tool("Grep"),
    ]
}

#[test]
fn get_tools_drops_special_denied_and_disabled_tools() {
    let offered = get_tools(&base(), &deny(&["Grep"]), &PoolConfig::default());
    assert_eq!(
        names(&offered),
        [
            "Read",
            "Bash",
            "Edit",
            "Agent",
            "TaskStop",
            "SendMessage",
            "glob"
        ]
    );
}

#[test]
fn simple_mode_keeps_bash_read_edit_without_the_enabled_filter() {
    let config = PoolConfig {
        simple: true,
        simple_tools: vec!["Bash".into(), "Read".into(), "Edit".into(), "Sleep".into()],
        ..PoolConfig::default()
    };
    let offered = get_tools(&base(), &deny(&["Edit"]), &config);
    assert_eq!(names(&offered), ["Read", "Bash", "Sleep"]);
    let coordinator = PoolConfig {
        simple: true,
        coordinator: true,
        ..PoolConfig::default()
    };
    let offered = get_tools(&base(), &deny(&[]), &coordinator);
    assert_eq!(
        names(&offered),
        ["Read", "Bash", "Edit", "Agent", "TaskStop", "SendMessage"]
    );
}

#[test]
fn the_pool_is_sorted_built_ins_then_sorted_mcp_tools() {
    let mut mcp = mcp_tools("zeta", &["b", "A"]);
    mcp.extend(mcp_tools("alpha", &["x_y", "x-y"]));
    mcp.extend(mcp_tools("github", &["get_me"]));
    let pool = assemble_tool_pool(
        &base(),
        &deny(&["mcp__github", "Agent"]),
        &mcp,
        &PoolConfig::default(),
    )
    .unwrap();
    assert_eq!(
        pool.names().collect::<Vec<_>>(),
        [
            "Bash",
            "Edit",
            "glob",
            "Grep",
            "Read",
            "SendMessage",
            "TaskStop",
            "mcp__alpha__x_y",
            "mcp__alpha__x-y",
            "mcp__zeta__A",
            "mcp__zeta__b",
        ]
    );
    assert_eq!(pool.built_in_count(), 7);
    assert_eq!(names(pool.built_ins()).last(), Some(&"TaskStop"));
    assert_eq!(names(pool.mcp_tools()).first(), Some(&"mcp__alpha__x_y"));
}

#[test]
fn a_built_in_beats_an_mcp_tool_of_the_same_name() {
    let list = json!({"tools": [{"name": "Read", "inputSchema": {"type": "object"}},
                                {"name": "Zed", "inputSchema": {"type": "object"}}]});
    let options = McpImportOptions {
        no_prefix: true,
        handler: None,
    };
    let mcp = mcp_tools_from_list("fs", &list, &options).unwrap().tools;
    let events = Arc::new(std::sync::Mutex::new(Vec::new()));
    let pool = tracing::subscriber::with_default(Capture(Arc::clone(&events)), || {
        assemble_tool_pool(&[tool("Read")], &deny(&[]), &mcp, &PoolConfig::default()).unwrap()
    });
    assert_eq!(pool.names().collect::<Vec<_>>(), ["Read", "Zed"]);
    let events = events.lock().unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(
        events[0].starts_with("WARN ")
            && events[0].contains("name=\"Read\"")
            && events[0].contains("the built-in tool is kept"),
        "{events:?}"
    );
    assert!(!pool.tools()[0].meta().is_mcp);
    assert!(pool.tools()[1].meta().is_mcp);
    assert_eq!(pool.built_in_count(), 1);
}

#[test]
fn two_mcp_tools_with_one_name_are_an_error() {
    let mut mcp = mcp_tools("a.b", &["t"]);
    mcp.extend(mcp_tools("a_b", &["t"]));
    let error = assemble_tool_pool(&[], &deny(&[]), &mcp, &PoolConfig::default()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "two MCP tools are named `mcp__a_b__t` (`a.b`/`t` and `a_b`/`t`); rename one on its server or connect the servers under different names"
    );
}

#[test]
fn merging_keeps_initial_tools_and_resorts() {
    let pool = assemble_tool_pool(
        &[tool("Read"), tool("Bash")],
        &deny(&[]),
        &mcp_tools("s", &["t"]),
        &PoolConfig::default(),
    )
    .unwrap();
    let initial = vec![
        tool_with("Read", &["Cat"]),
        mcp_tools("x", &["y"]).remove(0),
        tool("Alpha"),
    ];
    let merged = merge_and_filter_tools(&initial, &pool, &PoolConfig::default());
    assert_eq!(
        merged.names().collect::<Vec<_>>(),
        ["Alpha", "Bash", "Read", "mcp__s__t", "mcp__x__y"]
    );
    assert_eq!(merged.built_in_count(), 3);
    assert_eq!(merged.find("Cat").map(|tool| tool.name()), Some("Read"));
    assert!(is_mcp_tool(merged.tools()[4].as_ref()));
}

#[test]
fn coordinator_mode_keeps_the_configured_allow_set() {
    let base = vec![
        tool("Agent"),
        tool("Read"),
        tool("TaskStop"),
        tool("StructuredOutput"),
    ];
    let pool = assemble_tool_pool(
        &base,
        &deny(&[]),
        &mcp_tools("gh", &["subscribe_pr_activity", "list_prs"]),
        &PoolConfig::default(),
    )
    .unwrap();
    let config = PoolConfig {
        coordinator: true,
        ..PoolConfig::default()
    };
    let merged = merge_and_filter_tools(&[tool("SendMessage")], &pool, &config);
    assert_eq!(
        merged.names().collect::<Vec<_>>(),
        [
            "Agent",
            "SendMessage",
            "TaskStop",
            "mcp__gh__subscribe_pr_activity"
        ]
    );
    let mut custom = config.clone();
    custom.coordinator_filter.names = vec!["Read".into()];
    custom.coordinator_filter.suffixes.clear();
    assert_eq!(
        merge_and_filter_tools(&[], &pool, &custom)
            .names()
            .collect::<Vec<_>>(),
        ["Read"]
    );
}

#[test]
fn lookup_falls_back_to_base_tools_only_through_an_alias() {
    let base = vec![tool_with("Agent", &["Task"]), tool("Bash")];
    let pool: ToolPool = assemble_tool_pool(
        &base,
        &deny(&["Agent", "Bash"]),
        &[],
        &PoolConfig::default(),
    )
    .unwrap();
    assert!(pool.is_empty());
    assert_eq!(
        find_tool_for_use(pool.tools(), &base, "Task").map(|tool| tool.name()),
        Some("Agent")
    );
    assert!(find_tool_for_use(pool.tools(), &base, "Agent").is_none());
    assert!(find_tool_for_use(pool.tools(), &base, "Bash").is_none());
    let full = assemble_tool_pool(&base, &deny(&[]), &[], &PoolConfig::default()).unwrap();
    assert_eq!(
        find_tool_for_use(full.tools(), &base, "Bash").map(|tool| tool.name()),
        Some("Bash")
    );
}
