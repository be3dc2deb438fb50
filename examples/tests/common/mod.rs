//! Where the recorded fixtures are: `$TOOL_SDK_FIXTURES` when set, otherwise
//! `../shared/fixtures` beside the repository (the CI layout).

use std::path::PathBuf;

/// The fixtures directory (it may not exist; tests skip, saying so).
pub fn fixtures_dir() -> PathBuf {
    std::env::var_os("TOOL_SDK_FIXTURES").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures"),
        PathBuf::from,
    )
}
