#!/usr/bin/env bash
# Compile cost of a tool, side by side: generates, in a work dir, the same N tools three ways
#   sdk   `#[tool]` on an input struct plus `#[tool] impl Tool`, as the README shows;
#   fn    the function form: `#[tool(...)] async fn tool_N(input: InputN) -> Result<..>`;
#   rmcp  rmcp 3.11 `#[tool_router]` + `#[tool_handler]` with `Parameters<T>`, as rmcp shows;
#   hand  a minimal hand-written registry: a trait with NAME, a description, `schema()`
#         (`schemars::schema_for!`) and `call(Value)` returning a boxed future through
#         `serde_json::from_value`, a static slice of the tools and a linear lookup;
# each for N = 1, 10 and 100 (input `{a: String, b: Option<u32>, c: bool}` with doc comments,
# the same async body). With every dependency prebuilt, it then runs REPS interleaved rounds of:
#   clean debug build, clean release build (CPU = user + sys seconds, of the tool crate only),
#   and, on the 100-tool debug crates, the rebuild after editing one tool's body.
# It prints the median of each figure, the marginal cost per tool ((T100 - T1) / 99) and the
# number of LLVM functions (`define`s in the debug LLVM IR, one codegen unit) of each crate.
# Last, the first render: a release example of each 100-tool crate that, in a fresh process,
# collects the tools and renders their definitions (name, description, input schema) as one
# JSON text, timed inside the process; run RENDERS times, interleaved, median reported
#   sdk   `ToolRegistry::collect()` + `tool_registry::providers::anthropic::tools_json`, the
#         text written from the tools (tool-registry as a dev-dependency: the library builds
#         above do not build it); also reported, "#[tool] (Value render)": the same
#         definitions through a fresh `SchemaCache` (`render`, then `to_string`), which first
#         captures every tool and copies every schema into a new `serde_json::Value`;
#   rmcp  `Server::new()` + `ToolRouter::list_all()`, serialized;
#   hand  the static slice, each `schema()` called, serialized.
# With --instructions, none of the above: the instructions rustc executes for a clean debug
# build of each 1-tool and 10-tool crate, counted by callgrind (the same tree twice: within
# 0.01%, however busy the machine; times here vary by 10-30% from build to build), and the
# instructions per added tool, (I10 - I1) / 9. It builds in its own target dir (the wrapper
# changes every crate's fingerprint), so the dependencies are built once more; REPS and
# RENDERS do not apply.
# With --edit-instructions, likewise none of the above: the instructions rustc executes for the
# incremental debug rebuild of each 100-tool crate after the edit of tool 50 (the one the timed
# rounds make), under callgrind, in a target dir of its own. Each count starts from the same
# state: the crate's incremental directory removed and the crate built once, then edited and
# rebuilt under callgrind (stable to about 1%, whatever the machine's load).
# Not part of the test suite.
#
# Usage: scripts/compile-cost.sh [--reps R] [--renders N]
#                                [--render-only | --instructions | --edit-instructions]
#                                [--sdk PATH_TO_tool-sdk] [--kinds "sdk fn rmcp hand"]
#                                [--long-bodies] [WORK_DIR]
#   defaults: 3 rounds, 31 renders, this checkout's tool-sdk, all four crates, a fresh temp
#   dir; --render-only skips the compile measurements; --long-bodies gives every tool a body of
#   about 20 lines (the same in every crate) instead of one `format!`.
# Needs: cargo, python3, GNU time (/usr/bin/time); valgrind for --instructions and
# --edit-instructions. Works offline
# once the crates are cached.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
reps=3
renders=31
render_only=0
instructions=0
edit_instructions=0
kinds="sdk fn rmcp hand"
sdk="$repo/tool-sdk"
work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --renders) renders="$2"; shift 2 ;;
    --render-only) render_only=1; shift ;;
    --instructions) instructions=1; shift ;;
    --edit-instructions) edit_instructions=1; shift ;;
    --sdk) sdk="$(cd "$2" && pwd)"; shift 2 ;;
    --kinds) kinds="$2"; shift 2 ;;
    --long-bodies) export LONG_BODIES=1; shift ;;
    *) work="$1"; shift ;;
  esac
done
work="${work:-$(mktemp -d)}"
mkdir -p "$work"
export CARGO_TARGET_DIR="$work/target"
export CARGO_INCREMENTAL_DEFAULT=1
log="$work/times.txt"
: > "$log"

python3 - "$sdk" "$work" "$repo/Cargo.lock" <<'PY'
import os, shutil, sys
sdk, work, lock = sys.argv[1], sys.argv[2], sys.argv[3]

STRUCT = '''/// Tool number {i}: joins its three fields.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct {ty} {{
    /// The first part.
    pub a: String,
    /// An optional count.
    pub b: Option<u32>,
    /// A flag.
    pub c: bool,
}}
'''
BODY = 'format!("{i}:{{}}:{{:?}}:{{}}", input.a, input.b, input.c)'
if os.environ.get("LONG_BODIES") == "1":
    # A body of the size real tools have (about 20 lines of statements), the same in every
    # crate, ending in the format string the edit changes.
    BODY = '''{{
    let mut parts: Vec<String> = Vec::new();
    for (index, word) in input.a.split_whitespace().enumerate() {{
        let upper = word.to_uppercase();
        match index % 3 {{
            0 => parts.push(format!("{{}}-{{}}", upper, index)),
            1 => parts.push(word.chars().rev().collect::<String>()),
            _ => {{
                let count = input.b.unwrap_or(1) as usize;
                parts.push(word.repeat(count.min(4)));
            }}
        }}
    }}
    let joined = if input.c {{ parts.join(",") }} else {{ parts.join(" ") }};
    let summary = match (input.b, input.c) {{
        (Some(n), true) if n > 10 => format!("many:{{n}}"),
        (Some(n), _) => format!("some:{{n}}"),
        (None, true) => "flag".to_owned(),
        (None, false) => "none".to_owned(),
    }};
    format!("{i}:{{}}:{{:?}}:{{}}:{{}}:{{}}", input.a, input.b, input.c, joined, summary)
}}'''

def sdk_tool(i):
    return f'''#[tool(name = "tool_{i}", read_only, concurrency_safe, max_result_size_chars = 100_000)]
{STRUCT.format(i=i, ty=f"Tool{i}")}
#[tool]
impl Tool for Tool{i} {{
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {{
        let input = self;
        Ok(ToolResult::new({BODY.format(i=i)}))
    }}
}}
'''

def fn_tool(i):
    return f'''{STRUCT.format(i=i, ty=f"Input{i}")}
/// Tool number {i}: joins its three fields.
#[tool(name = "tool_{i}", read_only, concurrency_safe, max_result_size_chars = 100_000)]
pub async fn tool_{i}(input: Input{i}) -> Result<String, ToolError> {{
    Ok({BODY.format(i=i)})
}}
'''

def rmcp_struct(i):
    return STRUCT.format(i=i, ty=f"Input{i}")

def rmcp_method(i):
    return f'''    /// Tool number {i}: joins its three fields.
    #[tool(name = "tool_{i}")]
    async fn tool_{i}(&self, Parameters(input): Parameters<Input{i}>) -> String {{
        {BODY.format(i=i)}
    }}
'''

def hand_tool(i):
    return f'''{STRUCT.format(i=i, ty=f"Tool{i}")}
impl HandTool for Tool{i} {{
    const NAME: &'static str = "tool_{i}";
    fn description() -> &'static str {{
        "Tool number {i}: joins its three fields."
    }}
    fn schema() -> Value {{
        serde_json::to_value(schemars::schema_for!(Tool{i})).unwrap_or_default()
    }}
    fn call(input: Value) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send>> {{
        Box::pin(async move {{
            let input: Self = serde_json::from_value(input).map_err(|e| e.to_string())?;
            Ok({BODY.format(i=i)})
        }})
    }}
}}
'''

HAND_HEAD = '''use std::future::Future;
use std::pin::Pin;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// A tool of the minimal registry.
pub trait HandTool {
    /// The tool's name.
    const NAME: &'static str;
    /// What the model is told.
    fn description() -> &'static str;
    /// The input schema.
    fn schema() -> Value;
    /// Parses the input and runs the tool.
    fn call(input: Value) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send>>;
}

/// One registry entry.
pub struct Entry {
    /// The tool's name.
    pub name: &'static str,
    /// What the model is told.
    pub description: fn() -> &'static str,
    /// The input schema.
    pub schema: fn() -> Value,
    /// Parses the input and runs the tool.
    pub call: fn(Value) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send>>,
}

const fn entry<T: HandTool>() -> Entry {
    Entry { name: T::NAME, description: T::description, schema: T::schema, call: T::call }
}

/// Finds a tool by name.
pub fn find(name: &str) -> Option<&'static Entry> {
    TOOLS.iter().find(|entry| entry.name == name)
}

'''

RENDER_HEAD = '''//! Generated by scripts/compile-cost.sh: the first render of every tool's definition in a
//! fresh process; prints the nanoseconds it took and the text's length.
fn main() {
    let start = std::time::Instant::now();
'''
RENDER = {
    "sdk": '''    use {name} as _;
    let registry = tool_registry::ToolRegistry::collect().expect("the tools collect");
    let text = tool_registry::providers::anthropic::tools_json(registry.tools());
''',
    "sdkv": '''    use {name} as _;
    let registry = tool_registry::ToolRegistry::collect().expect("the tools collect");
    let text = serde_json::Value::from(
        tool_registry::providers::ModelApi::Anthropic
            .definitions(
                &tool_registry::export::SchemaCache::new(),
                registry.tools(),
                &Default::default(),
            )
            .expect("renders"),
    )
    .to_string();
''',
    "rmcp": '''    let server = {name}::Server::new();
    let text = serde_json::to_string(&server.tool_router.list_all()).expect("serializes");
''',
    "hand": '''    let tools: Vec<serde_json::Value> = {name}::TOOLS
        .iter()
        .map(|entry| serde_json::json!({{
            "name": entry.name,
            "description": (entry.description)(),
            "input_schema": (entry.schema)(),
        }}))
        .collect();
    let text = serde_json::Value::Array(tools).to_string();
''',
}
RENDER_TAIL = '''    let elapsed = start.elapsed();
    println!("{} {}", elapsed.as_nanos(), text.len());
}
'''

def crate(kind, n):
    name = f"cost_{kind}_{n}"
    root = os.path.join(work, name)
    os.makedirs(os.path.join(root, "src"), exist_ok=True)
    if kind in ("sdk", "fn"):
        deps = f'tool-sdk = {{ path = "{sdk}" }}\n'
        head = "use tool_sdk::prelude::*;\n\n"
        body = "\n".join((sdk_tool if kind == "sdk" else fn_tool)(i) for i in range(n))
    elif kind == "rmcp":
        deps = 'rmcp = { version = "3.11", default-features = false, features = ["server", "macros", "schemars"] }\n'
        head = ("use rmcp::handler::server::router::tool::ToolRouter;\n"
                "use rmcp::handler::server::wrapper::Parameters;\n"
                "use rmcp::{ServerHandler, tool, tool_handler, tool_router};\n"
                "use schemars::JsonSchema;\nuse serde::Deserialize;\n\n")
        body = "\n".join(rmcp_struct(i) for i in range(n))
        body += '''
/// The server holding every tool.
#[derive(Debug, Clone)]
pub struct Server {
    pub tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Server {
    /// A server with every tool.
    pub fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

''' + "\n".join(rmcp_method(i) for i in range(n)) + '''}

#[tool_handler]
impl ServerHandler for Server {}
'''
    else:
        deps = ""
        head = HAND_HEAD
        body = "\n".join(hand_tool(i) for i in range(n))
        body += "\n/// Every tool.\npub static TOOLS: &[Entry] = &[\n"
        body += "".join(f"    entry::<Tool{i}>(),\n" for i in range(n)) + "];\n"
    dev_deps = (f'\n[dev-dependencies]\ntool-registry = {{ path = "{os.path.dirname(sdk)}/tool-registry" }}\n'
                if kind in ("sdk", "fn") else "")
    manifest = f'''[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
{deps}serde = {{ version = "1.0", features = ["derive"] }}
serde_json = "1.0"
schemars = "1.2"
{dev_deps}'''
    open(os.path.join(root, "Cargo.toml"), "w").write(manifest)
    open(os.path.join(root, "src", "lib.rs"), "w").write(
        "//! Generated by scripts/compile-cost.sh.\n#![allow(missing_docs, clippy::all)]\n\n" + head + body)
    if os.path.exists(lock):
        shutil.copy(lock, os.path.join(root, "Cargo.lock"))
    os.makedirs(os.path.join(root, "examples"), exist_ok=True)
    open(os.path.join(root, "examples", "first_render.rs"), "w").write(
        RENDER_HEAD + RENDER["sdk" if kind == "fn" else kind].format(name=name) + RENDER_TAIL)
    if kind == "sdk":
        open(os.path.join(root, "examples", "first_render_value.rs"), "w").write(
            RENDER_HEAD + RENDER["sdkv"].format(name=name) + RENDER_TAIL)

for kind in ("sdk", "fn", "rmcp", "hand"):
    for n in (1, 10, 100):
        crate(kind, n)
PY

cpu() { # runs the command, appends "label cpu" to the log
  local label="$1"; shift
  /usr/bin/time -f "%U %S" -o "$work/time.txt" "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log"; exit 1; }
  awk -v l="$label" '{printf "%s %.2f\n", l, $1+$2}' "$work/time.txt" >> "$log"
}

echo "work dir: $work" >&2
if [ "$instructions" = 1 ] || [ "$edit_instructions" = 1 ]; then
  command -v valgrind >/dev/null || { echo "--instructions needs valgrind" >&2; exit 1; }
  wrap="$work/callgrind-rustc.sh"
  cat > "$wrap" <<'SH'
#!/usr/bin/env bash
# RUSTC_WRAPPER: rustc under callgrind for the crate named in $CG_CRATE, plain rustc otherwise.
prev=""
for arg in "$@"; do
  if [ "$prev" = "--crate-name" ] && [ "$arg" = "$CG_CRATE" ]; then
    exec valgrind --tool=callgrind --callgrind-out-file="$CG_OUT" "$@" 2>>"$CG_OUT.log"
  fi
  prev="$arg"
done
exec "$@"
SH
  chmod +x "$wrap"
  ilog="$work/instructions.txt"
  : > "$ilog"
  export CARGO_TARGET_DIR="$work/target-callgrind" RUSTC_WRAPPER="$wrap"
fi
if [ "$edit_instructions" = 1 ]; then
  export CARGO_TARGET_DIR="$work/target-callgrind-edit"
  for kind in $kinds; do
    name="cost_${kind}_100"
    dir="$work/$name"
    out="$work/$name.edit.callgrind"
    rm -f "$out" "$out.log"
    sed -i "s/format!(\"50-/format!(\"50:/" "$dir/src/lib.rs"
    (cd "$dir" && CG_CRATE=none cargo build -q) || { echo "prebuild of $name failed" >&2; exit 1; }
    rm -rf "$CARGO_TARGET_DIR"/debug/incremental/"$name"-*
    touch "$dir/src/lib.rs"
    (cd "$dir" && CG_CRATE=none cargo build -q) || { echo "build of $name failed" >&2; exit 1; }
    sed -i "s/format!(\"50:/format!(\"50-/" "$dir/src/lib.rs"
    (cd "$dir" && CG_CRATE="$name" CG_OUT="$out" cargo build -q) \
      || { echo "the callgrind rebuild of $name failed; rustc's output: $out.log" >&2; exit 1; }
    sed -i "s/format!(\"50-/format!(\"50:/" "$dir/src/lib.rs"
    count=$(awk '/^summary:/ {print $2}' "$out" 2>/dev/null || true)
    [ -n "$count" ] || { echo "no instruction count in $out; see $out.log" >&2; exit 1; }
    echo "$kind $count" >> "$ilog"
  done
  python3 - "$ilog" <<'PY'
import sys
rows = {k: int(i) for k, i in (line.split() for line in open(sys.argv[1]))}
label = {"sdk": "#[tool]", "fn": "#[tool] async fn", "rmcp": "rmcp #[tool_router]", "hand": "hand-written registry"}
print("instructions of rustc, the debug rebuild of the 100-tool crate after editing tool 50 (callgrind)")
print("| crate | edit one tool | / hand-written | / rmcp |")
print("|---|---|---|---|")
for k in [k for k in ["sdk", "fn", "rmcp", "hand"] if k in rows]:
    hand = f"{rows[k] / rows['hand']:.3f}x" if "hand" in rows else "-"
    rmcp = f"{rows[k] / rows['rmcp']:.3f}x" if "rmcp" in rows else "-"
    print(f"| {label[k]} | {rows[k] / 1e6:,.0f} M | {hand} | {rmcp} |")
PY
  exit 0
fi
if [ "$instructions" = 1 ]; then
  for kind in $kinds; do for n in 1 10; do
    name="cost_${kind}_$n"
    out="$work/$name.callgrind"
    rm -f "$out" "$out.log"
    (cd "$work/$name" && CG_CRATE=none cargo build -q && cargo clean -q -p "$name" \
      && CG_CRATE="$name" CG_OUT="$out" cargo build -q) \
      || { echo "the callgrind build of $name failed; rustc's output: $out.log" >&2; exit 1; }
    count=$(awk '/^summary:/ {print $2}' "$out" 2>/dev/null || true)
    [ -n "$count" ] || { echo "no instruction count in $out; see $out.log" >&2; exit 1; }
    echo "$kind $n $count" >> "$ilog"
  done; done
  python3 - "$ilog" <<'PY'
import sys
rows = {(k, int(n)): int(i) for k, n, i in (line.split() for line in open(sys.argv[1]))}
kinds = [k for k in ["sdk", "fn", "rmcp", "hand"] if (k, 1) in rows]
label = {"sdk": "#[tool]", "fn": "#[tool] async fn", "rmcp": "rmcp #[tool_router]", "hand": "hand-written registry"}
per = {k: (rows[k, 10] - rows[k, 1]) / 9 for k in kinds}
print("instructions of rustc, clean debug build of the tool crate (callgrind)")
print("| crate | 1 tool | 10 tools | per added tool | per added tool / hand-written | 100 tools, extrapolated / hand-written |")
print("|---|---|---|---|---|---|")
for k in kinds:
    if "hand" in per:
        ratio = f"{per[k] / per['hand']:.3f}x"
        at100 = f"{(rows[k, 1] + 99 * per[k]) / (rows['hand', 1] + 99 * per['hand']):.3f}x"
    else:
        ratio = at100 = "- (no hand-written crate in --kinds)"
    print(f"| {label[k]} | {rows[k, 1] / 1e6:,.0f} M | {rows[k, 10] / 1e6:,.0f} M | "
          f"{per[k] / 1e6:.1f} M | {ratio} | {at100} |")
PY
  exit 0
fi
if [ "$render_only" = 0 ]; then
for kind in $kinds; do for n in 1 100; do
  (cd "$work/cost_${kind}_$n" && cargo build -q && cargo build -q --release) \
    || { echo "prebuild of cost_${kind}_$n failed" >&2; exit 1; }
done; done

# The edited tool: number 50's body, its format string changed.
edit() { sed -i "s/format!(\"50:/format!(\"50-/" "$1/src/lib.rs"; }
unedit() { sed -i "s/format!(\"50-/format!(\"50:/" "$1/src/lib.rs"; }

for round in $(seq 1 "$reps"); do
  echo "round $round/$reps" >&2
  for profile in debug release; do
    flag=""; [ "$profile" = release ] && flag="--release"
    for n in 100 1; do for kind in $kinds; do
      dir="$work/cost_${kind}_$n"
      (cd "$dir" && cargo clean -q -p "cost_${kind}_$n" $flag)
      (cd "$dir" && cpu "$kind $profile $n" cargo build -q $flag)
    done; done
  done
  for kind in $kinds; do
    dir="$work/cost_${kind}_100"
    edit "$dir"
    (cd "$dir" && cpu "$kind edit 100" cargo build -q)
    unedit "$dir"
    (cd "$dir" && cargo build -q)
  done
done

# LLVM functions: `define`s in the debug IR of each 100-tool and 1-tool crate, one CGU.
for kind in $kinds; do for n in 1 100; do
  dir="$work/cost_${kind}_$n"
  rm -f "$CARGO_TARGET_DIR"/debug/deps/cost_${kind}_${n}-*.ll
  (cd "$dir" && cargo rustc -q --lib -- --emit=llvm-ir -C codegen-units=1 >/dev/null 2>&1)
  count=$(cat "$CARGO_TARGET_DIR"/debug/deps/cost_${kind}_${n}-*.ll | grep -c '^define')
  echo "$kind llvm $n $count" >> "$log"
done; done
fi

# The first render: each 100-tool crate's example, release, RENDERS fresh processes each.
# The examples share one name in one target dir, so each is copied out once built (and the
# sdk crate's `first_render_value` too).
for kind in $kinds; do
  (cd "$work/cost_${kind}_100" && cargo build -q --release --example first_render) \
    || { echo "build of the first_render example of cost_${kind}_100 failed" >&2; exit 1; }
  cp "$CARGO_TARGET_DIR/release/examples/first_render" "$work/first_render_$kind"
done
render_kinds="$kinds"
if [[ " $kinds " == *" sdk "* ]]; then
  (cd "$work/cost_sdk_100" && cargo build -q --release --example first_render_value) \
    || { echo "build of the first_render_value example of cost_sdk_100 failed" >&2; exit 1; }
  cp "$CARGO_TARGET_DIR/release/examples/first_render_value" "$work/first_render_sdkv"
  render_kinds="$kinds sdkv"
fi
for run in $(seq 1 "$renders"); do for kind in $render_kinds; do
  echo "$kind render 100 $("$work/first_render_$kind" | awk '{print $1 / 1e6}')" >> "$log"
done; done

python3 - "$log" "$reps" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
def med(kind, what, n):
    xs = [float(r[3]) for r in rows if r[:3] == [kind, what, str(n)]]
    return statistics.median(xs) if xs else float("nan")
kinds = [k for k in ["sdk", "fn", "rmcp", "hand"] if any(r[0] == k for r in rows)]
label = {"sdk": "#[tool]", "fn": "#[tool] async fn", "rmcp": "rmcp #[tool_router]", "hand": "hand-written registry",
         "sdkv": "#[tool] (Value render)"}
rendered = kinds + (["sdkv"] if any(r[0] == "sdkv" for r in rows) else [])
compiled = any(r[1] == "debug" for r in rows)
if compiled:
    print(f"median of {sys.argv[2]} interleaved rounds, CPU seconds (user + sys) of the tool crate")
    print("| crate | clean debug (100) | clean release (100) | marginal per tool, debug | marginal per tool, release | edit one tool, debug | LLVM functions (100 / 1) |")
    print("|---|---|---|---|---|---|---|")
    for k in kinds:
        d100, d1 = med(k, "debug", 100), med(k, "debug", 1)
        r100, r1 = med(k, "release", 100), med(k, "release", 1)
        print(f"| {label[k]} | {d100:.2f} s | {r100:.2f} s | {(d100 - d1) / 99 * 1000:.0f} ms | "
              f"{(r100 - r1) / 99 * 1000:.0f} ms | {med(k, 'edit', 100):.2f} s | "
              f"{int(med(k, 'llvm', 100))} / {int(med(k, 'llvm', 1))} |")
print()
print("first render of 100 definitions in a fresh process, median ms: " + ", ".join(
    f"{label[k]} {med(k, 'render', 100):.3f}" for k in rendered))
h = {w: med("hand", w, 100) for w in ("debug", "release", "edit")}
for k in [k for k in kinds if k != "hand"]:
    if not compiled:
        print(f"{label[k]} / hand-written: first render "
              f"{med(k, 'render', 100) / med('hand', 'render', 100):.2f}x")
        continue
    marg = (med(k, "debug", 100) - med(k, "debug", 1)) / (h["debug"] - med("hand", "debug", 1))
    print(f"{label[k]} / hand-written: debug {med(k, 'debug', 100) / h['debug']:.2f}x, "
          f"release {med(k, 'release', 100) / h['release']:.2f}x, marginal {marg:.2f}x, "
          f"edit {med(k, 'edit', 100) / h['edit']:.2f}x, "
          f"first render {med(k, 'render', 100) / med('hand', 'render', 100):.2f}x")
if "sdkv" in rendered:
    ratios = [f"text render / Value render {med('sdk', 'render', 100) / med('sdkv', 'render', 100):.2f}x"]
    if "hand" in kinds:
        ratios.append(f"Value render / hand-written "
                      f"{med('sdkv', 'render', 100) / med('hand', 'render', 100):.2f}x")
    print(f"{label['sdk']}: " + ", ".join(ratios))
PY
