use serde_json::json;
use tool_sdk::{DynTool, TypedTool};

use super::*;
use crate::tools::fixture::Fixture;

/// A notebook as Jupyter writes it (nbformat 4.5, one-space indent, final newline), with
/// outputs, execution counts and notebook metadata that edits must keep.
const NOTEBOOK: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "a1b2c3d4",
   "metadata": {},
   "source": [
    "# Analysis\n",
    "Loads the data."
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "id": "e5f6a7b8",
   "metadata": {
    "tags": [
     "setup"
    ]
   },
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "42\n"
     ]
    }
   ],
   "source": [
    "x = 6 * 7\n",
    "print(x)"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  },
  "language_info": {
   "name": "python",
   "version": "3.12.0"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

fn notebook(fx: &Fixture) -> Value {
    serde_json::from_str(&fx.read("nb.ipynb")).unwrap()
}

#[tokio::test]
async fn an_untouched_cell_and_the_metadata_keep_their_bytes() {
    let fx = Fixture::new();
    fx.write_seen("nb.ipynb", NOTEBOOK);
    let input =
        json!({"notebook_path": "nb.ipynb", "cell_id": "a1b2c3d4", "new_source": "# Results"});
    assert_eq!(
        fx.call::<NotebookEdit>(input).await.unwrap(),
        "Updated cell a1b2c3d4 with # Results"
    );
    let text = fx.read("nb.ipynb");
    let expected = NOTEBOOK.replace(
        "   \"source\": [\n    \"# Analysis\\n\",\n    \"Loads the data.\"\n   ]\n  },",
        "   \"source\": \"# Results\"\n  },",
    );
    assert_eq!(text, expected);
}

#[tokio::test]
async fn replacing_a_code_cell_clears_its_outputs() {
    let fx = Fixture::new();
    fx.write_seen("nb.ipynb", NOTEBOOK);
    let input =
        json!({"notebook_path": fx.path("nb.ipynb"), "cell_id": "cell-1", "new_source": "y = 1"});
    fx.call::<NotebookEdit>(input).await.unwrap();
    let cell = &notebook(&fx)["cells"][1];
    assert_eq!(cell["source"], "y = 1");
    assert_eq!(cell["outputs"], json!([]));
    assert_eq!(cell["execution_count"], Value::Null);
    assert_eq!(cell["metadata"], json!({"tags": ["setup"]}));
    let to_markdown = json!({"notebook_path": "nb.ipynb", "cell_id": "e5f6a7b8", "new_source": "text", "cell_type": "markdown"});
    fx.call::<NotebookEdit>(to_markdown).await.unwrap();
    let cell = &notebook(&fx)["cells"][1];
    assert_eq!(cell["cell_type"], "markdown");
    assert!(cell.get("outputs").is_none() && cell.get("execution_count").is_none());
}

#[tokio::test]
async fn insert_and_delete() {
    let fx = Fixture::new();
    fx.write_seen("nb.ipynb", NOTEBOOK);
    let insert = json!({"notebook_path": "nb.ipynb", "cell_id": "a1b2c3d4", "new_source": "import os",
                        "cell_type": "code", "edit_mode": "insert"});
    let text = fx.call::<NotebookEdit>(insert).await.unwrap();
    let cells = notebook(&fx)["cells"].as_array().unwrap().clone();
    assert_eq!(cells.len(), 3);
    let id = cells[1]["id"].as_str().unwrap();
    assert_eq!(text, format!("Inserted cell {id} with import os"));
    assert_eq!(id.len(), 8);
    assert_eq!(cells[1]["source"], "import os");
    assert_eq!(cells[1]["outputs"], json!([]));
    let first = json!({"notebook_path": "nb.ipynb", "new_source": "# Top", "cell_type": "markdown", "edit_mode": "insert"});
    fx.call::<NotebookEdit>(first).await.unwrap();
    assert_eq!(notebook(&fx)["cells"][0]["source"], "# Top");
    let delete = json!({"notebook_path": "nb.ipynb", "cell_id": "e5f6a7b8", "new_source": "", "edit_mode": "delete"});
    assert_eq!(
        fx.call::<NotebookEdit>(delete).await.unwrap(),
        "Deleted cell e5f6a7b8"
    );
    let ids: Vec<Value> = notebook(&fx)["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cell| cell["id"].clone())
        .collect();
    assert!(!ids.contains(&json!("e5f6a7b8")));
    assert_eq!(ids.len(), 3);
    assert_eq!(notebook(&fx)["metadata"]["kernelspec"]["name"], "python3");
}

#[tokio::test]
async fn mistakes_are_named() {
    let fx = Fixture::new();
    fx.write_seen("nb.ipynb", NOTEBOOK);
    fx.write_seen("notes.txt", "x");
    let cases = [
        (
            json!({"notebook_path": "nb.ipynb", "cell_id": "nope", "new_source": "x"}),
            "No cell has the id nope",
        ),
        (
            json!({"notebook_path": "nb.ipynb", "new_source": "x", "edit_mode": "insert"}),
            "cell_type is required",
        ),
        (
            json!({"notebook_path": "notes.txt", "cell_id": "cell-0", "new_source": "x"}),
            "is not a Jupyter notebook",
        ),
        (
            json!({"notebook_path": "nb.ipynb", "new_source": "x"}),
            "cell_id is required",
        ),
        (
            json!({"notebook_path": "missing.ipynb", "cell_id": "cell-0", "new_source": "x"}),
            "File does not exist",
        ),
    ];
    for (input, expected) in cases {
        let error = fx.call::<NotebookEdit>(input).await.unwrap_err();
        assert!(error.contains(expected), "{error}");
    }
    assert_eq!(fx.read("nb.ipynb"), NOTEBOOK);
}

#[tokio::test]
async fn an_unread_notebook_is_refused() {
    let fx = Fixture::new();
    fx.write("nb.ipynb", NOTEBOOK);
    let input = json!({"notebook_path": "nb.ipynb", "cell_id": "cell-0", "new_source": "x"});
    let error = fx.call::<NotebookEdit>(input).await.unwrap_err();
    assert!(
        error.contains("has not been read in this session"),
        "{error}"
    );
    assert_eq!(fx.read("nb.ipynb"), NOTEBOOK);
}

#[test]
fn schema_and_flags() {
    let tool = TypedTool::of::<NotebookEdit>(None);
    let schema = tool.input_schema();
    assert_eq!(schema["required"], json!(["notebook_path", "new_source"]));
    assert_eq!(
        schema["properties"]["edit_mode"]["enum"],
        json!(["replace", "insert", "delete"])
    );
    let call = tool
        .parse_input(&json!({"notebook_path": "a.ipynb", "new_source": ""}))
        .unwrap();
    assert!(!call.is_read_only() && !call.is_concurrency_safe());
}
