//! Expansion of `#[tool]` on an `impl Tool` block.

use quote::quote;

use super::{check_snapshot, expand};
use crate::expand::tool;

#[test]
fn impl_block_records_the_hooks_it_overrides() {
    let out = expand(
        quote!(),
        quote! {
            impl Tool for Glob {
                type Output = String;
                async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
                    Ok(ToolResult::new(self.pattern))
                }
                fn get_path(&self) -> Option<&std::path::Path> {
                    None
                }
                async fn validate_input(&self, _ctx: &ToolUseContext) -> ValidationResult {
                    ValidationResult::Ok
                }
            }
        },
    );
    check_snapshot("impl_block", &out);
}

/// The methods' code is not parsed: a body `syn` could not read (here, tokens that are no Rust
/// at all) is passed on as written, to be reported by the compiler, and the hooks are still
/// read from the items' names. The expansion is compared as tokens, since it cannot be printed
/// as Rust.
#[test]
fn impl_block_reads_names_not_code() {
    let out = tool(
        quote!(),
        quote! {
            impl Tool for Glob {
                type Output = String;
                async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
                    this is not an expression ; ; at all
                }
                fn get_path(&self) -> Option<&std::path::Path> { None }
                const LIMIT: usize = { 3 };
            }
        },
    )
    .to_string();
    assert!(!out.contains("compile_error"), "{out}");
    assert!(
        out.contains("this is not an expression ; ; at all"),
        "{out}"
    );
    assert!(out.contains("const LIMIT : usize = { 3 }"), "{out}");
    assert!(out.contains(". with (\"get_path\")"), "{out}");
    assert!(out.contains("fn __run"), "{out}");
}

/// The set goes in an `impl ToolImpl` beside the block, with the block's generics, where
/// clause and `cfg`s; the runner goes at the end of the block, once.
#[test]
fn impl_block_gets_its_tool_impl_beside_it() {
    let out = expand(
        quote!(),
        quote! {
            #[cfg(feature = "notes")]
            impl<T: Send + Sync + 'static> Tool for Notes<T> where T: Clone {
                type Output = String;
                async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
                    todo!()
                }
            }
        },
    )
    .to_string();
    assert_eq!(out.matches("fn __run").count(), 1, "{out}");
    assert_eq!(
        out.matches("#[cfg(feature = \"notes\")]").count(),
        2,
        "{out}"
    );
    assert!(
        out.contains("impl<T: Send + Sync + 'static> ::tool_sdk::__private::ToolImpl for Notes<T>"),
        "{out}"
    );
    assert!(out.contains("Overrides::NONE;"), "{out}");
}

#[test]
fn impl_block_with_a_macro_call_counts_every_hook() {
    let out = expand(
        quote!(),
        quote! {
            impl Tool for Glob {
                type Output = String;
                hooks!();
            }
        },
    );
    assert!(out.contains("Overrides::ALL"), "{out}");
}

#[test]
fn impl_block_refuses_arguments_and_other_traits() {
    let out = expand(quote!(name = "Glob"), quote!(impl Tool for Glob {}));
    assert!(out.contains("takes no arguments"), "{out}");
    // The `ToolImpl` all the same (no runner), so that the arguments are the one error shown.
    assert!(out.contains("ToolImpl for Glob"), "{out}");
    assert!(!out.contains("fn __run"), "{out}");
    let out = expand(quote!(), quote!(impl Clone for Glob {}));
    assert!(out.contains("this `impl` is not of `Tool`"), "{out}");
    assert!(!out.contains("ToolImpl"), "{out}");
    let out = expand(quote!(), quote!(impl Glob {}));
    assert!(out.contains("this `impl` is not of `Tool`"), "{out}");
}

#[test]
fn impl_block_reads_raw_names_and_defers_to_later_attribute_macros() {
    let out = expand(
        quote!(),
        quote! {
            impl Tool for Glob {
                type Output = String;
                fn r#user_facing_name(&self) -> Cow<'_, str> {
                    Cow::Borrowed("Glob")
                }
            }
        },
    );
    assert!(out.contains(r#".with("user_facing_name")"#), "{out}");
    // Another attribute macro runs after `#[tool]` and may add methods: every hook counts.
    let out = expand(
        quote!(),
        quote! {
            #[doc = "Glob's behaviour."]
            #[async_trait]
            impl Tool for Glob {}
        },
    );
    assert!(out.contains("Overrides::ALL"), "{out}");
    let out = expand(
        quote!(),
        quote! {
            #[doc = "Glob's behaviour."]
            #[allow(clippy::all)]
            impl Tool for Glob {}
        },
    );
    assert!(out.contains("Overrides::NONE;"), "{out}");
    let out = expand(quote!(), quote!(impl !Tool for Glob {}));
    assert!(out.contains("not on a negative impl"), "{out}");
}
