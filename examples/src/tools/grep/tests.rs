use std::os::unix::fs::symlink;

use serde_json::{Value, json};
use tool_sdk::{DynTool, TypedTool};

use super::*;
use crate::tools::fixture::Fixture;

/// a.rs, b.py, sub/c.rs: "hello" in b.py and sub/c.rs, "HELLO"/"Hello" elsewhere.
fn project() -> Fixture {
    let fx = Fixture::new();
    fx.write("a.rs", "fn main() {\n    println!(\"Hello\");\n}\n");
    fx.write("b.py", "print('hello')\nHELLO = 1\n");
    fx.write("sub/c.rs", "// hello\nlet x = 1;\n");
    fx
}

async fn grep(fx: &Fixture, input: Value) -> String {
    fx.call::<Grep>(input).await.unwrap()
}

#[tokio::test]
async fn files_with_matches_is_the_default() {
    let fx = project();
    let out = grep(&fx, json!({"pattern": "hello"})).await;
    assert_eq!(
        out,
        format!(
            "Found 2 files\n{}\n{}",
            fx.path("b.py"),
            fx.path("sub/c.rs")
        )
    );
}

#[tokio::test]
async fn dash_i_ignores_case() {
    let fx = project();
    let out = grep(&fx, json!({"pattern": "hello", "-i": true})).await;
    assert_eq!(
        out,
        format!(
            "Found 3 files\n{}\n{}\n{}",
            fx.path("a.rs"),
            fx.path("b.py"),
            fx.path("sub/c.rs")
        )
    );
}

#[tokio::test]
async fn content_shows_path_line_and_text() {
    let fx = project();
    let out = grep(&fx, json!({"pattern": "hello", "output_mode": "content"})).await;
    assert_eq!(
        out,
        format!(
            "{}:1:print('hello')\n{}:1:// hello",
            fx.path("b.py"),
            fx.path("sub/c.rs")
        )
    );
    let input = json!({"pattern": "HELLO", "output_mode": "content", "-n": false});
    let out = grep(&fx, input).await;
    assert_eq!(out, format!("{}:HELLO = 1", fx.path("b.py")));
}

#[tokio::test]
async fn context_lines_and_group_breaks() {
    let fx = Fixture::new();
    let text: String = (1..=9).map(|n| format!("l{n}\n")).collect();
    fx.write("f.txt", &text);
    let input = json!({"pattern": "l3|l7", "output_mode": "content", "-C": 1});
    let p = fx.path("f.txt");
    assert_eq!(
        grep(&fx, input).await,
        format!("{p}-2-l2\n{p}:3:l3\n{p}-4-l4\n--\n{p}-6-l6\n{p}:7:l7\n{p}-8-l8")
    );
    let input = json!({"pattern": "l3|l7", "output_mode": "content", "-C": 1, "-A": 0});
    assert_eq!(
        grep(&fx, input).await,
        format!("{p}-2-l2\n{p}:3:l3\n--\n{p}-6-l6\n{p}:7:l7")
    );
    let input = json!({"pattern": "l5", "output_mode": "content", "-B": 2, "-n": false});
    assert_eq!(grep(&fx, input).await, format!("{p}-l3\n{p}-l4\n{p}:l5"));
    // Context is ignored outside content mode.
    let input = json!({"pattern": "l5", "output_mode": "count", "-C": 3});
    assert_eq!(
        grep(&fx, input).await,
        format!("{p}:1\n\nFound 1 total occurrence across 1 file.")
    );
}

#[tokio::test]
async fn context_groups_of_different_files_are_separated() {
    let fx = Fixture::new();
    fx.write("a.txt", "x\nmatch\n");
    fx.write("b.txt", "match\ny\n");
    let input = json!({"pattern": "match", "output_mode": "content", "-C": 1});
    let (a, b) = (fx.path("a.txt"), fx.path("b.txt"));
    assert_eq!(
        grep(&fx, input).await,
        format!("{a}-1-x\n{a}:2:match\n--\n{b}:1:match\n{b}-2-y")
    );
}

#[tokio::test]
async fn count_lists_matching_lines_per_file_and_a_total() {
    let fx = project();
    let input = json!({"pattern": "l", "output_mode": "count"});
    assert_eq!(
        grep(&fx, input).await,
        format!(
            "{}:1\n{}:1\n{}:2\n\nFound 4 total occurrences across 3 files.",
            fx.path("a.rs"),
            fx.path("b.py"),
            fx.path("sub/c.rs")
        )
    );
}

#[tokio::test]
async fn glob_and_type_filter_files() {
    let fx = project();
    let input = json!({"pattern": "(?i)hello", "glob": "*.py"});
    assert_eq!(
        grep(&fx, input).await,
        format!("Found 1 file\n{}", fx.path("b.py"))
    );
    let input = json!({"pattern": "(?i)hello", "glob": "*.{py,txt} sub/*.rs"});
    assert_eq!(
        grep(&fx, input).await,
        format!(
            "Found 2 files\n{}\n{}",
            fx.path("b.py"),
            fx.path("sub/c.rs")
        )
    );
    let input = json!({"pattern": "(?i)hello", "type": "rust"});
    assert_eq!(
        grep(&fx, input).await,
        format!(
            "Found 2 files\n{}\n{}",
            fx.path("a.rs"),
            fx.path("sub/c.rs")
        )
    );
}

#[tokio::test]
async fn offset_then_head_limit() {
    let fx = project();
    let input = json!({"pattern": "(?i)hello", "offset": 1, "head_limit": 1});
    assert_eq!(
        grep(&fx, input).await,
        format!(
            "Found 1 file\n{}\n\n[Showing results with pagination = limit: 1, offset: 1]",
            fx.path("b.py")
        )
    );
    let input = json!({"pattern": "l", "output_mode": "content", "head_limit": 2});
    assert_eq!(
        grep(&fx, input).await,
        format!(
            "{a}:2:    println!(\"Hello\");\n{b}:1:print('hello')\n\n\
             [Showing results with pagination = limit: 2, offset: 0]",
            a = fx.path("a.rs"),
            b = fx.path("b.py")
        )
    );
    // Everything fits: no pagination note.
    let input = json!({"pattern": "HELLO", "head_limit": 5});
    assert_eq!(
        grep(&fx, input).await,
        format!("Found 1 file\n{}", fx.path("b.py"))
    );
}

#[tokio::test]
async fn no_match_texts() {
    let fx = project();
    assert_eq!(
        grep(&fx, json!({"pattern": "absent"})).await,
        "No files found"
    );
    let content = json!({"pattern": "absent", "output_mode": "content"});
    assert_eq!(grep(&fx, content).await, "No matches found");
    let count = json!({"pattern": "absent", "output_mode": "count"});
    assert_eq!(grep(&fx, count).await, "No matches found");
}

#[tokio::test]
async fn multiline_matches_span_lines() {
    let fx = project();
    let pattern = r"main\(\) \{\s*println";
    let single = json!({"pattern": pattern, "output_mode": "content"});
    assert_eq!(grep(&fx, single).await, "No matches found");
    let multi = json!({"pattern": pattern, "output_mode": "content", "multiline": true});
    let a = fx.path("a.rs");
    assert_eq!(
        grep(&fx, multi).await,
        format!("{a}:1:fn main() {{\n{a}:2:    println!(\"Hello\");")
    );
}

#[tokio::test]
async fn a_file_path_searches_that_file() {
    let fx = project();
    let input = json!({"pattern": "1", "path": "sub/c.rs", "output_mode": "content"});
    assert_eq!(
        grep(&fx, input).await,
        format!("{}:2:let x = 1;", fx.path("sub/c.rs"))
    );
}

#[tokio::test]
async fn ignored_binary_and_outside_symlinked_files_are_skipped() {
    let fx = project();
    fx.write(".gitignore", "ignored.txt\n");
    fx.write("ignored.txt", "hello");
    fx.write(".hidden", "hello");
    fx.write("blob.bin", "hello\0\0");
    let outside = tempfile::TempDir::new().unwrap();
    fs::write(outside.path().join("secret.txt"), "hello").unwrap();
    symlink(
        outside.path().join("secret.txt"),
        fx.root().join("link.txt"),
    )
    .unwrap();
    symlink(outside.path(), fx.root().join("linkdir")).unwrap();
    let out = grep(&fx, json!({"pattern": "hello"})).await;
    assert_eq!(
        out,
        format!(
            "Found 2 files\n{}\n{}",
            fx.path("b.py"),
            fx.path("sub/c.rs")
        )
    );
}

#[tokio::test]
async fn long_lines_are_omitted() {
    let fx = Fixture::new();
    fx.write("min.js", &format!("{}\nshort x\n", "x".repeat(600)));
    let input = json!({"pattern": "x", "output_mode": "content"});
    let p = fx.path("min.js");
    assert_eq!(
        grep(&fx, input).await,
        format!("{p}:1:[Omitted long line with 600 matches]\n{p}:2:short x")
    );
}

#[tokio::test]
async fn input_errors() {
    let fx = project();
    let bad = fx.call::<Grep>(json!({"pattern": "a("})).await.unwrap_err();
    assert!(bad.starts_with("Invalid regular expression a(: "), "{bad}");
    let newline = fx
        .call::<Grep>(json!({"pattern": "a\\nb"}))
        .await
        .unwrap_err();
    assert!(
        newline.ends_with("\nTo match across lines, set multiline: true."),
        "{newline}"
    );
    let kind = fx
        .call::<Grep>(json!({"pattern": "a", "type": "nope"}))
        .await;
    assert_eq!(
        kind.unwrap_err(),
        "Unknown file type \"nope\": use a ripgrep type name such as js, py, rust, go or java."
    );
    let missing = fx
        .call::<Grep>(json!({"pattern": "a", "path": "gone"}))
        .await;
    assert_eq!(
        missing.unwrap_err(),
        format!("Path does not exist: {}", fx.path("gone"))
    );
    let outside = fx.call::<Grep>(json!({"pattern": "a", "path": "/"})).await;
    assert_eq!(
        outside.unwrap_err(),
        format!(
            "Path / is outside the workspace root {}; only files under the root can be \
             accessed.",
            fx.root().display()
        )
    );
}

#[tokio::test]
async fn a_cancelled_call_stops() {
    let fx = project();
    fx.abort.cancel();
    let out = fx.call::<Grep>(json!({"pattern": "hello"})).await;
    assert_eq!(
        out.unwrap_err(),
        "[Request interrupted by user for tool use]"
    );
}

#[test]
fn schema_has_claude_codes_fields() {
    let tool = TypedTool::of::<Grep>(None);
    let schema = tool.input_schema();
    let keys = crate::tools::fixture::sorted_property_names(schema);
    assert_eq!(
        keys,
        [
            "-A",
            "-B",
            "-C",
            "-i",
            "-n",
            "glob",
            "head_limit",
            "multiline",
            "offset",
            "output_mode",
            "path",
            "pattern",
            "type"
        ]
    );
    assert_eq!(schema["required"], json!(["pattern"]));
    assert_eq!(
        schema["properties"]["output_mode"]["enum"],
        json!(["content", "files_with_matches", "count"])
    );
    let call = tool
        .parse_input(&json!({"pattern": "a", "-i": true}))
        .unwrap();
    assert!(call.is_read_only() && call.is_concurrency_safe());
}
