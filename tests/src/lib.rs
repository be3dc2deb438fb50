//! Cross-crate integration tests for tool-sdk; the tests live in `tests/`.
