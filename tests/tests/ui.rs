//! Compile-time behaviour of `#[tool]`: every misuse in `ui/fail` must be rejected with the
//! checked-in message, and everything in `ui/pass` must compile. Snapshots are pinned to the
//! rustc CI runs (1.95); on another compiler the test is skipped, saying so.

#[rustversion::attr(
    not(stable(1.95)),
    ignore = "UI snapshots are pinned to rustc 1.95 stable"
)]
#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("ui/pass/*.rs");
    cases.compile_fail("ui/fail/*.rs");
}
