//! Checks that need several keys or the item, run after parsing; every problem is collected
//! and reported at once.

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::ast::{AnnotatedItem, ToolItem};
use crate::attr::{FlagValue, MaxSize, ToolArgs};

/// What expansion needs, every value already checked.
pub(crate) struct Model<'a> {
    pub input: AnnotatedItem<'a>,
    pub name: String,
    pub description: String,
    pub aliases: Vec<String>,
    pub search_hint: Option<String>,
    pub read_only: Option<FlagValue>,
    pub concurrency_safe: Option<FlagValue>,
    pub destructive: Option<FlagValue>,
    pub max_result_size_chars: MaxSize,
    pub should_defer: bool,
    pub always_load: bool,
    pub strict: bool,
    pub test_only: bool,
    pub opt_in: bool,
    pub enabled_if: Option<syn::Path>,
    /// `open_world`: `None` when undeclared.
    pub open_world: Option<bool>,
    /// `idempotent`: `None` when undeclared.
    pub idempotent: Option<bool>,
    /// `title`, trimmed.
    pub title: Option<String>,
    /// `task`: `Some("Optional")` or `Some("Required")` (the `TaskSupport` variant); `None`
    /// when undeclared.
    pub task: Option<&'static str>,
    /// `scopes`, split at whitespace, each a valid OAuth scope token.
    pub scopes: Vec<String>,
    /// `callers`: the `Callers` variant; `None` when undeclared or `["direct"]` (the default).
    pub callers: Option<&'static str>,
    /// `example` values, each checked to be a JSON object, in declaration order.
    pub examples: Vec<syn::LitStr>,
    /// `examples_in_description`: only with at least one `example`.
    pub examples_in_description: bool,
}

/// Longest tool name the Anthropic and OpenAI APIs accept.
const MAX_NAME_LEN: usize = 64;

pub(crate) fn check<'a>(args: ToolArgs, input: AnnotatedItem<'a>) -> darling::Result<Model<'a>> {
    let mut errors = darling::Error::accumulator();
    let name = check_name(&args, &input, &mut errors);
    let description = check_description(&args, &input, &mut errors);
    let max_result_size_chars = check_max_result_size(&args, &mut errors);
    check_search_hint(&args, &mut errors);
    let is_fn = matches!(input.item, ToolItem::Fn(_));
    check_exclusive_flags(&args, is_fn, &mut errors);
    if is_fn {
        check_fn_flags_fixed(&args, &mut errors);
    }
    let aliases = check_aliases(&args, &name, &mut errors);
    check_not_generic(&input, &mut errors);
    let should_defer = fixed_flag(&mut errors, "should_defer", args.should_defer.as_ref());
    let always_load = fixed_flag(&mut errors, "always_load", args.always_load.as_ref());
    let strict = fixed_flag(&mut errors, "strict", args.strict.as_ref());
    let test_only = fixed_flag(&mut errors, "test_only", args.test_only.as_ref());
    let opt_in = fixed_flag(&mut errors, "opt_in", args.opt_in.as_ref());
    let open_world = declared_flag(&mut errors, "open_world", args.open_world.as_ref());
    let idempotent = declared_flag(&mut errors, "idempotent", args.idempotent.as_ref());
    let title = check_title(&args, &mut errors);
    let task = check_task(&args, &mut errors);
    let scopes = check_scopes(&args, &mut errors);
    let callers = check_callers(&args, &mut errors);
    check_examples(&args, &mut errors);
    let examples_in_description = check_examples_in_description(&args, &mut errors);

    errors.finish_with(Model {
        input,
        name,
        description,
        aliases,
        search_hint: args.search_hint.map(|hint| hint.as_str().to_owned()),
        read_only: args.read_only,
        concurrency_safe: args.concurrency_safe,
        destructive: args.destructive,
        max_result_size_chars,
        should_defer,
        always_load,
        strict,
        test_only,
        opt_in,
        open_world,
        idempotent,
        title,
        task,
        scopes,
        callers,
        examples: args.example,
        examples_in_description,
        enabled_if: args.enabled_if.map(|path| (*path).clone()),
    })
}

type Errors = darling::error::Accumulator;

/// `name`: present, and a valid tool name.
fn check_name(args: &ToolArgs, input: &AnnotatedItem<'_>, errors: &mut Errors) -> String {
    match &args.name {
        Some(name) => {
            if let Some(problem) = name_problem("`name`", name.as_str()) {
                errors.push(darling::Error::custom(problem).with_span(&name.span()));
            }
            name.as_str().to_owned()
        }
        None => {
            let example = syn::ext::IdentExt::unraw(input.ident()).to_string();
            errors.push(
                darling::Error::custom(format!(
                    "missing `name`: every tool needs the name the model calls it by, e.g. #[tool(name = \"{example}\", ...)]",
                ))
                .with_span(&Span::call_site()),
            );
            String::new()
        }
    }
}

/// The description: the attribute's, or else the doc comment; never empty.
fn check_description(args: &ToolArgs, input: &AnnotatedItem<'_>, errors: &mut Errors) -> String {
    match &args.description {
        Some(text) if text.trim().is_empty() => {
            errors.push(
                darling::Error::custom(
                    "`description` is empty: say what the tool does and when to use it",
                )
                .with_span(&text.span()),
            );
            String::new()
        }
        Some(text) => text.trim().to_owned(),
        None if input.docs.is_empty() => {
            errors.push(
                darling::Error::custom(format!(
                    "missing description: add a `///` doc comment to `{}` saying what the tool does (the model reads it), or write `description = \"...\"` in #[tool(...)]",
                    input.ident()
                ))
                .with_span(input.ident()),
            );
            String::new()
        }
        None => input.docs.clone(),
    }
}

/// `max_result_size_chars`: present, and not 0.
fn check_max_result_size(args: &ToolArgs, errors: &mut Errors) -> MaxSize {
    match &args.max_result_size_chars {
        Some(value) => {
            if let MaxSize::Chars(0) = **value {
                errors.push(
                    darling::Error::custom(
                        "`max_result_size_chars = 0` would persist every result; give a positive number of chars, or `unbounded` to never persist",
                    )
                    .with_span(&value.span()),
                );
            }
            **value
        }
        None => {
            errors.push(
                darling::Error::custom(
                    "missing `max_result_size_chars`: results longer than this many chars are saved to a file and replaced by a preview; most tools use `max_result_size_chars = 100_000`, or `unbounded` to never persist",
                )
                .with_span(&Span::call_site()),
            );
            MaxSize::Unbounded
        }
    }
}

/// `search_hint`: a 3-10 word phrase.
fn check_search_hint(args: &ToolArgs, errors: &mut Errors) {
    if let Some(hint) = &args.search_hint {
        for problem in search_hint_problems(hint.as_str()) {
            errors.push(darling::Error::custom(problem).with_span(&hint.span()));
        }
    }
}

/// A function-form tool's flags are fixed per tool: its tool type is made by the macro, so there
/// is no `&self` of the user's to decide on per input.
fn check_fn_flags_fixed(args: &ToolArgs, errors: &mut Errors) {
    for (key, flag) in [
        ("read_only", &args.read_only),
        ("concurrency_safe", &args.concurrency_safe),
        ("destructive", &args.destructive),
    ] {
        if let Some(FlagValue::Method(path)) = flag {
            errors.push(
                darling::Error::custom(format!(
                    "a function-form tool's `{key}` is fixed per tool: write `{key}` or `{key} = false`; to decide it per input, put `#[tool(...)]` on the input struct and implement `Tool` for it (the struct form), with `{key} = Self::method`"
                ))
                .with_span(path),
            );
        }
    }
}

/// Flags that cannot both be true: `should_defer` and `always_load`, `read_only` and
/// `destructive`.
fn check_exclusive_flags(args: &ToolArgs, is_fn: bool, errors: &mut Errors) {
    if let (Some(defer), Some(always)) = (&args.should_defer, &args.always_load)
        && defer.is_const_true()
        && always.is_const_true()
    {
        errors.push(
            darling::Error::custom(
                "a tool cannot be both `should_defer` (loaded on demand through ToolSearch) and `always_load` (never deferred): remove one",
            )
            .with_span(&always.span()),
        );
    }

    if let (Some(read_only), Some(destructive)) = (&args.read_only, &args.destructive)
        && read_only.is_const_true()
        && destructive.is_const_true()
    {
        let message = if is_fn {
            "a tool cannot be both `read_only` and `destructive`: remove one"
        } else {
            "a tool cannot be both `read_only` and `destructive`: remove one, or decide per input with `destructive = Self::method`"
        };
        errors.push(darling::Error::custom(message).with_span(&destructive.span()));
    }
}

/// `aliases`: valid names, none repeating the name or each other.
fn check_aliases(args: &ToolArgs, name: &str, errors: &mut Errors) -> Vec<String> {
    let mut aliases = Vec::new();
    if let Some(list) = &args.aliases {
        for alias in &list.0 {
            let text = alias.value();
            if let Some(problem) = name_problem(&format!("alias `{text}`"), &text) {
                errors.push(darling::Error::custom(problem).with_span(alias));
            } else if text == name {
                errors.push(
                    darling::Error::custom("an alias repeats the tool's own `name`; remove it")
                        .with_span(alias),
                );
            } else if aliases.contains(&text) {
                errors.push(
                    darling::Error::custom(format!("alias `{text}` is listed twice; keep one"))
                        .with_span(alias),
                );
            }
            aliases.push(text);
        }
    }
    aliases
}

/// The input is not generic: one tool, one schema.
fn check_not_generic(input: &AnnotatedItem<'_>, errors: &mut Errors) {
    if !input.generics().params.is_empty() {
        errors.push(
            darling::Error::custom(
                "a #[tool] input cannot be generic: each tool has one input schema; make a concrete struct per tool",
            )
            .with_span(&input.generics().params.span()),
        );
    }
}

/// `title`: not empty.
fn check_title(args: &ToolArgs, errors: &mut Errors) -> Option<String> {
    let title = args.title.as_ref()?;
    if title.trim().is_empty() {
        errors.push(
            darling::Error::custom(
                "`title` is empty: give a short display name, e.g. \"Find files\"",
            )
            .with_span(&title.span()),
        );
    }
    Some(title.trim().to_owned())
}

/// `task`: `"optional"` or `"required"`.
fn check_task(args: &ToolArgs, errors: &mut Errors) -> Option<&'static str> {
    let task = args.task.as_ref()?;
    match task.as_str() {
        "optional" => Some("Optional"),
        "required" => Some("Required"),
        "forbidden" => None,
        other => {
            errors.push(
                darling::Error::custom(format!(
                    "`task = \"{other}\"` is not a task mode: use `task = \"optional\"` (a call \
                     still running after a moment becomes a task) or `task = \"required\"` (every \
                     call is a task); leave `task` out for a tool that always answers at once"
                ))
                .with_span(&task.span()),
            );
            None
        }
    }
}

/// `scopes`: OAuth scope tokens (RFC 6749 §3.3: printable ASCII but space, `"` and `\`; a
/// comma, allowed there, is refused here as the likely slip of a comma-separated list),
/// separated by spaces; at least one.
fn check_scopes(args: &ToolArgs, errors: &mut Errors) -> Vec<String> {
    let Some(scopes) = args.scopes.as_ref() else {
        return Vec::new();
    };
    let tokens: Vec<String> = scopes.split_whitespace().map(str::to_owned).collect();
    let bad = tokens.iter().find(|token| {
        !token
            .chars()
            .all(|c| c.is_ascii_graphic() && c != '"' && c != '\\' && c != ',')
    });
    if tokens.is_empty() || bad.is_some() {
        let why = match bad {
            Some(token) if token.contains(',') => {
                format!("`{token}` has a comma, but OAuth scopes are separated by spaces")
            }
            Some(token) => {
                format!("`{token}` is not an OAuth scope (printable ASCII without `\"` or `\\`)")
            }
            None => "no scope is named".to_owned(),
        };
        errors.push(
            darling::Error::custom(format!(
                "`scopes`: {why}; write the scopes a call needs separated by spaces, as an \
                 OAuth scope string: `scopes = \"files:read files:write\"`"
            ))
            .with_span(&scopes.span()),
        );
        return Vec::new();
    }
    tokens
}

/// `callers`: a non-empty list of `"direct"` and `"programmatic"`, each at most once.
fn check_callers(args: &ToolArgs, errors: &mut Errors) -> Option<&'static str> {
    const NAMES: [&str; 2] = ["direct", "programmatic"];
    let callers = args.callers.as_ref()?;
    if callers.0.is_empty() {
        errors.push(
            darling::Error::custom(
                "`callers` is empty: list who may call the tool, `\"direct\"` (the model) \
                 and/or `\"programmatic\"` (code the model runs); leave `callers` out for \
                 the model only",
            )
            .with_span(&callers.span()),
        );
        return None;
    }
    let mut seen: Vec<String> = Vec::new();
    let mut ok = true;
    for caller in &callers.0 {
        let name = caller.value();
        if !NAMES.contains(&name.as_str()) {
            let hint = match name.as_str() {
                "code"
                | "code_execution"
                | "program"
                | "code_execution_20250825"
                | "code_execution_20260120"
                | "code_execution_20260521" => {
                    "; write `\"programmatic\"`: exports name each provider's code runner"
                }
                _ => "",
            };
            errors.push(
                darling::Error::custom(format!(
                    "unknown caller `{name}`: the callers are `\"direct\"` (the model calls \
                     the tool) and `\"programmatic\"` (code the model runs calls it){hint}"
                ))
                .with_span(caller),
            );
            ok = false;
        } else if seen.contains(&name) {
            errors.push(
                darling::Error::custom(format!("caller `{name}` is listed twice; keep one"))
                    .with_span(caller),
            );
            ok = false;
        } else {
            seen.push(name);
        }
    }
    if !ok {
        return None;
    }
    match (
        seen.iter().any(|n| n == "direct"),
        seen.iter().any(|n| n == "programmatic"),
    ) {
        (true, true) => Some("DirectAndProgrammatic"),
        (false, true) => Some("Programmatic"),
        _ => None,
    }
}

/// The value of a key that is fixed per tool: a bare word or a bool, never a method;
/// `false` when absent.
fn fixed_flag(errors: &mut Errors, key: &str, flag: Option<&FlagValue>) -> bool {
    declared_flag(errors, key, flag).unwrap_or(false)
}

/// [`fixed_flag`], keeping whether the key was given at all.
fn declared_flag(errors: &mut Errors, key: &str, flag: Option<&FlagValue>) -> Option<bool> {
    match flag {
        None => None,
        Some(FlagValue::Const { value, .. }) => Some(*value),
        Some(FlagValue::Method(path)) => {
            errors.push(
                darling::Error::custom(format!(
                    "`{key}` is fixed per tool, not decided per input: write `{key}` or `{key} = false`"
                ))
                .with_span(path),
            );
            None
        }
    }
}

/// Why `name` is not a valid tool name, if it is not: `^[A-Za-z0-9_-]{1,64}$`, and not
/// starting with `mcp__` (reserved for MCP tools, SPEC §10). `label` names the value in the
/// message: "`name`", or "alias `Old Name`".
pub(crate) fn name_problem(label: &str, name: &str) -> Option<String> {
    if name.is_empty() {
        return Some(format!(
            "{label} is empty: give the name the model calls the tool by, e.g. \"Glob\""
        ));
    }
    if name.len() > MAX_NAME_LEN {
        return Some(format!(
            "{label} is {} chars long; the model APIs accept at most {MAX_NAME_LEN}",
            name.len()
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        let bad = match bad {
            ' ' => "a space".to_owned(),
            '\t' => "a tab".to_owned(),
            other => format!("`{other}`"),
        };
        return Some(format!(
            "{label} contains {bad}; tool names may use only ASCII letters, digits, `_` and `-`"
        ));
    }
    if name.starts_with("mcp__") {
        return Some(format!(
            "{label} starts with `mcp__`, which is reserved for tools imported from MCP servers; choose another name"
        ));
    }
    None
}

/// Why a search hint is not a 3–10 word phrase without a trailing period: every fault, in
/// that order; empty when it is fine.
pub(crate) fn search_hint_problems(hint: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let words = hint.split_whitespace().count();
    if !(3..=10).contains(&words) {
        problems.push(format!(
            "`search_hint` has {words} word{}; write a 3-10 word capability phrase, e.g. \"find files by name pattern\"",
            if words == 1 { "" } else { "s" }
        ));
    }
    if hint.trim_end().ends_with('.') {
        problems.push(
            "`search_hint` ends with a period; write a phrase, not a sentence: drop the `.`"
                .to_owned(),
        );
    }
    problems
}

/// `example`: each one a JSON object (the tool's input is always an object). Whether it also
/// fits the input schema is a runtime check (`tool_registry::ToolRegistry::check_examples`):
/// the schema does not exist until the input type is compiled.
fn check_examples(args: &ToolArgs, errors: &mut Errors) {
    for example in &args.example {
        if let Some(problem) = example_problem(&example.value()) {
            errors.push(darling::Error::custom(problem).with_span(example));
        }
    }
}

/// `examples_in_description`: fixed per tool, and only next to an `example` (with none there is
/// nothing to append).
fn check_examples_in_description(args: &ToolArgs, errors: &mut Errors) -> bool {
    let key = "examples_in_description";
    let flag = args.examples_in_description.as_ref();
    let value = fixed_flag(errors, key, flag);
    if value && args.example.is_empty() {
        errors.push(
            darling::Error::custom(format!(
                "`{key}` has no examples to append; add `example = r#\"{{...}}\"#` or drop `{key}`"
            ))
            .with_span(&flag.map_or_else(Span::call_site, FlagValue::span)),
        );
    }
    value
}

/// What is wrong with one example's text, and the fix; `None` when it is a JSON object.
pub(crate) fn example_problem(text: &str) -> Option<String> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(_)) => None,
        Ok(other) => Some(format!(
            "`example` must be a JSON object (the tool's whole input), not {}; write it as r#\"{{\"field\": ...}}\"#",
            json_kind(&other)
        )),
        Err(error) => Some(format!(
            "`example` is not valid JSON: {error}; write one JSON object with double-quoted keys and strings, such as r#\"{{\"pattern\": \"*.rs\"}}\"#"
        )),
    }
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "`null`",
        serde_json::Value::Bool(_) => "a bool",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
