//! The `#[tool(...)]` arguments, parsed with darling. Checks on a single key happen here;
//! checks across keys and the item live in `valid.rs`.

use darling::util::SpannedValue;
use darling::{FromMeta, ast::NestedMeta};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit};

/// Every key `#[tool]` accepts. Unknown and repeated keys are screened out before darling
/// (see [`ToolArgs::parse`]). Keys that are fixed per tool (`should_defer`, `always_load`,
/// `strict`, `test_only`, `opt_in`, `open_world`, `idempotent`) share [`FlagValue`]'s syntax; `valid.rs` refuses a method for them.
#[derive(Debug, FromMeta)]
pub(crate) struct ToolArgs {
    pub name: Option<SpannedValue<String>>,
    pub description: Option<SpannedValue<String>>,
    pub aliases: Option<SpannedValue<Aliases>>,
    pub search_hint: Option<SpannedValue<String>>,
    pub read_only: Option<FlagValue>,
    pub concurrency_safe: Option<FlagValue>,
    pub destructive: Option<FlagValue>,
    pub max_result_size_chars: Option<SpannedValue<MaxSize>>,
    pub should_defer: Option<FlagValue>,
    pub always_load: Option<FlagValue>,
    pub strict: Option<FlagValue>,
    pub test_only: Option<FlagValue>,
    pub opt_in: Option<FlagValue>,
    pub enabled_if: Option<SpannedValue<syn::Path>>,
    pub open_world: Option<FlagValue>,
    pub idempotent: Option<FlagValue>,
    pub title: Option<SpannedValue<String>>,
    /// `task = "optional"` or `task = "required"`: the call may (must) run as an MCP task.
    pub task: Option<SpannedValue<String>>,
    /// `scopes = "files:read files:write"`: the OAuth scopes a call needs, space-separated.
    pub scopes: Option<SpannedValue<String>>,
    /// `callers = ["direct", "programmatic"]`: who may call the tool.
    pub callers: Option<SpannedValue<CallerList>>,
    /// `example = r#"{"pattern": "*.rs"}"#`, the one key that may repeat: one per example.
    #[darling(multiple)]
    pub example: Vec<syn::LitStr>,
    /// `examples_in_description`: also append the examples to the description sent to APIs
    /// with no slot for them.
    pub examples_in_description: Option<FlagValue>,
}

/// Every key, as written in `#[tool(...)]`; the field names of [`ToolArgs`].
pub(crate) const KEYS: &[&str] = &[
    "name",
    "description",
    "aliases",
    "search_hint",
    "read_only",
    "concurrency_safe",
    "destructive",
    "max_result_size_chars",
    "should_defer",
    "always_load",
    "strict",
    "test_only",
    "opt_in",
    "enabled_if",
    "open_world",
    "idempotent",
    "title",
    "task",
    "scopes",
    "callers",
    "example",
    "examples_in_description",
];

/// Keys that may be given more than once, each occurrence adding one value.
const REPEATABLE: &[&str] = &["example"];

impl ToolArgs {
    /// The arguments, every problem pushed to `errors`; `None` when darling could not build
    /// them.
    ///
    /// Unknown and repeated keys are screened out here, before darling sees the list, so that
    /// they are reported in our wording ("unknown key `read_onyl`; did you mean
    /// `read_only`?"). darling detects both on its own, but its error kind is private, so its
    /// messages could be reworded only by matching their text, which would break silently on
    /// a darling update. darling still parses every value. Screening also lets the checks
    /// across keys run next to these errors.
    pub fn parse(
        args: proc_macro2::TokenStream,
        errors: &mut darling::error::Accumulator,
    ) -> Option<Self> {
        let list =
            errors.handle(NestedMeta::parse_meta_list(args).map_err(darling::Error::from))?;
        let mut seen: Vec<String> = Vec::new();
        let mut known = Vec::new();
        for item in list {
            let NestedMeta::Meta(meta) = &item else {
                errors.push(
                    darling::Error::custom(
                        "expected `key = value` or a bare flag such as `read_only`, not a literal",
                    )
                    .with_span(&item),
                );
                continue;
            };
            let key = path_text(meta.path());
            if !KEYS.contains(&key.as_str()) {
                errors.push(darling::Error::custom(unknown_key(&key)).with_span(meta.path()));
            } else if seen.contains(&key) && !REPEATABLE.contains(&key.as_str()) {
                errors.push(
                    darling::Error::custom(format!("`{key}` is given twice; keep one"))
                        .with_span(meta.path()),
                );
            } else {
                seen.push(key);
                known.push(item);
            }
        }
        errors.handle(Self::from_list(&known))
    }
}

/// `a::b` for a path, as written.
fn path_text(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// "unknown key `read_onyl`; did you mean `read_only`?", or the list of keys when none is
/// close.
fn unknown_key(key: &str) -> String {
    let closest = KEYS
        .iter()
        .map(|known| (strsim::jaro_winkler(key, known), *known))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match closest {
        Some((_, known)) => format!("unknown key `{key}`; did you mean `{known}`?"),
        None => format!(
            "unknown key `{key}`; the keys are {}",
            KEYS.iter()
                .map(|known| format!("`{known}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A flag: a bare word (`read_only`), a bool (`read_only = false`), or a path to a
/// `fn(&self) -> bool` deciding per input (`read_only = Self::is_read_only_command`).
#[derive(Debug, Clone)]
pub(crate) enum FlagValue {
    Const { value: bool, span: Span },
    Method(syn::Path),
}

impl FlagValue {
    pub fn span(&self) -> Span {
        match self {
            Self::Const { span, .. } => *span,
            Self::Method(path) => path.span(),
        }
    }

    pub fn is_const_true(&self) -> bool {
        matches!(self, Self::Const { value: true, .. })
    }
}

impl FromMeta for FlagValue {
    fn from_word() -> darling::Result<Self> {
        Ok(Self::Const {
            value: true,
            span: Span::call_site(),
        })
    }

    fn from_meta(item: &syn::Meta) -> darling::Result<Self> {
        match item {
            syn::Meta::Path(path) => Ok(Self::Const {
                value: true,
                span: path.span(),
            }),
            syn::Meta::NameValue(pair) => Self::from_expr(&pair.value),
            syn::Meta::List(list) => Err(darling::Error::custom(
                "expected a bare flag, `= true`/`= false`, or `= Self::method`, not a list",
            )
            .with_span(list)),
        }
    }

    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Lit(ExprLit {
                lit: Lit::Bool(value),
                ..
            }) => Ok(Self::Const {
                value: value.value,
                span: value.span(),
            }),
            Expr::Path(path) if path.qself.is_none() => Ok(Self::Method(path.path.clone())),
            Expr::Lit(ExprLit {
                lit: Lit::Str(text),
                ..
            }) if matches!(text.value().as_str(), "true" | "false") => Err(darling::Error::custom(
                format!("write the bool without quotes: `{}`", text.value()),
            )
            .with_span(text)),
            other => Err(darling::Error::custom(
                "expected `true`, `false`, or a path to a `fn(&self) -> bool` such as `Self::is_read_only`",
            )
            .with_span(other)),
        }
    }
}

/// `aliases = ["Task", "OldName"]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Aliases(pub Vec<syn::LitStr>);

impl FromMeta for Aliases {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        str_list(
            expr,
            "expected a list of names in brackets, such as `aliases = [\"Task\"]`",
            "each alias must be a string literal, such as \"Task\"",
        )
        .map(Self)
    }
}

/// `callers = ["direct", "programmatic"]`; the names are checked in `valid.rs`.
#[derive(Debug, Clone, Default)]
pub(crate) struct CallerList(pub Vec<syn::LitStr>);

impl FromMeta for CallerList {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        str_list(
            expr,
            "expected a list of callers in brackets, such as `callers = [\"direct\", \"programmatic\"]`",
            "each caller must be a string literal, `\"direct\"` or `\"programmatic\"`",
        )
        .map(Self)
    }
}

/// The string literals of `[..]`, every element that is not one reported with `element`.
fn str_list(expr: &Expr, not_a_list: &str, element: &str) -> darling::Result<Vec<syn::LitStr>> {
    let Expr::Array(array) = expr else {
        return Err(darling::Error::custom(not_a_list).with_span(expr));
    };
    let mut errors = darling::Error::accumulator();
    let mut names = Vec::new();
    for item in &array.elems {
        match item {
            Expr::Lit(ExprLit {
                lit: Lit::Str(name),
                ..
            }) => names.push(name.clone()),
            other => errors.push(darling::Error::custom(element).with_span(other)),
        }
    }
    errors.finish_with(names)
}

/// `max_result_size_chars = 100_000` or `max_result_size_chars = unbounded`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum MaxSize {
    Chars(u64),
    Unbounded,
}

impl FromMeta for MaxSize {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Lit(ExprLit {
                lit: Lit::Int(value),
                ..
            }) => value.base10_parse::<u64>().map(Self::Chars).map_err(|_| {
                let message = if value.base10_digits().bytes().all(|b| b.is_ascii_digit()) {
                    format!(
                        "`max_result_size_chars = {}` is too large: at most {} chars; write `unbounded` to never persist",
                        value.base10_digits(),
                        u64::MAX
                    )
                } else {
                    "expected a whole number of chars".to_owned()
                };
                darling::Error::custom(message).with_span(value)
            }),
            Expr::Path(path) if path.path.is_ident("unbounded") => Ok(Self::Unbounded),
            other => Err(darling::Error::custom(
                "expected a number of chars (`max_result_size_chars = 100_000`) or `unbounded`",
            )
            .with_span(other)),
        }
    }
}
