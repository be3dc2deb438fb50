//! Conditional registration and linking, on real binaries (SPEC §7).
//!
//! The debug binaries are the ones cargo builds for this test; the release check builds the
//! same package with `cargo build --release` in a target dir of its own, kept between runs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(binary: &Path) -> String {
    let output = Command::new(binary)
        .output()
        .expect("the fixture binary runs");
    assert!(output.status.success(), "{} failed", binary.display());
    String::from_utf8(output.stdout).expect("utf-8 output")
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

#[test]
fn cfg_removes_the_tool_from_the_registry_and_from_the_binary() {
    let binary = Path::new(env!("CARGO_BIN_EXE_gated-tools"));
    assert_eq!(run(binary), "AlwaysCompiledIn\nLinkedFromLibrary\n");
    let bytes = std::fs::read(binary).unwrap();
    // The control is found by the same byte search, in its name and its symbols.
    assert!(contains(&bytes, "AlwaysCompiledIn"));
    assert!(contains(&bytes, "always_compiled_in"));
    for gone in [
        "CfgGatedStructAfter",
        "CfgGatedStructBefore",
        "CfgGatedFunction",
        "cfg_gated_function",
    ] {
        assert!(!contains(&bytes, gone), "`{gone}` is still in the binary");
    }
}

fn check_linking(named: &Path, unnamed: &Path) {
    assert_eq!(run(named), "LinkedFromLibrary\n");
    assert_eq!(run(unnamed), "0\n");
}

#[test]
fn a_tool_crate_is_linked_exactly_when_the_binary_names_it_debug() {
    check_linking(
        Path::new(env!("CARGO_BIN_EXE_link-named")),
        Path::new(env!("CARGO_BIN_EXE_link-unnamed")),
    );
}

#[test]
fn a_tool_crate_is_linked_exactly_when_the_binary_names_it_release() {
    let target_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("link-release");
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "--release",
            "--bin",
            "link-named",
            "--bin",
            "link-unnamed",
        ])
        .arg("--manifest-path")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "the release build of the fixtures failed");
    let release = target_dir.join("release");
    check_linking(&release.join("link-named"), &release.join("link-unnamed"));
}
