//! Large results (SPEC §9): the empty-result message, the persistence threshold, saving a
//! result to `<dir>/<tool_use_id>.txt|.json` and the `<persisted-output>` block that replaces
//! it, and the optional per-message budget with the state it keeps between model calls.

use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use tool_sdk::{MaxResultSize, ResultBlock, ToolResultBlock, ToolResultContent};

use crate::messages;

/// Length, in chars, of the preview kept in a `<persisted-output>` block (SPEC §9
/// `PREVIEW_SIZE_BYTES`).
pub const PREVIEW_SIZE_CHARS: usize = 2_000;

/// The threshold, in chars, above which a result of a tool declaring `declared` is persisted:
/// `None` for [`MaxResultSize::Unbounded`] (never persisted), else `min(declared, cap)`
/// (SPEC §9 `getPersistenceThreshold`; `cap` is normally 50,000). Per-tool overrides are
/// applied by [`OrchestratorConfig::persistence_threshold`](crate::OrchestratorConfig::persistence_threshold).
// Used by the crate's tests and `test_support` only.
#[cfg_attr(not(any(test, feature = "test-support")), allow(dead_code))]
pub fn persistence_threshold(declared: MaxResultSize, cap: usize) -> Option<usize> {
    declared.chars().map(|chars| chars.min(cap))
}

/// Formats a size in bytes as the reference's `formatFileSize` does (SPEC §9): below 1,024
/// `"N bytes"`, else KB / MB / GB with one decimal and a trailing `.0` removed
/// (`1536` → `"1.5KB"`, `2048` → `"2KB"`).
pub(crate) fn format_file_size(bytes: u64) -> String {
    // Sizes are far below 2^52, so the conversion is exact.
    #[allow(clippy::cast_precision_loss)]
    let mut value = bytes as f64 / 1024.0;
    if value < 1.0 {
        return format!("{bytes} bytes");
    }
    let mut unit = "KB";
    for next in ["MB", "GB"] {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = next;
    }
    let text = format!("{value:.1}");
    let text = text.strip_suffix(".0").unwrap_or(&text);
    format!("{text}{unit}")
}

/// The preview of `text` (SPEC §9 `generatePreview`): all of it when it has at most `limit`
/// chars (`has_more` false); otherwise its first `limit` chars, cut at the last `\n` in them
/// when that lies past the middle (the newline dropped), with `has_more` true.
pub(crate) fn generate_preview(text: &str, limit: usize) -> (&str, bool) {
    let Some((cut, _)) = text.char_indices().nth(limit) else {
        return (text, false);
    };
    let head = &text[..cut];
    match head.rfind('\n') {
        Some(newline) if head[..newline].chars().count() > limit / 2 => (&head[..newline], true),
        _ => (head, true),
    }
}

/// SPEC §9 step 1: empty or whitespace text, an empty array, or only empty text blocks.
pub fn is_empty_content(content: &ToolResultContent) -> bool {
    match content {
        ToolResultContent::Text(text) => text.trim().is_empty(),
        ToolResultContent::Blocks(blocks) => blocks
            .iter()
            .all(|block| matches!(block, ResultBlock::Text { text } if text.trim().is_empty())),
    }
}

/// The size that is compared with the threshold: a string's chars, or the chars of an array's
/// text blocks (other blocks count 0).
pub(crate) fn content_size(content: &ToolResultContent) -> usize {
    match content {
        ToolResultContent::Text(text) => text.chars().count(),
        ToolResultContent::Blocks(blocks) => blocks
            .iter()
            .map(|block| match block {
                ResultBlock::Text { text } => text.chars().count(),
                _ => 0,
            })
            .sum(),
    }
}

fn has_image(content: &ToolResultContent) -> bool {
    matches!(content, ToolResultContent::Blocks(blocks)
        if blocks.iter().any(|block| matches!(block, ResultBlock::Image { .. })))
}

/// Processes a successful result's content through SPEC §9 steps 1–5: the empty-result message
/// naming `tool_name`; images unchanged; at most `threshold` chars (or `threshold` `None`)
/// unchanged; otherwise saved to `dir` and replaced by a `<persisted-output>` block. With no
/// `dir`, or when saving fails, the content is kept as it was (the failure is logged).
pub fn process_result(
    content: ToolResultContent,
    tool_name: &str,
    tool_use_id: &str,
    threshold: Option<usize>,
    dir: Option<&Path>,
) -> ToolResultContent {
    if is_empty_content(&content) {
        return ToolResultContent::Text(messages::empty_result(tool_name));
    }
    match (threshold, dir) {
        (Some(limit), Some(dir)) if !has_image(&content) && content_size(&content) > limit => {
            persist(content, tool_use_id, dir)
        }
        _ => content,
    }
}

/// Where [`persist`] saves the result of `tool_use_id` in `dir`: `<dir>/<id>.<extension>`
/// (`txt` for a string, `json` for text blocks), with any character of the id outside
/// `[A-Za-z0-9_-]` replaced by `_`.
pub(crate) fn saved_result_path(dir: &Path, tool_use_id: &str, extension: &str) -> PathBuf {
    dir.join(format!("{}.{extension}", file_stem(tool_use_id)))
}

/// SPEC §9 steps 4–5: saves `content` as `<dir>/<tool_use_id>.txt` (a string) or `.json`
/// (an array of text blocks, pretty JSON), created exclusively (an existing file counts as
/// saved), and returns the `<persisted-output>` block. Arrays with a non-text block, and any
/// write error other than "exists", return `content` unchanged.
pub(crate) fn persist(
    content: ToolResultContent,
    tool_use_id: &str,
    dir: &Path,
) -> ToolResultContent {
    let (file_text, extension) = match &content {
        ToolResultContent::Text(text) => (text.clone(), "txt"),
        ToolResultContent::Blocks(blocks) => {
            if !blocks.iter().all(|b| matches!(b, ResultBlock::Text { .. })) {
                return content;
            }
            match serde_json::to_string_pretty(blocks) {
                Ok(json) => (json, "json"),
                Err(_) => return content,
            }
        }
    };
    let path = saved_result_path(dir, tool_use_id, extension);
    if let Err(error) = write_exclusive(dir, &path, &file_text) {
        tracing::warn!(path = %path.display(), %error, "could not save a large tool result; keeping it inline");
        return content;
    }
    let (preview, has_more) = generate_preview(&file_text, PREVIEW_SIZE_CHARS);
    ToolResultContent::Text(messages::persisted_output(
        &format_file_size(file_text.len() as u64),
        &path.display().to_string(),
        preview,
        has_more,
    ))
}

/// A file name safe on every platform: ids are `toolu_[A-Za-z0-9]+`, anything else is replaced
/// by `_` so a hostile id cannot leave `dir`.
fn file_stem(tool_use_id: &str) -> String {
    tool_use_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Creates `path` (never replacing a file; an existing one counts as written) and writes
/// `text` into it. When the write fails part way (a full disk, a file size limit), the partial
/// file is removed, so a later call for the same id never counts a truncated file as saved.
fn write_exclusive(dir: &Path, path: &PathBuf, text: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut file = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => return Ok(()),
        Err(error) => return Err(error),
    };
    let written = file.write_all(text.as_bytes()).and_then(|()| file.flush());
    if written.is_err() {
        drop(file);
        let _ = std::fs::remove_file(path);
    }
    written
}

/// SPEC §9 aggregate budget over one message group, as a single pass with nothing seen before
/// (what [`super::ToolUseStream::collect_results`] applies to a turn's results): while the
/// chars of the eligible results exceed `limit`, the largest is saved to `dir` and replaced.
/// Eligibility is [`ContentReplacementState::enforce`]'s. Returns how many were replaced.
pub fn enforce_message_budget(
    results: &mut [ToolResultBlock],
    limit: usize,
    dir: &Path,
    exempt: impl Fn(usize) -> bool,
) -> usize {
    ContentReplacementState::default().enforce(results, limit, dir, exempt)
}

/// What the per-message budget decided so far (SPEC §9 `enforceToolResultBudget` and its
/// `ContentReplacementState`): the `tool_use` ids it has seen and the content it put in place
/// of the ones it replaced. A host that applies the budget before each model call, as the
/// reference does, keeps one of these for the conversation so that earlier decisions hold:
/// a replaced result is replaced again with the same bytes, a result seen and kept is never
/// replaced later, and the kept results of a message group count against its limit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContentReplacementState {
    seen: HashSet<String>,
    replacements: HashMap<String, ToolResultContent>,
}

impl ContentReplacementState {
    /// A state that has seen nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the budget has looked at the result for `tool_use_id`.
    pub fn is_seen(&self, tool_use_id: &str) -> bool {
        self.seen.contains(tool_use_id)
    }

    /// The content the budget put in place of the result for `tool_use_id`, if it replaced it.
    pub fn replacement(&self, tool_use_id: &str) -> Option<&ToolResultContent> {
        self.replacements.get(tool_use_id)
    }

    /// Applies the budget to `group`, the results answering one assistant message as they
    /// stand now (results handed in by earlier calls included), and returns how many results
    /// were newly replaced.
    ///
    /// Candidates are results that are not errors, not empty, without an image and not
    /// already a `<persisted-output>` block. A candidate replaced before gets its replacement
    /// again, byte for byte. A candidate seen before and kept is *frozen*: it stays, and its
    /// chars count. The rest are *fresh*; those whose tool declares unbounded results
    /// (`exempt(index)`) are marked seen and left alone. While the frozen chars plus the
    /// remaining fresh chars exceed `limit`, the largest fresh result (ties: the earlier one)
    /// is saved to `dir` and replaced by a `<persisted-output>` block. Every candidate ends
    /// up seen, including one whose saving failed (it then stays inline).
    pub fn enforce(
        &mut self,
        group: &mut [ToolResultBlock],
        limit: usize,
        dir: &Path,
        exempt: impl Fn(usize) -> bool,
    ) -> usize {
        let mut frozen = 0usize;
        let mut fresh: Vec<(usize, usize)> = Vec::new();
        for (index, result) in group.iter_mut().enumerate() {
            if let Some(replacement) = self.replacements.get(&result.tool_use_id) {
                result.content = replacement.clone();
                continue;
            }
            if !is_candidate(result) {
                continue;
            }
            let size = content_size(&result.content);
            if self.seen.contains(&result.tool_use_id) {
                frozen += size;
            } else if exempt(index) {
                self.seen.insert(result.tool_use_id.clone());
            } else {
                fresh.push((index, size));
            }
        }
        let mut total = frozen + fresh.iter().map(|(_, size)| size).sum::<usize>();
        // Largest first; ties keep block order.
        fresh.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut replaced = 0;
        for (index, size) in fresh {
            let result = &mut group[index];
            self.seen.insert(result.tool_use_id.clone());
            if total <= limit {
                continue;
            }
            let content =
                std::mem::replace(&mut result.content, ToolResultContent::Text(String::new()));
            result.content = persist(content, &result.tool_use_id, dir);
            if result.text().starts_with("<persisted-output>") {
                self.replacements
                    .insert(result.tool_use_id.clone(), result.content.clone());
                replaced += 1;
            }
            total -= size;
        }
        replaced
    }
}

/// A result the budget may look at: not an error, not empty, no image, not persisted already.
fn is_candidate(result: &ToolResultBlock) -> bool {
    !result.is_error
        && !is_empty_content(&result.content)
        && !has_image(&result.content)
        && !result.text().starts_with("<persisted-output>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_sizes_read_like_the_reference() {
        let cases = [
            (0, "0 bytes"),
            (1023, "1023 bytes"),
            (1024, "1KB"),
            (1536, "1.5KB"),
            (60_000, "58.6KB"),
            (1024 * 1024, "1MB"),
            (5 * 1024 * 1024 * 1024 + 1024 * 1024 * 512, "5.5GB"),
        ];
        for (bytes, expected) in cases {
            assert_eq!(format_file_size(bytes), expected, "{bytes}");
        }
    }

    #[test]
    fn preview_cuts_at_a_late_newline_only() {
        let late = format!("{}\n{}", "a".repeat(1500), "b".repeat(1000));
        assert_eq!(generate_preview(&late, 2000), (&late[..1500], true));
        let early = format!("{}\n{}", "a".repeat(500), "b".repeat(2000));
        assert_eq!(generate_preview(&early, 2000), (&early[..2000], true));
        assert_eq!(generate_preview("short", 2000), ("short", false));
        let exact = "x".repeat(2000);
        assert_eq!(generate_preview(&exact, 2000), (exact.as_str(), false));
    }

    #[test]
    fn thresholds_cap_at_fifty_thousand_and_unbounded_opts_out() {
        assert_eq!(
            persistence_threshold(MaxResultSize::Chars(100_000), 50_000),
            Some(50_000)
        );
        assert_eq!(
            persistence_threshold(MaxResultSize::Chars(30_000), 50_000),
            Some(30_000)
        );
        assert_eq!(
            persistence_threshold(MaxResultSize::Unbounded, 50_000),
            None
        );
    }

    #[test]
    fn hostile_ids_stay_in_the_directory() {
        assert_eq!(file_stem("../../etc/passwd"), "______etc_passwd");
        assert_eq!(file_stem("toolu_01AB-c"), "toolu_01AB-c");
    }
}
