//! The grep-searcher [`Sink`] that turns one file's matches into Grep's output lines.

use std::io;

use grep_matcher::Matcher;
use grep_regex::RegexMatcher;
use grep_searcher::{Searcher, Sink, SinkContext, SinkMatch};
use tool_sdk::CancellationToken;

use super::mode::OutputMode;

/// Longest line shown, in bytes, as Claude Code's `rg --max-columns 500`; longer lines are
/// replaced by a note.
pub(super) const MAX_COLUMNS: usize = 500;

/// What one file produced: its matches (matching lines, or multi-line matches) and, in
/// content mode, its output lines.
pub(super) struct FileSink<'a> {
    pub(super) matcher: &'a RegexMatcher,
    pub(super) abort: &'a CancellationToken,
    pub(super) mode: OutputMode,
    pub(super) line_numbers: bool,
    /// The file as shown at the start of each line.
    pub(super) path: String,
    pub(super) matches: u64,
    pub(super) lines: Vec<String>,
}

impl FileSink<'_> {
    /// `path:12:text` for a match, `path-12-text` for context (`sep` is `:` or `-`).
    fn push(&mut self, sep: char, number: Option<u64>, text: &str) {
        let line = match number.filter(|_| self.line_numbers) {
            Some(number) => format!("{}{sep}{number}{sep}{text}", self.path),
            None => format!("{}{sep}{text}", self.path),
        };
        self.lines.push(line);
    }

    fn keep_going(&self) -> bool {
        !self.abort.is_cancelled()
    }
}

impl Sink for FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, found: &SinkMatch<'_>) -> io::Result<bool> {
        self.matches += 1;
        match self.mode {
            // One match decides the file; stop reading it.
            OutputMode::FilesWithMatches => return Ok(false),
            OutputMode::Count => {}
            OutputMode::Content => {
                let first = found.line_number();
                for (index, line) in (0..).zip(found.lines()) {
                    let text = match_text(self.matcher, line);
                    self.push(':', first.map(|number| number + index), &text);
                }
            }
        }
        Ok(self.keep_going())
    }

    fn context(&mut self, _searcher: &Searcher, context: &SinkContext<'_>) -> io::Result<bool> {
        if self.mode == OutputMode::Content {
            let line = trim_terminator(context.bytes());
            let text = if line.len() > MAX_COLUMNS {
                "[Omitted long context line]".to_owned()
            } else {
                String::from_utf8_lossy(line).into_owned()
            };
            self.push('-', context.line_number(), &text);
        }
        Ok(self.keep_going())
    }

    fn context_break(&mut self, _searcher: &Searcher) -> io::Result<bool> {
        self.lines.push("--".to_owned());
        Ok(self.keep_going())
    }
}

/// A matching line as shown: its text, or a note with the number of matches when it is
/// longer than [`MAX_COLUMNS`] bytes.
fn match_text(matcher: &RegexMatcher, raw: &[u8]) -> String {
    let line = trim_terminator(raw);
    if line.len() <= MAX_COLUMNS {
        return String::from_utf8_lossy(line).into_owned();
    }
    let mut count = 0;
    // The regex matcher's error type is `NoError`: this cannot fail.
    let _ = matcher.find_iter(line, |_| {
        count += 1;
        true
    });
    let noun = if count == 1 { "match" } else { "matches" };
    format!("[Omitted long line with {count} {noun}]")
}

fn trim_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}
