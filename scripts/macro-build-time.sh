#!/usr/bin/env bash
# Build-time cost of #[tool]: generates a crate with 100 tools (3-field inputs) twice, once with
# #[tool] and once with the equivalent hand-written impls, and reports the CPU time (user + sys,
# seconds) of a clean debug build of each crate with its dependencies prebuilt, and of an
# incremental rebuild after editing one tool. Not part of the test suite.
#
# Usage: scripts/macro-build-time.sh [WORK_DIR]   (default: a fresh temp dir)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d)}"
tools=100
mkdir -p "$work"
export CARGO_TARGET_DIR="$work/target"

python3 - "$repo" "$work" "$tools" <<'PY'
import os, sys
repo, work, n = sys.argv[1], sys.argv[2], int(sys.argv[3])

def manifest(name, extra=""):
    return f'''[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
tool-sdk = {{ path = "{repo}/tool-sdk" }}
serde = {{ version = "1.0", features = ["derive"] }}
schemars = "1.2"
{extra}
'''

def struct(i):
    return f'''/// Tool number {i}: joins its three fields.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Tool{i} {{
    /// The first part.
    pub a: String,
    /// A count.
    pub b: u32,
    /// An optional flag.
    pub c: Option<bool>,
}}
'''

def tool_impl(i):
    return f'''impl Tool for Tool{i} {{
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {{
        Ok(ToolResult::new(format!("{i}:{{}}:{{}}:{{:?}}", self.a, self.b, self.c)))
    }}
}}
'''

def macro_tool(i):
    return f'''#[tool(name = "Tool{i}", search_hint = "join three fields together", read_only, concurrency_safe, max_result_size_chars = 100_000)]
{struct(i)}
{tool_impl(i)}'''

def hand_tool(i):
    return f'''{struct(i)}
impl ToolSpec for Tool{i} {{
    const NAME: &'static str = "Tool{i}";
    const DESCRIPTION: &'static str = "Tool number {i}: joins its three fields.";
    const MAX_RESULT_SIZE_CHARS: MaxResultSize = MaxResultSize::Chars(100_000);
    const SEARCH_HINT: Option<&'static str> = Some("join three fields together");
    const READ_ONLY: DeclaredFlag = DeclaredFlag::Always;
    const CONCURRENCY_SAFE: DeclaredFlag = DeclaredFlag::Always;
    fn is_read_only(&self) -> bool {{
        true
    }}
    fn is_concurrency_safe(&self) -> bool {{
        true
    }}
}}

inventory::submit! {{
    ToolRegistration::of::<Tool{i}>(DefinitionSite {{ file: file!(), line: line!(), module_path: module_path!() }})
}}

{tool_impl(i)}'''

for kind, gen, extra, head in [
    ("with_macro", macro_tool, "", "use tool_sdk::prelude::*;\n\n"),
    ("hand_written", hand_tool, 'inventory = "0.3.25"',
     "use tool_sdk::prelude::*;\nuse tool_sdk::{DeclaredFlag, DefinitionSite, ToolRegistration};\n\n"),
]:
    root = os.path.join(work, kind)
    os.makedirs(os.path.join(root, "src"), exist_ok=True)
    open(os.path.join(root, "Cargo.toml"), "w").write(manifest(f"bench_{kind}", extra))
    body = "//! Generated.\n#![allow(missing_docs)]\n\n" + head + "\n".join(gen(i) for i in range(n))
    open(os.path.join(root, "src", "lib.rs"), "w").write(body)
PY

cpu() { # prints user+sys seconds of the command
  /usr/bin/env time -f "%U %S %e" -o "$work/time.txt" "$@" >/dev/null 2>&1
  awk '{printf "%.2f cpu s (%.2f wall s)", $1+$2, $3}' "$work/time.txt"
}

for kind in hand_written with_macro; do
  (cd "$work/$kind" && cargo build -q 2>/dev/null)  # prebuild dependencies
done
for kind in hand_written with_macro; do
  cd "$work/$kind"
  cargo clean -q -p "bench_$kind"
  echo "$kind clean build:       $(cpu cargo build -q)"
  sed -i 's/format!("50:/format!("50-/' src/lib.rs
  echo "$kind incremental build: $(cpu cargo build -q)"
  sed -i 's/format!("50-/format!("50:/' src/lib.rs
  cargo build -q
done
