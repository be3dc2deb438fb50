//! One `tool_use` with arbitrary input for each example tool, run through the orchestrator in a
//! temporary workspace. Every call must end with exactly one `tool_result` for its id, with
//! non-empty content, and never panic. Bash is denied by a rule (its input is still parsed and
//! checked), so the fuzzer never runs shell commands.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tool_examples::workspace::Workspace;
use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionMode, PermissionRuleSource};
use tool_registry::ToolPermissionContext;
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::{Extensions, ToolUseBlock};
use tool_sdk_fuzz::{json_or_string, runtime, split};

struct Fixture {
    _dir: tempfile::TempDir,
    orchestrator: Orchestrator,
    turn: TurnState,
    names: Vec<String>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir_all(dir.path().join("src")).expect("src/");
        std::fs::write(dir.path().join("src/lib.rs"), "fn main() {}\n// TODO\n").expect("a file");
        std::fs::write(
            dir.path().join("notes.ipynb"),
            r#"{"cells":[{"cell_type":"code","id":"a","source":"1","metadata":{},"outputs":[]}],"metadata":{},"nbformat":4,"nbformat_minor":5}"#,
        )
        .expect("a notebook");
        let workspace = Workspace::new(dir.path()).expect("a workspace");
        let tools = tool_examples::tools::all();
        let names = tools.iter().map(|tool| tool.name().to_owned()).collect();
        let mut permissions = ToolPermissionContext::new(PermissionMode::BypassPermissions);
        permissions.add_rule_str(
            PermissionRuleSource::Session,
            PermissionBehavior::Deny,
            "Bash",
            &AliasTable::from_tools(&tools),
        );
        let config = OrchestratorConfig::default().with_result_dir(dir.path().join(".results"));
        let orchestrator = Orchestrator::new(&tools, config).with_permissions(permissions);
        let turn = TurnState {
            extensions: Extensions::new().with(workspace),
            ..TurnState::default()
        };
        Fixture {
            _dir: dir,
            orchestrator,
            turn,
            names,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let fixture = fixture();
    let (selector, payload) = split(data);
    let name = &fixture.names[usize::from(selector) % fixture.names.len()];
    let block = ToolUseBlock {
        id: "toolu_fuzz".to_owned(),
        name: name.clone(),
        input: json_or_string(payload),
    };
    let outcome = runtime().block_on(fixture.orchestrator.run_tool_use(
        fixture.orchestrator.prepare(block),
        &fixture.turn,
        None,
    ));
    assert_eq!(outcome.result.tool_use_id, "toolu_fuzz");
    assert!(
        !tool_registry::test_support::is_empty_content(&outcome.result.content),
        "{name} answered with empty content"
    );
});
