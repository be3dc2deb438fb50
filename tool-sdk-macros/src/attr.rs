//! The `#[tool(...)]` arguments, parsed with darling. Checks on a single key happen here;
//! checks across keys and the item live in `valid.rs`.

use darling::util::SpannedValue;
use darling::{FromMeta, ast::NestedMeta};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit};

/// Every key `#[tool]` accepts. darling reports unknown keys (with a did-you-mean) and
/// repeated keys on its own. Keys that are fixed per tool (`should_defer`, `always_load`,
/// `strict`, `test_only`) share [`FlagValue`]'s syntax; `valid.rs` refuses a method for them.
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
    pub enabled_if: Option<SpannedValue<syn::Path>>,
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
    "enabled_if",
];

impl ToolArgs {
    pub fn parse(args: proc_macro2::TokenStream) -> darling::Result<Self> {
        let list = NestedMeta::parse_meta_list(args)?;
        Self::from_list(&list)
    }

    /// The arguments without unknown keys, so the checks across keys can still run and report
    /// their errors next to darling's "unknown field" ones. `None` when even that fails.
    pub fn parse_known(args: proc_macro2::TokenStream) -> Option<Self> {
        let list = NestedMeta::parse_meta_list(args).ok()?;
        let known: Vec<NestedMeta> = list
            .into_iter()
            .filter(|item| match item {
                NestedMeta::Meta(meta) => KEYS.iter().any(|key| meta.path().is_ident(key)),
                _ => false,
            })
            .collect();
        Self::from_list(&known).ok()
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
        let Expr::Array(array) = expr else {
            return Err(darling::Error::custom(
                "expected a list of names in brackets, such as `aliases = [\"Task\"]`",
            )
            .with_span(expr));
        };
        let mut errors = darling::Error::accumulator();
        let mut names = Vec::new();
        for element in &array.elems {
            match element {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(name),
                    ..
                }) => names.push(name.clone()),
                other => errors.push(
                    darling::Error::custom("each alias must be a string literal, such as \"Task\"")
                        .with_span(other),
                ),
            }
        }
        errors.finish_with(Self(names))
    }
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
                darling::Error::custom("expected a whole number of chars").with_span(value)
            }),
            Expr::Path(path) if path.path.is_ident("unbounded") => Ok(Self::Unbounded),
            other => Err(darling::Error::custom(
                "expected a number of chars (`max_result_size_chars = 100_000`) or `unbounded`",
            )
            .with_span(other)),
        }
    }
}
