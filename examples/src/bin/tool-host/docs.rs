//! `tool-host docs --out DIR [pool options]`: the tool catalog of a pool, one Markdown page
//! per tool plus `index.md` and `tools.json` ([`tool_registry::docs`]).

use std::path::PathBuf;

use clap::Args;
use tool_registry::ToolRegistry;
use tool_registry::docs::ToolDoc;

use crate::pool_options::PoolOptions;

/// The `docs` command's arguments.
#[derive(Args, Debug)]
pub struct DocsArgs {
    /// The directory to write into (created if missing; existing pages are replaced).
    #[arg(long)]
    pub out: PathBuf,
    /// Print the written files as a JSON array instead of one path per line.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub pool: PoolOptions,
}

/// Writes the catalog and lists the files written.
pub fn run(registry: &ToolRegistry, args: &DocsArgs) -> Result<(), String> {
    let pool = args.pool.build(registry)?;
    let docs: Vec<ToolDoc> = pool
        .tools()
        .iter()
        .map(|tool| ToolDoc::of(tool.as_ref()))
        .collect();
    std::fs::create_dir_all(&args.out)
        .map_err(|error| format!("cannot create {}: {error}", args.out.display()))?;
    let mut written = Vec::new();
    let mut write = |name: String, content: String| -> Result<(), String> {
        let path = args.out.join(&name);
        std::fs::write(&path, content)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        written.push(path.display().to_string());
        Ok(())
    };
    for doc in &docs {
        write(doc.file_name(), doc.to_markdown())?;
    }
    write("index.md".to_owned(), ToolDoc::index_markdown(&docs))?;
    let catalog = serde_json::to_string_pretty(&ToolDoc::catalog_json(&docs))
        .map_err(|error| error.to_string())?;
    write("tools.json".to_owned(), format!("{catalog}\n"))?;
    if args.json {
        return crate::print_json(&written);
    }
    for path in &written {
        println!("{path}");
    }
    eprintln!("wrote {} tool pages, index.md and tools.json", docs.len());
    Ok(())
}
