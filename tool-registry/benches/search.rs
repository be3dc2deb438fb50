//! ToolSearch over 10,000 deferred MCP-style tools: the prebuilt index (`SearchState::search`)
//! side by side with a literal port that builds one regex per term per tool per query.
//!
//! Run: `cargo bench -p tool-registry --bench search -- --warm-up-time 1 --measurement-time 3`

#[path = "search_support/naive.rs"]
mod naive;

use std::borrow::Cow;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use naive::{NaiveTool, naive_search};
use serde_json::{Value, json};
use tool_registry::search::SearchState;
use tool_sdk::{DynTool, InputError, InputIssue, MaxResultSize, ToolCall, ToolMeta};

const TOOLS: usize = 10_000;

const SERVERS: &[&str] = &[
    "slack",
    "github",
    "jira",
    "linear",
    "notion",
    "gdrive",
    "gmail",
    "calendar",
    "postgres",
    "redis",
    "sentry",
    "datadog",
    "stripe",
    "shopify",
    "zendesk",
    "hubspot",
    "asana",
    "trello",
    "figma",
    "dropbox",
    "box",
    "s3",
    "bigquery",
    "snowflake",
    "kafka",
    "docker",
    "k8s",
    "aws",
    "gcp",
    "azure",
    "twilio",
    "sendgrid",
    "okta",
    "auth0",
    "pagerduty",
    "opsgenie",
    "confluence",
    "gitlab",
    "bitbucket",
    "vercel",
];
const VERBS: &[&str] = &[
    "send", "list", "get", "create", "update", "delete", "search", "archive", "fetch", "post",
    "read", "write", "sync", "export", "import", "share", "move", "copy", "rename", "merge",
    "close", "open", "assign", "comment", "tag", "watch", "pin", "lock", "query", "run",
];
const NOUNS: &[&str] = &[
    "message",
    "channel",
    "issue",
    "pull_request",
    "branch",
    "commit",
    "file",
    "folder",
    "page",
    "database",
    "table",
    "row",
    "record",
    "event",
    "invoice",
    "customer",
    "order",
    "product",
    "ticket",
    "user",
    "group",
    "team",
    "project",
    "board",
    "card",
    "task",
    "comment",
    "label",
    "milestone",
    "release",
    "deployment",
    "pipeline",
    "job",
    "container",
    "image",
    "volume",
    "bucket",
    "object",
    "key",
    "secret",
    "alert",
    "incident",
    "dashboard",
    "metric",
    "log",
    "trace",
    "span",
    "report",
    "document",
    "sheet",
    "slide",
    "calendar_event",
    "meeting",
    "contact",
    "email",
    "thread",
    "draft",
    "attachment",
    "webhook",
    "token",
    "session",
    "workspace",
    "space",
    "note",
    "reminder",
    "status",
    "schedule",
    "subscription",
    "payment",
    "refund",
    "charge",
    "coupon",
    "cart",
    "shipment",
    "review",
    "rating",
    "survey",
    "form",
    "response",
    "query",
];
const FILLER: &[&str] = &[
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "for",
    "with",
    "from",
    "by",
    "on",
    "this",
    "that",
    "returns",
    "given",
    "optional",
    "list",
    "results",
    "items",
    "when",
    "if",
    "id",
    "name",
    "values",
    "fields",
    "account",
    "current",
    "specified",
    "matching",
    "filter",
    "limit",
    "page",
    "token",
    "cursor",
    "sorted",
    "recent",
    "created",
    "updated",
    "time",
    "range",
    "message",
    "send",
    "slack",
    "user",
    "channel",
    "data",
    "api",
    "request",
    "response",
    "error",
    "status",
    "json",
    "string",
    "number",
    "array",
    "object",
    "include",
    "exclude",
];

/// A tiny deterministic generator (SplitMix64), so every run indexes the same tools.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

struct BenchTool {
    meta: ToolMeta,
    prompt: String,
    schema: Value,
}

impl DynTool for BenchTool {
    fn is_enabled(&self) -> bool {
        true
    }

    fn has_json_schema(&self) -> bool {
        false
    }

    fn shared_input_schema(&self) -> Option<&'static Value> {
        None
    }

    fn output_schema(&self) -> Option<&Value> {
        None
    }

    fn definition_site(&self) -> Option<tool_sdk::DefinitionSite> {
        None
    }

    fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    fn prompt(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.prompt)
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn parse_input(&self, _: &Value) -> Result<Box<dyn ToolCall>, InputError> {
        Err(InputError::new(vec![InputIssue::Other {
            path: String::new(),
            message: "benchmark tools are only searched".to_owned(),
        }]))
    }
}

fn generate() -> Vec<(String, String, String)> {
    let mut rng = Rng(7);
    let mut seen = std::collections::HashSet::new();
    let mut tools = Vec::with_capacity(TOOLS);
    while tools.len() < TOOLS {
        let server = rng.pick(SERVERS);
        let verb = rng.pick(VERBS);
        let noun = rng.pick(NOUNS);
        let name = format!("mcp__{server}__{verb}_{noun}");
        if !seen.insert(name.clone()) {
            continue;
        }
        let target = 200 + (rng.next() % 201) as usize;
        let mut description = format!(
            "{}s a {} in {}.",
            capitalise(verb),
            noun.replace('_', " "),
            capitalise(server)
        );
        while description.len() < target {
            description.push(' ');
            description.push_str(rng.pick(FILLER));
        }
        description.truncate(target);
        description.push('.');
        let hint = format!("{verb} {} in {server}", noun.replace('_', " "));
        tools.push((name, hint, description));
    }
    tools.sort();
    tools
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

fn bench_search(c: &mut Criterion) {
    let generated = generate();
    let pool: Vec<Arc<dyn DynTool>> = generated
        .iter()
        .map(|(name, hint, description)| {
            let mut meta = ToolMeta::new(name.clone(), MaxResultSize::Chars(100_000));
            meta.is_mcp = true;
            meta.search_hint = Some(Cow::Owned(hint.clone()));
            Arc::new(BenchTool {
                meta,
                prompt: description.clone(),
                schema: json!({"type": "object", "properties": {}}),
            }) as Arc<dyn DynTool>
        })
        .collect();
    let naive_tools: Vec<NaiveTool> = generated
        .iter()
        .map(|(name, hint, description)| NaiveTool {
            name: name.clone(),
            hint: Some(hint.clone()),
            description: description.clone(),
        })
        .collect();
    let pool_names: Vec<&str> = generated.iter().map(|(name, _, _)| name.as_str()).collect();
    let state = SearchState::new(pool.clone());

    let select = format!(
        "select:{},{},{},{},{}",
        pool_names[17], pool_names[4_242], pool_names[9_999], pool_names[123], pool_names[5_000]
    );
    let queries = [
        ("two words", "send message".to_owned()),
        ("required", "+slack send".to_owned()),
        ("select 5", select),
    ];
    for (label, query) in &queries {
        let fast = state.search(query, 5).matches;
        let slow = match tool_registry::test_support::select_names(query) {
            Some(names) => naive_select(&names, &pool_names),
            None => naive_search(query, &naive_tools, &pool_names, 5),
        };
        assert_eq!(fast, slow, "{label}: both searches must agree");
        assert!(!fast.is_empty(), "{label}: the query must match something");
        eprintln!("{label}: {query:?} -> {fast:?}");
    }
    let (heap, text) = state.index_size();
    eprintln!(
        "index: {heap} heap bytes for {text} bytes of text ({:.2}x)",
        heap as f64 / text as f64
    );
    assert!(heap < 2 * text, "index memory must stay under 2x the text");

    let mut group = c.benchmark_group("tool_search_10k");
    group.sample_size(10);
    for (label, query) in &queries {
        group.bench_function(format!("index/{label}"), |b| {
            b.iter(|| black_box(state.search(black_box(query), 5)));
        });
        group.bench_function(format!("naive/{label}"), |b| {
            b.iter(|| match tool_registry::test_support::select_names(query) {
                Some(names) => black_box(naive_select(&names, &pool_names)),
                None => black_box(naive_search(query, &naive_tools, &pool_names, 5)),
            });
        });
    }
    group.bench_function("build index (first search)", |b| {
        b.iter(|| {
            let fresh = SearchState::new(pool.clone());
            black_box(fresh.search("send message", 5))
        });
    });
    group.finish();
}

/// The reference's `select:` lookup: a linear, exact, alias-aware find per name.
fn naive_select(names: &[&str], pool: &[&str]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for name in names {
        if let Some(hit) = pool.iter().find(|candidate| *candidate == name)
            && !found.iter().any(|seen| seen == hit)
        {
            found.push((*hit).to_owned());
        }
    }
    found
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_search
}
criterion_main!(benches);
