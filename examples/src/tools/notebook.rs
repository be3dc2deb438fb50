//! [`NotebookEdit`]: replace, insert or delete one cell of a Jupyter notebook (`.ipynb`),
//! keeping the rest of the notebook JSON as it was (key order, metadata, other cells).

use std::hash::{BuildHasher, Hasher};
use std::path::Path;

use serde::Serialize as _;
use serde_json::{Map, Value, json};
use tool_sdk::prelude::*;

use super::{io_error, missing_file, read_text, run_blocking};
use crate::file_state::write_atomically;
use crate::workspace::Workspace;

/// A cell's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    /// Source code run by the kernel.
    Code,
    /// Markdown text.
    Markdown,
}

impl CellType {
    fn as_str(self) -> &'static str {
        match self {
            Self::Code => "code",
            Self::Markdown => "markdown",
        }
    }
}

/// What to do with the cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EditMode {
    /// Replace the cell's source.
    #[default]
    Replace,
    /// Insert a new cell after the given one (or first).
    Insert,
    /// Delete the cell.
    Delete,
}

/// Completely replaces the contents of a specific cell in a Jupyter notebook (.ipynb file)
/// with new source, inserts a new cell, or deletes one.
///
/// - notebook_path should be an absolute path (a relative one is taken relative to the
///   workspace root); the notebook must have been read with the Read tool first.
/// - cell_id is the cell's `id`, or `cell-N` for the N-th cell (0-based) in notebooks whose
///   cells have no ids.
/// - edit_mode=insert adds a new cell after cell_id (at the start when cell_id is omitted)
///   and needs cell_type; edit_mode=delete removes the cell.
/// - Replacing a code cell clears its outputs and execution count.
#[tool(
    name = "NotebookEdit",
    search_hint = "edit Jupyter notebook cells (.ipynb)",
    max_result_size_chars = 100_000
)]
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct NotebookEdit {
    /// The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)
    pub notebook_path: String,
    /// The ID of the cell to edit. When inserting a new cell, the new cell will be inserted
    /// after the cell with this ID, or at the beginning if not specified.
    pub cell_id: Option<String>,
    /// The new source for the cell
    pub new_source: String,
    /// The type of the cell (code or markdown). If not specified, it defaults to the current
    /// cell type. If using edit_mode=insert, this is required.
    #[serde(default)]
    #[schemars(schema_with = "cell_type_schema")]
    pub cell_type: Option<CellType>,
    /// The type of edit to make (replace, insert, delete). Defaults to replace.
    #[serde(default)]
    #[schemars(schema_with = "edit_mode_schema")]
    pub edit_mode: Option<EditMode>,
}

/// `cell_type` as the model is shown it: a plain string enum (the variants' docs are for
/// Rust readers, not a `oneOf`).
fn cell_type_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "string", "enum": ["code", "markdown"]})
}

/// `edit_mode` as a plain string enum.
fn edit_mode_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "string", "enum": ["replace", "insert", "delete"]})
}

#[tool]
impl Tool for NotebookEdit {
    type Output = String;

    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let workspace = Workspace::from_context(ctx)?;
        let path = workspace.resolve(&self.notebook_path)?;
        if path.extension().is_none_or(|ext| ext != "ipynb") {
            return Err(ToolError::new(format!(
                "{} is not a Jupyter notebook (.ipynb file); use the Edit tool for other files.",
                path.display()
            )));
        }
        if self.edit_mode == Some(EditMode::Insert) && self.cell_type.is_none() {
            return Err(ToolError::new(
                "cell_type is required when edit_mode is insert: give \"code\" or \"markdown\".",
            ));
        }
        if !path.exists() {
            return Err(missing_file(&path));
        }
        workspace.reads().check_writable(&path)?;
        if ctx.is_aborted() {
            return Err(ToolError::aborted(""));
        }
        let target = path.clone();
        let opener = workspace.clone();
        let text = run_blocking(move || self.apply(&opener, &target)).await?;
        workspace.reads().record(&path);
        Ok(ToolResult::new(text))
    }
}

impl NotebookEdit {
    fn apply(&self, workspace: &Workspace, path: &Path) -> Result<String, ToolError> {
        let text = read_text(workspace, path, "edit")?;
        let mut notebook: Value = serde_json::from_str(&text).map_err(|error| {
            ToolError::new(format!(
                "{} is not valid notebook JSON: {error}",
                path.display()
            ))
        })?;
        let with_ids = has_cell_ids(&notebook);
        let cells = notebook
            .get_mut("cells")
            .and_then(Value::as_array_mut)
            .ok_or_else(|| ToolError::new(format!("{} has no `cells` array.", path.display())))?;
        let message = self.edit_cells(cells, with_ids)?;
        let mut out = Vec::with_capacity(text.len() + 64);
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        notebook.serialize(&mut serializer).map_err(|error| {
            ToolError::new(format!("Could not serialise the notebook: {error}"))
        })?;
        out.push(b'\n');
        write_atomically(path, &out).map_err(|error| io_error("write", path, &error))?;
        Ok(message)
    }

    fn edit_cells(&self, cells: &mut Vec<Value>, with_ids: bool) -> Result<String, ToolError> {
        let mode = self.edit_mode.unwrap_or_default();
        let index = match &self.cell_id {
            Some(id) => Some(find_cell(cells, id)?),
            None if mode == EditMode::Insert => None,
            None => {
                return Err(ToolError::new(
                    "cell_id is required to replace or delete a cell: give the cell's id, or \
                     cell-N for the N-th cell.",
                ));
            }
        };
        match (mode, index) {
            (EditMode::Delete, Some(index)) => {
                cells.remove(index);
                Ok(format!(
                    "Deleted cell {}",
                    self.cell_id.as_deref().unwrap_or("")
                ))
            }
            (EditMode::Insert, after) => {
                let cell_type = self.cell_type.unwrap_or(CellType::Code);
                let position = after.map_or(0, |index| index + 1);
                let id = with_ids.then(new_cell_id);
                cells.insert(
                    position,
                    new_cell(cell_type, &self.new_source, id.as_deref()),
                );
                let shown = id.unwrap_or_else(|| format!("cell-{position}"));
                Ok(format!("Inserted cell {shown} with {}", self.new_source))
            }
            (_, Some(index)) => {
                let cell = cells[index].as_object_mut().ok_or_else(|| {
                    ToolError::new(format!("Cell {index} of the notebook is not an object."))
                })?;
                replace_source(cell, &self.new_source, self.cell_type);
                Ok(format!(
                    "Updated cell {} with {}",
                    self.cell_id.as_deref().unwrap_or(""),
                    self.new_source
                ))
            }
            (_, None) => unreachable!("replace and delete need a cell, checked above"),
        }
    }
}

/// Whether the notebook's format gives cells ids (nbformat 4.5 and later).
fn has_cell_ids(notebook: &Value) -> bool {
    let major = notebook["nbformat"].as_u64().unwrap_or(4);
    let minor = notebook["nbformat_minor"].as_u64().unwrap_or(0);
    major > 4 || (major == 4 && minor >= 5)
}

/// The position of the cell whose `id` is `id`, or of `cell-N`.
fn find_cell(cells: &[Value], id: &str) -> Result<usize, ToolError> {
    if let Some(index) = cells.iter().position(|cell| cell["id"] == id) {
        return Ok(index);
    }
    if let Some(index) = id
        .strip_prefix("cell-")
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&index| index < cells.len())
    {
        return Ok(index);
    }
    Err(ToolError::new(format!(
        "No cell has the id {id}: the notebook has {} cells; give a cell's `id` or cell-N \
         (0-based).",
        cells.len()
    )))
}

fn new_cell(cell_type: CellType, source: &str, id: Option<&str>) -> Value {
    let mut cell = Map::new();
    cell.insert("cell_type".into(), json!(cell_type.as_str()));
    if let Some(id) = id {
        cell.insert("id".into(), json!(id));
    }
    cell.insert("metadata".into(), json!({}));
    if cell_type == CellType::Code {
        cell.insert("execution_count".into(), Value::Null);
        cell.insert("outputs".into(), json!([]));
    }
    cell.insert("source".into(), json!(source));
    Value::Object(cell)
}

/// Sets the cell's source (and type); a code cell loses its outputs and execution count, a
/// cell turned into markdown loses the two keys.
fn replace_source(cell: &mut Map<String, Value>, source: &str, cell_type: Option<CellType>) {
    if let Some(cell_type) = cell_type {
        cell.insert("cell_type".into(), json!(cell_type.as_str()));
    }
    cell.insert("source".into(), json!(source));
    if cell["cell_type"] == "code" {
        cell.insert("execution_count".into(), Value::Null);
        cell.insert("outputs".into(), json!([]));
    } else {
        cell.remove("execution_count");
        cell.remove("outputs");
    }
}

/// A fresh cell id: 8 hex digits from the process's random hasher keys and the clock.
fn new_cell_id() -> String {
    let mut hasher = std::hash::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos()),
    );
    format!("{:08x}", hasher.finish() as u32)
}

#[cfg(test)]
mod tests;
