//! The erased form of a tool as a registry sees it: facts declared in `#[tool]` reach
//! `ToolMeta`, and `Tool` hooks reach `ToolCall`.

use serde_json::json;
use tool_sdk::prelude::*;
use tool_sdk::{DeclaredFlag, TypedTool};

/// Fetches a page.
#[tool(
    name = "Fetch",
    max_result_size_chars = 1_000,
    open_world,
    idempotent = false,
    title = "Fetch a page"
)]
#[derive(Deserialize, JsonSchema)]
struct Fetch {
    /// The page.
    url: String,
}

#[tool]
impl Tool for Fetch {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.url))
    }

    /// The same page, whatever the case of its scheme and host.
    fn inputs_equivalent(&self, other: &Self) -> bool {
        self.url.eq_ignore_ascii_case(&other.url)
    }
}

/// Reads a local note.
#[tool(
    name = "Note",
    read_only,
    max_result_size_chars = 1_000,
    open_world = false
)]
#[derive(Deserialize, JsonSchema)]
struct Note {
    /// The note's name.
    name: String,
}

#[tool]
impl Tool for Note {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.name))
    }
}

/// Undeclared hints.
#[tool(name = "Plain", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
struct Plain {}

#[tool]
impl Tool for Plain {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(String::new()))
    }
}

#[test]
fn declared_hints_and_title_reach_the_meta() {
    let fetch = TypedTool::of::<Fetch>(None);
    assert_eq!(fetch.meta().open_world, DeclaredFlag::Always);
    assert_eq!(fetch.meta().idempotent, DeclaredFlag::Never);
    assert_eq!(fetch.meta().title.as_deref(), Some("Fetch a page"));
    let note = TypedTool::of::<Note>(None);
    assert_eq!(note.meta().open_world, DeclaredFlag::Never);
    assert_eq!(note.meta().idempotent, DeclaredFlag::Default);
    assert_eq!(note.meta().title, None);
    let plain = TypedTool::of::<Plain>(None);
    assert_eq!(plain.meta().open_world, DeclaredFlag::Default);
}

#[test]
fn is_open_world_agrees_with_the_declaration() {
    let call = |tool: &TypedTool, input| tool.parse_input(&input).unwrap();
    let fetch = TypedTool::of::<Fetch>(None);
    assert!(call(&fetch, json!({"url": "https://a"})).is_open_world());
    let note = TypedTool::of::<Note>(None);
    assert!(!call(&note, json!({"name": "n"})).is_open_world());
    // Undeclared: open world, as the MCP export says (fail-closed).
    let plain = TypedTool::of::<Plain>(None);
    assert!(call(&plain, json!({})).is_open_world());
    let exported = DeclaredFlag::Default.unless_declared_false();
    assert_eq!(call(&plain, json!({})).is_open_world(), exported);
}

#[test]
fn inputs_equivalent_is_reachable_through_tool_call() {
    let fetch = TypedTool::of::<Fetch>(None);
    let first = fetch.parse_input(&json!({"url": "https://A"})).unwrap();
    let same = fetch.parse_input(&json!({"url": "https://a"})).unwrap();
    let other = fetch.parse_input(&json!({"url": "https://b"})).unwrap();
    assert!(first.inputs_equivalent(&*same));
    assert!(!first.inputs_equivalent(&*other));
    // A call of another tool type is never equivalent, nor is a tool's default.
    let note = TypedTool::of::<Note>(None);
    let note_call = note.parse_input(&json!({"name": "https://a"})).unwrap();
    assert!(!first.inputs_equivalent(&*note_call));
    let again = note.parse_input(&json!({"name": "https://a"})).unwrap();
    assert!(!note_call.inputs_equivalent(&*again));
}

#[test]
fn the_schemas_are_built_once_and_kept() {
    let fetch = TypedTool::of::<Fetch>(None);
    let first: *const serde_json::Value = fetch.input_schema();
    assert!(std::ptr::eq(first, fetch.input_schema()));
    assert_eq!(fetch.input_schema()["required"], json!(["url"]));
    // `#[tool]` registrations add the output schema of a `JsonSchema` output.
    let registered = tool_sdk::registration::registrations()
        .find(|registration| registration.name == "Fetch")
        .unwrap()
        .build();
    assert_eq!(registered.output_schema(), Some(&json!({"type": "string"})));
    assert_eq!(fetch.output_schema(), None);
    // Another instance of the type (a pool built again) shares them, and one with input
    // coercion on or another output schema has its own.
    let again = TypedTool::of::<Fetch>(None);
    assert!(std::ptr::eq(first, again.input_schema()));
    let coercing = TypedTool::of::<Fetch>(None).with_input_coercion();
    assert!(!std::ptr::eq(first, coercing.input_schema()));
    assert_eq!(coercing.input_schema(), fetch.input_schema());
    assert!(!std::ptr::eq(
        registered.input_schema(),
        fetch.input_schema()
    ));
    assert_eq!(registered.input_schema(), fetch.input_schema());
}

/// # Move
///
/// Moves a file.
#[tool(name = "Move", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Move {
    /// Where from.
    from: String,
}

#[tool(
    name = "Keyed",
    description = "Described by its key.",
    max_result_size_chars = 1_000
)]
#[derive(Deserialize, JsonSchema)]
struct Keyed {}

/// Hides itself from rustdoc.
#[doc(hidden)]
#[tool(name = "Hidden", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
struct Hidden {}

/// # Computed
#[doc = concat!("Its ", "description ", "is built by a macro.")]
#[tool(name = "Computed", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
struct Computed {}

/// Runs several inputs at once.
#[tool(name = "Batch", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Batch {
    /// The pages.
    fetches: Vec<Fetch>,
    /// The move.
    moved: Move,
    /// The keyed one.
    keyed: Keyed,
    // Undocumented, so that the structs' own descriptions show.
    hidden: Hidden,
    computed: Computed,
}

macro_rules! empty_tool {
    ($($name:ident),*) => {$(
        #[tool]
        impl Tool for $name {
            type Output = String;
            async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
                Ok(ToolResult::new(String::new()))
            }
        }
    )*};
}
empty_tool!(Move, Keyed, Hidden, Computed, Batch);

/// The same structs without `#[tool]` (the root closed as `#[tool]` inputs are).
#[allow(dead_code)]
mod undecorated {
    use tool_sdk::prelude::*;

    /// Fetches a page.
    #[derive(Deserialize, JsonSchema)]
    pub struct Fetch {
        /// The page.
        url: String,
    }

    /// # Move
    ///
    /// Moves a file.
    #[derive(Deserialize, JsonSchema)]
    pub struct Move {
        /// Where from.
        from: String,
    }

    #[derive(Deserialize, JsonSchema)]
    pub struct Keyed {}

    /// Hides itself from rustdoc.
    #[doc(hidden)]
    #[derive(Deserialize, JsonSchema)]
    pub struct Hidden {}

    /// # Computed
    #[doc = concat!("Its ", "description ", "is built by a macro.")]
    #[derive(Deserialize, JsonSchema)]
    pub struct Computed {}

    /// Runs several inputs at once.
    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Batch {
        /// The pages.
        fetches: Vec<Fetch>,
        /// The move.
        moved: Move,
        /// The keyed one.
        keyed: Keyed,
        hidden: Hidden,
        computed: Computed,
    }
}

#[test]
fn a_tool_used_as_a_field_keeps_its_docs_section_out_of_the_schema() {
    let batch = TypedTool::of::<Batch>(None);
    let text = batch.input_schema().to_string();
    assert!(!text.contains("Registered with"), "{text}");
    // Exactly the schema of the same structs without `#[tool]`: doc comment, and a title only
    // where the doc comment starts with one.
    let undecorated = tool_sdk::schema::input_schema_for::<undecorated::Batch>();
    assert_eq!(batch.input_schema(), &undecorated);
    assert_eq!(undecorated["properties"]["moved"]["title"], "Move");
    assert_eq!(undecorated["properties"]["keyed"].get("title"), None);
    assert_eq!(
        undecorated["properties"]["hidden"]["description"],
        "Hides itself from rustdoc."
    );
    assert_eq!(undecorated["properties"]["computed"]["title"], "Computed");
    assert_eq!(
        undecorated["properties"]["computed"]["description"],
        "Its description is built by a macro."
    );
}

/// Field doc comments of every shape, for `#[tool]` to pass on as schemars reads them.
macro_rules! field_docs {
    ($(#[$attr:meta])*) => {
        /// Documents its fields.
        $(#[$attr])*
        #[derive(Deserialize, JsonSchema)]
        #[cfg_attr(all(), schemars(title = "Field docs"))]
        #[allow(dead_code, clippy::empty_docs)] // an empty doc comment is one of the shapes
        pub(crate) struct FieldDocs {
            /// # Heading
            ///
            /// Body text,
            /// on two lines.
            headed: String,
            /// Line one.
            /// Line two.
            plain: u32,
            ///
            empty: bool,
            /// Own doc.
            #[schemars(description = "The author's")]
            described: String,
            /// # Doc title
            #[schemars(title = "The author's title")]
            titled: String,
            #[doc = concat!("Built ", "by a macro.")]
            computed: String,
            /// Renamed.
            #[serde(rename = "renamed_key", default)]
            renamed: Option<String>,
            /// # Flat
            ///
            /// Flattened.
            #[serde(flatten)]
            flat: FlatPart,
            undocumented: String,
            /// Written.
            #[cfg_attr(all(), doc = "Added by a cfg_attr.")]
            conditional_doc: String,
            /// Doc.
            #[cfg_attr(all(), schemars(title = "From a cfg_attr"))]
            conditional_title: String,
            ///  Two spaces.
            #[doc(hidden)]
            spaced: String,
            /** # Block
            comment */
            block: String,
        }
    };
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct FlatPart {
    /// # Inner
    inner: u8,
}

mod field_docs_tool {
    use super::FlatPart;
    use tool_sdk::prelude::*;
    field_docs!(#[tool(name = "FieldDocs", max_result_size_chars = 1_000)]);
    #[tool]
    impl Tool for FieldDocs {
        type Output = String;
        async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
            Ok(ToolResult::new(String::new()))
        }
    }
}

mod field_docs_plain {
    use super::FlatPart;
    use tool_sdk::prelude::*;
    field_docs!();
}

/// `#[tool]` writes each documented field's title and description itself (so schemars
/// evaluates no constant to split the comment); the schema is exactly the one schemars makes
/// from the same struct without `#[tool]`.
#[test]
fn field_doc_comments_give_the_schema_schemars_gives() {
    let tool = TypedTool::of::<field_docs_tool::FieldDocs>(None);
    let plain = tool_sdk::schema::input_schema_for::<field_docs_plain::FieldDocs>();
    assert_eq!(tool.input_schema()["properties"], plain["properties"]);
    // The root's title is dropped from input schemas; that this compiles shows `#[tool]`
    // wrote no second `title` beside the one the struct's `cfg_attr` sets.
    assert_eq!(tool.input_schema()["required"], plain["required"]);
    let properties = &plain["properties"];
    assert_eq!(properties["headed"]["title"], "Heading");
    assert_eq!(
        properties["headed"]["description"],
        "Body text,\non two lines."
    );
    assert_eq!(properties["plain"]["description"], "Line one.\nLine two.");
    assert_eq!(properties["empty"].get("description"), None);
    assert_eq!(properties["described"]["description"], "The author's");
    assert_eq!(properties["titled"]["title"], "The author's title");
    assert_eq!(properties["computed"]["description"], "Built by a macro.");
    assert_eq!(properties["renamed_key"]["description"], "Renamed.");
    assert_eq!(properties["inner"]["title"], "Inner");
    assert_eq!(
        properties["conditional_doc"]["description"],
        "Written.\nAdded by a cfg_attr."
    );
    assert_eq!(properties["conditional_title"]["title"], "From a cfg_attr");
    assert_eq!(properties["spaced"]["description"], "Two spaces.");
    assert_eq!(properties["block"]["title"], "Block");
}

/// What `#[tool]` cannot see through: the alias hides that the input is a string.
type Text = String;

/// Echoes text.
#[tool(name = "Echo", max_result_size_chars = 1_000)]
async fn echo(text: Text) -> Result<String, ToolError> {
    Ok(text)
}

#[test]
fn an_input_that_is_not_an_object_keeps_its_type_and_names_its_input_type() {
    let echo = TypedTool::of::<echo>(None);
    // The schema says what the input is, for registration to refuse the tool.
    assert_eq!(echo.input_schema(), &json!({"type": "string"}));
    assert_eq!(
        tool_sdk::schema::non_object_root(echo.input_schema()).as_deref(),
        Some("string")
    );
    assert_eq!(echo.meta().input_type.as_deref(), Some("string"));
    let fetch = TypedTool::of::<Fetch>(None);
    assert_eq!(
        tool_sdk::schema::non_object_root(fetch.input_schema()),
        None
    );
    assert_eq!(fetch.meta().input_type.as_deref(), Some("Fetch"));
}

/// Plans a batch: its output schema is another tool's input schema.
#[tool(name = "Planner", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
struct Planner {}

#[tool]
impl Tool for Planner {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(String::new()))
    }

    fn output_schema() -> Option<serde_json::Value> {
        Some(TypedTool::of::<Note>(None).input_schema().clone())
    }
}

#[test]
fn a_schema_made_from_another_tools_schema_is_built_without_waiting_on_itself() {
    // Building one type's schemas may build another's; run it on a thread so that a wait on
    // the process-wide schema map fails this test instead of hanging the suite.
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let tool = TypedTool::of::<Planner>(None);
        done.send(tool.output_schema().cloned()).unwrap();
    });
    let output = finished
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("Planner's schemas were never built: the build waited on the schema map");
    assert_eq!(
        output,
        Some(TypedTool::of::<Note>(None).input_schema().clone())
    );
}

#[test]
fn a_typed_tools_input_schema_is_shared_by_every_instance_of_its_type() {
    let first = TypedTool::of::<Note>(None);
    let second = TypedTool::of::<Note>(None);
    let shared = first
        .shared_input_schema()
        .expect("a TypedTool's schema is process-wide");
    assert!(std::ptr::eq(shared, first.input_schema()));
    assert!(std::ptr::eq(shared, second.shared_input_schema().unwrap()));
    // Coercion changes the schema key, so the schema is another one.
    let coercing = TypedTool::of::<Note>(None).with_input_coercion();
    assert!(!std::ptr::eq(
        shared,
        coercing.shared_input_schema().unwrap()
    ));
}

/// What `Opaque` returns: serialisable, with no `JsonSchema`.
#[derive(Debug, Serialize)]
struct Receipt {
    id: u32,
}

/// Returns a receipt.
#[tool(name = "Opaque", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
struct Opaque {}

#[tool]
impl Tool for Opaque {
    type Output = Receipt;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<Receipt>, ToolError> {
        Ok(ToolResult::new(Receipt { id: 7 }))
    }
}

/// A collection of outputs without `JsonSchema` has none either.
#[tool(name = "OpaqueList", max_result_size_chars = 1_000)]
async fn opaque_list() -> Result<Vec<Receipt>, ToolError> {
    Ok(vec![Receipt { id: 1 }])
}

/// The fn form chooses the output schema by its output type too.
#[tool(name = "Counted", max_result_size_chars = 1_000)]
async fn counted() -> Result<Vec<u32>, ToolError> {
    Ok(vec![1, 2])
}

/// The tool `name` as a registry collects it: built from its registration.
fn built(name: &str) -> std::sync::Arc<dyn DynTool> {
    tool_sdk::registration::registrations()
        .find(|registration| registration.name == name)
        .unwrap_or_else(|| panic!("{name} is registered"))
        .build()
}

#[test]
fn a_registration_has_an_output_schema_exactly_when_the_output_has_one() {
    assert_eq!(built("Opaque").output_schema(), None);
    assert_eq!(built("OpaqueList").output_schema(), None);
    assert_eq!(
        built("Counted").output_schema(),
        Some(
            &json!({"type": "array", "items": {"type": "integer", "format": "uint32", "minimum": 0}})
        )
    );
}

/// A tool a host adds itself (`opt_in`: never collected), whose output has a schema.
#[tool(name = "Added", opt_in, max_result_size_chars = 1_000)]
async fn added() -> Result<Vec<u32>, ToolError> {
    Ok(vec![3])
}

#[test]
fn dyn_tool_gives_the_registered_tool_with_its_output_schema_and_site() {
    for (given, name) in [
        (tool_sdk::dyn_tool::<Fetch>(), "Fetch"),
        (tool_sdk::dyn_tool::<added>(), "Added"),
        (tool_sdk::dyn_tool::<Opaque>(), "Opaque"),
    ] {
        let collected = built(name);
        assert_eq!(given.name(), name);
        assert_eq!(given.output_schema(), collected.output_schema(), "{name}");
        assert_eq!(
            given.definition_site(),
            collected.definition_site(),
            "{name}"
        );
        assert!(given.definition_site().is_some(), "{name}");
    }
    assert_eq!(
        tool_sdk::dyn_tool::<Fetch>().output_schema(),
        Some(&json!({"type": "string"}))
    );
    assert_eq!(
        tool_sdk::dyn_tool::<added>().output_schema(),
        Some(
            &json!({"type": "array", "items": {"type": "integer", "format": "uint32", "minimum": 0}})
        )
    );
    assert_eq!(tool_sdk::dyn_tool::<Opaque>().output_schema(), None);
}
