//! Expansion snapshots: representative inputs expanded by [`crate::expand::tool`], formatted with
//! prettyplease and compared with the files in `snapshots/`. Run with `UPDATE_SNAPSHOTS=1` to
//! rewrite them after an intended change, then read the diff.

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand::tool;

fn expand(args: TokenStream, item: TokenStream) -> String {
    let file: syn::File = syn::parse2(tool(args, item)).expect("the expansion parses as a file");
    prettyplease::unparse(&file)
}

fn check_snapshot(name: &str, actual: &str) {
    let path = format!("{}/snapshots/{name}.rs", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).expect("write the snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing snapshot {path}; run with UPDATE_SNAPSHOTS=1"));
    assert_eq!(
        actual, expected,
        "expansion of `{name}` changed; run with UPDATE_SNAPSHOTS=1 and review the diff"
    );
}

/// A struct written by a `macro_rules!` with `$vis:vis`: rustc passes the visibility as an
/// invisible group, empty when there is none.
#[test]
fn struct_with_visibility_from_a_declarative_macro() {
    use proc_macro2::{Delimiter, Group, TokenTree};
    for visibility in [quote!(), quote!(pub), quote!(pub(crate))] {
        let mut item = quote! {
            /// Finds files by name.
            #[derive(Deserialize, JsonSchema)]
        };
        item.extend([TokenTree::Group(Group::new(Delimiter::None, visibility))]);
        item.extend(quote!(
            struct Glob {
                pattern: String,
            }
        ));
        let out = tool(
            quote!(name = "Glob", max_result_size_chars = 100),
            item.clone(),
        )
        .to_string();
        assert!(!out.contains("compile_error"), "{item}: {out}");
        assert!(out.contains("DeclaredFacts for Glob"), "{item}: {out}");
    }
}

#[test]
fn struct_with_required_keys_only() {
    let out = expand(
        quote!(name = "Glob", max_result_size_chars = 100_000),
        quote! {
            /// Finds files by name.
            #[derive(Deserialize, JsonSchema)]
            pub struct Glob {
                /// The pattern.
                pub pattern: String,
            }
        },
    );
    check_snapshot("struct_required_keys", &out);
}

#[test]
fn struct_with_every_key() {
    let out = expand(
        quote!(
            name = "Bash",
            aliases = ["Shell"],
            search_hint = "execute shell commands",
            read_only = Self::is_read_only_command,
            concurrency_safe = Self::is_read_only_command,
            destructive = false,
            max_result_size_chars = 30_000,
            should_defer,
            strict,
            enabled_if = crate::bash_enabled,
            test_only,
        ),
        quote! {
            /// Runs a shell command.
            #[derive(Deserialize, JsonSchema)]
            pub struct Bash {
                /// The command.
                pub command: String,
            }
        },
    );
    check_snapshot("struct_every_key", &out);
}

#[test]
fn cfg_gated_struct_gates_every_generated_item() {
    let out = expand(
        quote!(name = "Gated", read_only, max_result_size_chars = unbounded),
        quote! {
            /// Only with the feature.
            #[cfg(feature = "gated")]
            #[derive(Deserialize, JsonSchema)]
            pub struct Gated {}
        },
    );
    check_snapshot("struct_cfg_gated", &out);
}

#[test]
fn fn_form_with_input_and_context() {
    let out = expand(
        quote!(
            name = "Add",
            read_only,
            concurrency_safe,
            max_result_size_chars = 1_000
        ),
        quote! {
            /// Adds two numbers.
            pub async fn add(input: AddArgs, ctx: &ToolUseContext) -> Result<i64, ToolError> {
                Ok(input.a + input.b)
            }
        },
    );
    check_snapshot("fn_input_and_context", &out);
}

#[test]
fn fn_form_without_parameters() {
    let out = expand(
        quote!(name = "Now", max_result_size_chars = 100),
        quote! {
            /// Reports the time.
            async fn now() -> Result<ToolResult<String>, String> {
                Ok(ToolResult::new("noon".to_owned()))
            }
        },
    );
    check_snapshot("fn_no_parameters", &out);
}

/// The function's body is passed on as written, never parsed: the attribute reads the
/// signature only, so a body the macro's parser could not read (here, tokens that are no Rust
/// at all) costs nothing and is left for the compiler to report, where it is.
#[test]
fn fn_form_passes_the_body_on_unparsed() {
    let body = quote!({ this is @ not Rust ; });
    let out = tool(
        quote!(name = "Now", max_result_size_chars = 100),
        quote! {
            /// Reports the time.
            async fn now() -> Result<String, String> #body
        },
    )
    .to_string();
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains(&body.to_string()), "{out}");
    assert!(out.contains("FnTool for now"), "{out}");
}

#[test]
fn errors_keep_the_item_and_report_everything() {
    let out = expand(
        quote!(
            name = "mcp__x",
            search_hint = "x.",
            max_result_size_chars = 0
        ),
        quote! {
            #[derive(Deserialize, JsonSchema)]
            pub struct Broken {
                pub x: String,
            }
        },
    );
    check_snapshot("errors_fallback", &out);
}

fn errors(args: TokenStream) -> Vec<String> {
    let mut errors = darling::Error::accumulator();
    crate::attr::ToolArgs::parse(args, &mut errors);
    match errors.finish() {
        Ok(()) => Vec::new(),
        Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn key_errors_are_collected_with_the_key_named() {
    assert_eq!(
        errors(quote!(
            name = "A",
            name = "B",
            read_onyl,
            max_result_size_chars = "x"
        )),
        [
            "`name` is given twice; keep one",
            "unknown key `read_onyl`; did you mean `read_only`?",
            "expected a number of chars (`max_result_size_chars = 100_000`) or `unbounded` at max_result_size_chars",
        ]
    );
    assert_eq!(
        errors(quote!(read_only = "true")),
        ["write the bool without quotes: `true` at read_only"]
    );
    assert_eq!(
        errors(quote!(max_result_size_chars = 99999999999999999999)),
        [
            "`max_result_size_chars = 99999999999999999999` is too large: at most 18446744073709551615 chars; write `unbounded` to never persist at max_result_size_chars"
        ]
    );
    assert_eq!(
        errors(quote!(colour = "red")),
        [
            "unknown key `colour`; the keys are `name`, `description`, `aliases`, `search_hint`, `read_only`, `concurrency_safe`, `destructive`, `max_result_size_chars`, `should_defer`, `always_load`, `strict`, `test_only`, `opt_in`, `enabled_if`, `open_world`, `idempotent`, `title`, `task`, `scopes`, `callers`, `example`, `examples_in_description`"
        ]
    );
}

#[test]
fn name_and_hint_rules() {
    use crate::valid::{name_problem, search_hint_problems};
    assert_eq!(name_problem("`name`", "Glob"), None);
    assert_eq!(name_problem("`name`", &"a".repeat(64)), None);
    assert_eq!(
        name_problem("`name`", &"a".repeat(65)).unwrap(),
        "`name` is 65 chars long; the model APIs accept at most 64"
    );
    assert_eq!(
        name_problem("`name`", "a b").unwrap(),
        "`name` contains a space; tool names may use only ASCII letters, digits, `_` and `-`"
    );
    assert_eq!(
        name_problem("alias `a.b`", "a.b").unwrap(),
        "alias `a.b` contains `.`; tool names may use only ASCII letters, digits, `_` and `-`"
    );
    assert!(
        name_problem("`name`", "mcp__s__t")
            .unwrap()
            .contains("reserved")
    );
    assert!(search_hint_problems("find files by name").is_empty());
    assert_eq!(
        search_hint_problems("one two three four five six seven eight nine ten eleven"),
        [
            "`search_hint` has 11 words; write a 3-10 word capability phrase, e.g. \"find files by name pattern\""
        ]
    );
    assert_eq!(
        search_hint_problems("find."),
        [
            "`search_hint` has 1 word; write a 3-10 word capability phrase, e.g. \"find files by name pattern\"",
            "`search_hint` ends with a period; write a phrase, not a sentence: drop the `.`",
        ]
    );
}

/// Generated code names the runtime crate only through `paths.rs`, so a renamed or re-exported
/// runtime crate needs one change.
#[test]
fn only_paths_rs_names_the_runtime_crate() {
    let dir = format!("{}/src", env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(&dir).expect("read src") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("");
        // `paths.rs` is the one place; the tests (a folder) compare expansions with the name.
        if name == "paths.rs" || path.is_dir() {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read a source file");
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            assert!(
                !code.contains("::tool_sdk"),
                "{name}:{}: names `::tool_sdk`; go through `paths::Private`",
                number + 1
            );
        }
    }
}

#[test]
fn example_rules() {
    use crate::valid::example_problem;
    assert_eq!(example_problem(r#"{"pattern": "*.rs"}"#), None);
    assert_eq!(example_problem("{}"), None);
    assert_eq!(
        example_problem("[1]").unwrap(),
        "`example` must be a JSON object (the tool's whole input), not an array; write it as r#\"{\"field\": ...}\"#"
    );
    assert_eq!(
        example_problem("{pattern: 1}").unwrap(),
        "`example` is not valid JSON: key must be a string at line 1 column 2; write one JSON object with double-quoted keys and strings, such as r#\"{\"pattern\": \"*.rs\"}\"#"
    );
}

#[test]
fn an_example_may_repeat_but_other_keys_may_not() {
    let out = expand(
        quote!(
            name = "Grep",
            max_result_size_chars = 10,
            example = "[]",
            example = r#"{"pattern": "x"}"#,
            title = "a",
            title = "b"
        ),
        quote! {
            /// Searches.
            struct Grep { pattern: String }
        },
    );
    assert!(out.contains("must be a JSON object"), "{out}");
    assert!(out.contains("`title` is given twice; keep one"), "{out}");
    assert!(!out.contains("`example` is given twice"), "{out}");
}

#[test]
fn the_docs_section_stays_out_of_the_schema_metadata() {
    let expanded = |item: TokenStream| {
        tool(quote!(name = "Glob", max_result_size_chars = 1_000), item)
            .to_string()
            .replace(' ', "")
    };
    // The author's own doc comment only; both keys always (an empty title writes none), so
    // schemars computes nothing over the whole text, section included.
    let plain = expanded(quote! {
        /// Finds files.
        #[derive(Deserialize, JsonSchema)]
        pub struct Glob {}
    });
    assert!(
        plain.contains(r#"#[schemars(title="",description="Findsfiles.")]"#),
        "{plain}"
    );
    let headed = expanded(quote! {
        /// # Glob
        ///
        /// Finds files.
        #[derive(Deserialize, schemars::JsonSchema)]
        pub struct Glob {}
    });
    assert!(
        headed.contains(r#"#[schemars(title="Glob",description="Findsfiles.")]"#),
        "{headed}"
    );
    // Keys the author set are theirs; without a visible `JsonSchema` derive nothing is added.
    let own = expanded(quote! {
        /// Finds files.
        #[derive(Deserialize, JsonSchema)]
        #[schemars(description = "Mine", extend("x" = 1))]
        pub struct Glob {}
    });
    assert_eq!(own.matches("#[schemars(").count(), 2, "{own}");
    assert!(own.contains(r#"#[schemars(title="")]"#), "{own}");
    let underived = expanded(quote! {
        /// Finds files.
        #[derive(Deserialize)]
        pub struct Glob {}
    });
    assert!(!underived.contains("schemars"), "{underived}");
}

#[test]
fn list_form_and_computed_doc_attributes_keep_the_section_out_of_the_schema() {
    let expanded = |item: TokenStream| {
        tool(quote!(name = "Glob", max_result_size_chars = 1_000), item)
            .to_string()
            .replace(' ', "")
    };
    // `#[doc(hidden)]` is skipped, as schemars skips it.
    let hidden = expanded(quote! {
        /// Finds files.
        #[doc(hidden)]
        #[derive(Deserialize, JsonSchema)]
        pub struct Glob {}
    });
    assert!(
        hidden.contains(r#"#[schemars(title="",description="Findsfiles.")]"#),
        "{hidden}"
    );
    // A computed value: split at compile time over `concat!` of the values, in order.
    let computed = expanded(quote! {
        /// # Glob
        #[doc = include_str!("glob.md")]
        #[derive(Deserialize, JsonSchema)]
        pub struct Glob {}
    });
    let split = r##"::tool_sdk::__private::doc_title_and_description(::core::concat!("#Glob","\n",include_str!("glob.md")))"##;
    assert!(
        computed.contains(&format!(
            "#[schemars(title={split}.0,description={split}.1)]"
        )),
        "{computed}"
    );
    let titled = expanded(quote! {
        /// Finds
        #[doc = concat!("files ", "fast.")]
        #[derive(Deserialize, JsonSchema)]
        #[schemars(title = "Mine")]
        pub struct Glob {}
    });
    assert!(titled.contains("#[schemars(description="), "{titled}");
    assert!(!titled.contains("title=::tool_sdk"), "{titled}");
}

/// The messages of the `compile_error!`s in an expansion.
fn fn_form_errors(item: TokenStream) -> Vec<String> {
    let function: syn::ItemFn = syn::parse2(item).expect("an fn");
    match crate::ast::AnnotatedItem::from_fn(&function) {
        Ok(_) => Vec::new(),
        Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn fn_form_inputs_that_are_not_structs_are_refused_with_the_struct_to_write() {
    let errors = fn_form_errors(quote! {
        async fn read_file(path: &str, ctx: &ToolUseContext) -> Result<String, ToolError> {}
    });
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("`&str` is a reference")
            && errors[0].contains("struct ReadFileArgs { path: String }"),
        "{errors:?}"
    );
    let errors = fn_form_errors(quote! {
        async fn sum(numbers: &[i64]) -> Result<i64, ToolError> {}
    });
    assert!(
        errors[0].contains("struct SumArgs { numbers: Vec<i64> }"),
        "{errors:?}"
    );
    for ty in [
        quote!(String),
        quote!(std::vec::Vec<u8>),
        quote!((u8, u8)),
        quote!(Option<Args>),
        quote!(u32),
    ] {
        let errors = fn_form_errors(quote! {
            async fn f(value: #ty) -> Result<i64, ToolError> {}
        });
        assert_eq!(errors.len(), 1, "{ty}: {errors:?}");
    }
    // The context is found by its name, a path type is left to the generated check, and
    // extra parameters get only their own error.
    for item in [
        quote!(
            async fn f(input: Args, ctx: &tool_sdk::ToolUseContext) -> Result<i64, E> {}
        ),
        quote!(
            async fn f(ctx: &ToolUseContext) -> Result<i64, E> {}
        ),
        quote!(
            async fn f(input: my::Value) -> Result<i64, E> {}
        ),
    ] {
        assert_eq!(fn_form_errors(item.clone()), Vec::<String>::new(), "{item}");
    }
    let errors = fn_form_errors(quote!(
        async fn add(a: i64, b: i64) -> Result<i64, E> {}
    ));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("takes one input parameter"),
        "{errors:?}"
    );
}

mod facts;
mod impl_form;
