//! The optional facts: each declared one becomes a field of the tool's `Facts` constant and a
//! row of its docs section; an undeclared one adds nothing.

use proc_macro2::TokenStream;
use quote::quote;

use super::expand;

#[test]
fn declared_hints_and_title_become_facts() {
    let out = expand(
        quote!(
            name = "Fetch",
            max_result_size_chars = 10,
            open_world = false,
            idempotent,
            title = "Fetch a page"
        ),
        quote! {
            /// Fetches.
            struct Fetch { url: String }
        },
    );
    assert!(
        out.contains("open_world: ::tool_sdk::__private::DeclaredFlag::Never,"),
        "{out}"
    );
    assert!(
        out.contains("idempotent: ::tool_sdk::__private::DeclaredFlag::Always,"),
        "{out}"
    );
    assert!(
        out.contains("title: ::tool_sdk::__private::Option::Some("),
        "{out}"
    );
    assert!(out.contains("\"Fetch a page\""), "{out}");
    let refused = expand(
        quote!(
            name = "Fetch",
            max_result_size_chars = 10,
            open_world = Self::remote
        ),
        quote! {
            /// Fetches.
            struct Fetch { url: String }
        },
    );
    assert!(
        refused.contains("`open_world` is fixed per tool"),
        "{refused}"
    );
}

#[test]
fn task_mode_becomes_a_fact_and_a_docs_row() {
    let out = expand(
        quote!(
            name = "Build",
            max_result_size_chars = 10,
            task = "required"
        ),
        quote! {
            /// Builds.
            struct Build { target: String }
        },
    );
    assert!(
        out.contains("task: ::tool_sdk::__private::TaskSupport::Required,"),
        "{out}"
    );
    assert!(out.contains("runs as a task | always"), "{out}");
    let forbidden = expand(
        quote!(
            name = "Build",
            max_result_size_chars = 10,
            task = "forbidden"
        ),
        quote! {
            /// Builds.
            struct Build { target: String }
        },
    );
    assert!(!forbidden.contains("task:"), "{forbidden}");
}

#[test]
fn callers_become_a_fact_and_a_docs_row_and_the_default_adds_nothing() {
    let tool = |callers: TokenStream| {
        expand(
            quote!(name = "Query", max_result_size_chars = 10, callers = #callers),
            quote! {
                /// Queries.
                struct Query { sql: String }
            },
        )
    };
    let out = tool(quote!(["programmatic", "direct"]));
    assert!(
        out.contains("callers: ::tool_sdk::__private::Callers::DirectAndProgrammatic,"),
        "{out}"
    );
    assert!(
        out.contains("| callers | the model and code it runs"),
        "{out}"
    );
    let direct = tool(quote!(["direct"]));
    assert!(
        !direct.contains("callers:") && !direct.contains("| callers"),
        "{direct}"
    );
    let unknown = tool(quote!(["direct", "code"]));
    assert!(unknown.contains("unknown caller `code`"), "{unknown}");
}

#[test]
fn examples_become_a_fact_and_a_docs_block() {
    let out = expand(
        quote!(
            name = "Grep",
            max_result_size_chars = 10,
            example = r#"{"pattern": "fn main"}"#,
            example = r#"{"pattern": "TODO", "glob": "*.rs"}"#
        ),
        quote! {
            /// Searches.
            struct Grep { pattern: String }
        },
    );
    assert!(
        out.contains(
            r##"examples: &[
            r#"{"pattern": "fn main"}"#,
            r#"{"pattern": "TODO", "glob": "*.rs"}"#,
        ],"##
        ),
        "{out}"
    );
    assert!(
        out.contains(
            r#"\nExample inputs (exported as Anthropic `input_examples`):\n\n```json\n{\"pattern\": \"fn main\"}\n```\n\n```json\n{\"pattern\": \"TODO\", \"glob\": \"*.rs\"}\n```""#
        ),
        "{out}"
    );
    let none = expand(
        quote!(name = "Grep", max_result_size_chars = 10),
        quote! {
            /// Searches.
            struct Grep { pattern: String }
        },
    );
    assert!(!none.contains("examples:"), "{none}");
    assert!(!none.contains("input_examples"), "{none}");
}
