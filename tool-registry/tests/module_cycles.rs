//! No module of a workspace library imports, directly or through others, a module that imports
//! it back, and no Rust file of the workspace (sources, tests, benches) reaches 600 lines.
//!
//! The module graph is read from the source text: each file under a crate's `src/` (binaries
//! under `src/bin/` excluded) is a module, `mod name { ... }` blocks are modules of their own,
//! and every `crate::`, `super::` and `self::` path in code (in `use` items and inline alike;
//! comments and string literals are skipped) is an edge to the deepest module the path names.
//! A parent module's `pub use child::Item` is an edge like any other, so a child that uses an
//! item of its parent's `mod.rs` while the parent re-exports the child is a cycle.
//!
//! Run: `cargo test -p tool-registry --test module_cycles`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Cycles known to exist and being removed elsewhere, each a crate and its strongly
/// connected set of modules, sorted, as the test reports it; every other cycle fails. Empty:
/// no crate has one.
const KNOWN_CYCLES: &[(&str, &[&str])] = &[];

/// Files known to reach [`MAX_LINES`] and being split elsewhere; every other long file fails.
/// Empty: none.
const KNOWN_LONG_FILES: &[&str] = &[];

/// The library crates checked, relative to the workspace root.
const CRATES: &[&str] = &["tool-sdk", "tool-sdk-macros", "tool-registry", "examples"];

/// Longest source file allowed, in lines.
const MAX_LINES: usize = 600;

/// The workspace checked: this one, or the one `MODULE_CYCLES_ROOT` names (to check another
/// checkout with the same rules).
fn workspace_root() -> PathBuf {
    if let Some(root) = std::env::var_os("MODULE_CYCLES_ROOT") {
        return PathBuf::from(root);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives in the workspace")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, binaries excluded.
fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("reading {}: {error}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name == "bin") {
                continue;
            }
            source_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file: `src/lib.rs` is `crate`, `src/a/mod.rs` and `src/a.rs` are
/// `crate::a`, `src/a/b.rs` is `crate::a::b`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).expect("under src");
    let mut segments: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    let last = segments.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        segments.push(stem.to_owned());
    }
    let mut path = vec!["crate".to_owned()];
    path.extend(segments);
    path
}

/// `line` without its comment and with string and char literals emptied.
fn code_of(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => break,
            '"' => {
                // Skip to the closing quote, honouring escapes.
                while let Some(inner) = chars.next() {
                    match inner {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
                out.push_str("\"\"");
            }
            '\'' => {
                // A char literal ('x', '\n', '{') or a lifetime ('a): drop a literal only.
                let rest: String = chars.clone().take(4).collect();
                if let Some(end) = rest.find('\'')
                    && end > 0
                {
                    for _ in 0..=end {
                        chars.next();
                    }
                    out.push_str("' '");
                } else {
                    out.push('\'');
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The paths named in the code of one `use` item or expression: `a::{b, c::d}` gives `a::b`
/// and `a::c::d`.
fn expand_use_tree(tree: &str) -> Vec<String> {
    // `a as b` keeps `a`; renames are marked with `~` before whitespace goes.
    let tree: String = tree
        .replace(" as ", "~")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if !tree.contains('{') {
        return vec![tree.split('~').next().unwrap_or_default().to_owned()];
    }
    let open = tree.find('{').expect("checked above");
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (index, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|part| !part.is_empty())
        .flat_map(|part| expand_use_tree(&format!("{prefix}{part}")))
        .collect()
}

/// The `crate::` / `super::` / `self::` paths in a piece of code (outside `use` items).
fn inline_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(found) = code[from..].find(start) {
            let at = from + found;
            from = at + start.len();
            let before = at.checked_sub(1).map(|i| bytes[i] as char);
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let end = code[at..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |length| at + length);
            paths.push(code[at..end].to_owned());
        }
    }
    paths
}

/// The absolute segments of `path`, as seen from module `here`.
fn absolute(here: &[String], path: &str) -> Option<Vec<String>> {
    let mut segments = path.split("::").filter(|s| !s.is_empty());
    let mut resolved: Vec<String> = match segments.next()? {
        "crate" => vec!["crate".to_owned()],
        "self" => here.to_vec(),
        "super" => here[..here.len().checked_sub(1)?].to_vec(),
        _ => return None,
    };
    for segment in segments {
        match segment {
            "super" => {
                resolved.pop()?;
            }
            "self" | "*" => {}
            name => resolved.push(name.to_owned()),
        }
    }
    Some(resolved)
}

struct Graph {
    modules: BTreeSet<Vec<String>>,
    edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
}

/// The names the crate root (`lib.rs`) re-exports with `pub use`, each with the module path it
/// comes from.
fn root_reexports(src: &Path) -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(src.join("lib.rs")).unwrap_or_default();
    let mut out = BTreeMap::new();
    let mut pending: Option<String> = None;
    for line in text.lines() {
        let code = code_of(line);
        let trimmed = code.trim();
        match (&mut pending, trimmed.strip_prefix("pub use ")) {
            (Some(item), _) => item.push_str(trimmed),
            (None, Some(rest)) => pending = Some(rest.to_owned()),
            (None, None) => continue,
        }
        if let Some(item) = pending.take_if(|item| item.contains(';')) {
            for path in expand_use_tree(item.trim_end_matches(';')) {
                let mut segments: Vec<String> = std::iter::once("crate")
                    .chain(path.split("::"))
                    .map(str::to_owned)
                    .collect();
                if let Some(name) = segments.pop() {
                    out.insert(name, segments);
                }
            }
        }
    }
    out
}

/// Reads one crate's module graph.
fn read_crate(src: &Path) -> Graph {
    let mut files = Vec::new();
    source_files(src, &mut files);
    let mut modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(src, f)).collect();
    let mut named: Vec<(Vec<String>, String)> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable source");
        let file_module = module_of(src, file);
        // Inline modules: (name, brace depth at which it closes).
        let mut stack: Vec<(String, i32)> = Vec::new();
        let mut depth = 0i32;
        let mut pending_use: Option<String> = None;
        for line in text.lines() {
            let code = code_of(line);
            let trimmed = code.trim();
            let here: Vec<String> = file_module
                .iter()
                .cloned()
                .chain(stack.iter().map(|(name, _)| name.clone()))
                .collect();
            if let Some(rest) = trimmed
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub(super) ")
                .trim_start_matches("pub ")
                .strip_prefix("mod ")
                && let Some(name) = rest.strip_suffix('{').map(str::trim)
            {
                let mut inline = here.clone();
                inline.push(name.to_owned());
                modules.insert(inline);
                stack.push((name.to_owned(), depth));
            }
            let use_start = trimmed
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub(super) ")
                .trim_start_matches("pub ")
                .strip_prefix("use ");
            match (&mut pending_use, use_start) {
                (Some(item), _) => item.push_str(trimmed),
                (None, Some(rest)) => pending_use = Some(rest.to_owned()),
                (None, None) => {
                    for path in inline_paths(&code) {
                        named.push((here.clone(), path));
                    }
                }
            }
            if let Some(item) = &pending_use
                && item.contains(';')
            {
                let tree = item.trim_end_matches(';').to_owned();
                for path in expand_use_tree(&tree) {
                    named.push((here.clone(), path));
                }
                pending_use = None;
            }
            depth += code.matches('{').count() as i32;
            depth -= code.matches('}').count() as i32;
            while stack.last().is_some_and(|(_, open)| depth <= *open) {
                stack.pop();
            }
        }
    }
    let reexports = root_reexports(src);
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (here, path) in named {
        let Some(mut target) = absolute(&here, &path) else {
            continue;
        };
        // A name the crate root re-exports (`crate::Orchestrator`) is an edge to the module
        // that defines it, not to the root.
        if let Some(first) = target.get(1)
            && !modules.contains(&vec!["crate".to_owned(), first.clone()])
            && let Some(module) = reexports.get(first)
        {
            target = module.clone();
        }
        while !modules.contains(&target) {
            target.pop();
        }
        // An inline module (`mod tests`) using its own file's items is not a file dependency.
        if target != here && !is_inline_child(&here, &target, src) {
            edges.entry(here).or_default().insert(target);
        }
    }
    Graph { modules, edges }
}

/// Every `.rs` file under `dir` (sources, tests, benches, binaries, trybuild cases), except
/// build output.
fn all_rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name == "target") {
                continue;
            }
            all_rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The Rust files of `dirs` with [`MAX_LINES`] lines or more, known ones left out.
fn long_files(root: &Path, dirs: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    for dir in dirs {
        all_rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter(|file| !KNOWN_LONG_FILES.iter().any(|known| file.ends_with(known)))
        .filter_map(|file| {
            let lines = std::fs::read_to_string(&file).ok()?.lines().count();
            (lines >= MAX_LINES).then(|| format!("{} has {lines} lines", file.display()))
        })
        .collect()
}

/// `true` when `from` is an inline module directly inside `target`'s file: it sees the file's
/// private items, so its `super::` paths are not edges between files.
fn is_inline_child(from: &[String], target: &[String], src: &Path) -> bool {
    if from.len() != target.len() + 1 || !from.starts_with(target) {
        return false;
    }
    let mut path = src.to_path_buf();
    for segment in &from[1..] {
        path.push(segment);
    }
    let as_file = path.with_extension("rs");
    !as_file.exists() && !path.join("mod.rs").exists()
}

/// The strongly connected sets of more than one module (Tarjan).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a Graph,
        index: BTreeMap<&'a [String], usize>,
        low: BTreeMap<&'a [String], usize>,
        stack: Vec<&'a [String]>,
        on_stack: BTreeSet<&'a [String]>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a [String]) {
        let number = state.index.len();
        state.index.insert(node, number);
        state.low.insert(node, number);
        state.stack.push(node);
        state.on_stack.insert(node);
        if let Some(targets) = state.graph.edges.get(node) {
            for target in targets {
                let target = target.as_slice();
                if !state.index.contains_key(target) {
                    visit(state, target);
                    let low = state.low[node].min(state.low[target]);
                    state.low.insert(node, low);
                } else if state.on_stack.contains(target) {
                    let low = state.low[node].min(state.index[target]);
                    state.low.insert(node, low);
                }
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(member) = state.stack.pop() {
                state.on_stack.remove(member);
                component.push(member.join("::"));
                if member == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in &graph.modules {
        if !state.index.contains_key(node.as_slice()) {
            visit(&mut state, node);
        }
    }
    state.found
}

#[test]
fn no_module_import_cycles_and_no_long_files() {
    let root = workspace_root();
    let mut problems = long_files(&root, &[CRATES, &["tests"]].concat());
    for krate in CRATES {
        let src = root.join(krate).join("src");
        let graph = read_crate(&src);
        assert!(
            graph.modules.len() > 1,
            "{krate}: found no modules under {}",
            src.display()
        );
        for component in cycles(&graph) {
            let known = KNOWN_CYCLES
                .iter()
                .any(|(name, members)| name == krate && *members == component.as_slice());
            if !known {
                problems.push(format!("{krate}: import cycle among {component:?}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The layers of tool-registry's top-level modules, lowest first: a module imports only from
/// layers below its own (never from its own layer or above), so following a call from the
/// runner down never loops back up. `test_support` (a window for the crate's own tests) and the
/// crate root are outside the layers.
const REGISTRY_LAYERS: &[&[&str]] = &[
    &["messages", "mcp_names", "telemetry", "json_schema"],
    &["permissions", "dynamic"],
    &["pool"],
    &["export", "search", "registry"],
    &["providers", "docs", "examples"],
    &["orchestration"],
    &["mcp"],
];

#[test]
fn tool_registry_imports_point_down_the_layers() {
    let src = workspace_root().join("tool-registry").join("src");
    let graph = read_crate(&src);
    let layer_of = |module: &[String]| -> Option<usize> {
        let top = module.get(1)?;
        REGISTRY_LAYERS
            .iter()
            .position(|layer| layer.contains(&top.as_str()))
    };
    let mut problems = Vec::new();
    for module in &graph.modules {
        let Some(top) = module.get(1) else { continue };
        if top == "test_support" {
            continue;
        }
        if layer_of(module).is_none() {
            problems.push(format!("`{top}` is in no layer of REGISTRY_LAYERS"));
        }
    }
    for (from, targets) in &graph.edges {
        let (Some(here), Some(top)) = (layer_of(from), from.get(1)) else {
            continue;
        };
        for target in targets {
            let (Some(there), Some(target_top)) = (layer_of(target), target.get(1)) else {
                continue;
            };
            if target_top != top && there >= here {
                problems.push(format!(
                    "{} imports {} (layer {there}, not below its own layer {here})",
                    from.join("::"),
                    target.join("::")
                ));
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_reader_sees_use_trees_inline_paths_and_inline_modules() {
    assert_eq!(
        expand_use_tree("super::{a, b::{C, d}, e as f}"),
        ["super::a", "super::b::C", "super::b::d", "super::e"]
    );
    assert_eq!(expand_use_tree("crate::x::Y as Z"), ["crate::x::Y"]);
    assert_eq!(
        inline_paths("let x = crate::a::b(super::c::D, tool_sdk::crate_name);"),
        ["crate::a::b", "super::c::D"]
    );
    assert_eq!(
        code_of(r#"let s = "crate::x"; // super::y"#),
        r#"let s = ""; "#
    );
    assert_eq!(
        code_of("let c = '{'; let l: &'a str;"),
        "let c = ' '; let l: &'a str;"
    );
    let here = vec!["crate".to_owned(), "a".to_owned(), "b".to_owned()];
    assert_eq!(
        absolute(&here, "super::c::D").unwrap(),
        ["crate", "a", "c", "D"]
    );
    assert_eq!(
        absolute(&here, "self::e").unwrap(),
        ["crate", "a", "b", "e"]
    );
    assert_eq!(absolute(&here, "tool_sdk::x"), None);
}
