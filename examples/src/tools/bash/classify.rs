//! Which shell commands only read: the classifier behind Bash's per-input `read_only` and
//! `concurrency_safe` flags (the reference's read-only command check, SPEC §1.3).
//!
//! A command is read-only when every simple command in it (the parts between `&&`, `||`,
//! `;`, `|`, `&` and newlines) is a known reader with arguments that keep it one, and nothing
//! in it redirects output to a file or substitutes a command (`$(...)`, backticks, `<(...)`).
//! Anything unknown is not read-only: the flags fail closed.

/// A command split into its simple commands, each a list of words with quotes removed; or
/// `None` when the text uses something the classifier does not follow (redirection to a
/// file, command substitution, an unclosed quote, a heredoc).
pub(crate) fn simple_commands(command: &str) -> Option<Vec<Vec<String>>> {
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars().peekable();
    let finish_word = |word: &mut String, in_word: &mut bool, words: &mut Vec<String>| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => word.push(other),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => word.push(chars.next()?),
                        '`' => return None,
                        '$' if chars.peek() == Some(&'(') => return None,
                        other => word.push(other),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next()? {
                    '\n' => {}
                    other => word.push(other),
                }
            }
            '`' => return None,
            '$' if chars.peek() == Some(&'(') => return None,
            '<' | '>' => {
                // Only harmless redirections are followed: `2>&1`, `>/dev/null`, `2>/dev/null`.
                if c == '<' {
                    return None;
                }
                if in_word {
                    // A file descriptor number glued to `>`, or a word that the `>` ends.
                    if word != "1" && word != "2" {
                        return None;
                    }
                    word.clear();
                    in_word = false;
                }
                let mut target = String::new();
                if chars.peek() == Some(&'&') {
                    chars.next();
                    while let Some(&digit) = chars.peek().filter(|c| c.is_ascii_digit()) {
                        target.push(digit);
                        chars.next();
                    }
                    if target.is_empty() {
                        return None;
                    }
                    continue;
                }
                while chars.peek() == Some(&' ') {
                    chars.next();
                }
                while let Some(&next) = chars.peek().filter(|c| !c.is_whitespace()) {
                    target.push(next);
                    chars.next();
                }
                if target != "/dev/null" {
                    return None;
                }
            }
            '(' | ')' | '{' | '}' if !in_word => return None,
            ';' | '|' | '&' | '\n' => {
                finish_word(&mut word, &mut in_word, &mut words);
                if matches!(chars.peek(), Some('|' | '&')) {
                    chars.next();
                }
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            c if c.is_whitespace() => finish_word(&mut word, &mut in_word, &mut words),
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    finish_word(&mut word, &mut in_word, &mut words);
    if !words.is_empty() {
        commands.push(words);
    }
    Some(commands)
}

/// Whether `command` only reads (and so may run alongside other read-only calls).
pub fn is_read_only_command(command: &str) -> bool {
    match simple_commands(command) {
        Some(commands) if !commands.is_empty() => {
            commands.iter().all(|words| is_read_only_simple(words))
        }
        _ => false,
    }
}

/// Programs that only read and print, whatever their arguments.
const READERS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "pwd",
    "echo",
    "printf",
    "which",
    "whoami",
    "date",
    "file",
    "stat",
    "du",
    "df",
    "tree",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "diff",
    "cmp",
    "true",
    "false",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "uname",
    "uniq",
    "cut",
    "tr",
    "nl",
    "jq",
    "id",
    "hostname",
    "test",
    "[",
    "type",
    "less",
    "more",
    "md5sum",
    "sha256sum",
    "comm",
    "column",
    "seq",
    "sleep",
    "cd",
];

/// `git` subcommands that only read.
const GIT_READERS: &[&str] = &[
    "status",
    "log",
    "diff",
    "show",
    "rev-parse",
    "ls-files",
    "blame",
    "describe",
    "grep",
    "shortlog",
    "cat-file",
    "ls-tree",
    "reflog",
    "merge-base",
    "rev-list",
    "whatchanged",
];

fn is_read_only_simple(words: &[String]) -> bool {
    let Some((program, args)) = words.split_first() else {
        return true;
    };
    let program = program.as_str();
    if READERS.contains(&program) {
        return true;
    }
    match program {
        "find" => !args.iter().any(|arg| {
            matches!(
                arg.as_str(),
                "-exec"
                    | "-execdir"
                    | "-ok"
                    | "-okdir"
                    | "-delete"
                    | "-fprint"
                    | "-fprint0"
                    | "-fprintf"
                    | "-fls"
            )
        }),
        "sort" => !args
            .iter()
            .any(|arg| arg == "-o" || arg.starts_with("--output") || arg.starts_with("-o")),
        "git" => is_read_only_git(args),
        _ => false,
    }
}

fn is_read_only_git(args: &[String]) -> bool {
    let mut rest = args;
    // Global options before the subcommand.
    loop {
        match rest.first().map(String::as_str) {
            Some("--no-pager" | "-P" | "--no-optional-locks") => rest = &rest[1..],
            Some("-C") if rest.len() > 1 => rest = &rest[2..],
            _ => break,
        }
    }
    let Some((subcommand, options)) = rest.split_first() else {
        return false;
    };
    let listing_only = |allowed: &[&str]| options.iter().all(|o| allowed.contains(&o.as_str()));
    match subcommand.as_str() {
        sub if GIT_READERS.contains(&sub) => !options.iter().any(|o| o == "--output"),
        "branch" => listing_only(&["-a", "-r", "-v", "-vv", "--list", "--all", "--show-current"]),
        "remote" => listing_only(&["-v", "--verbose"]),
        "tag" => listing_only(&["-l", "--list"]),
        "stash" => options.first().is_some_and(|o| o == "list" || o == "show"),
        "config" => options
            .first()
            .is_some_and(|o| matches!(o.as_str(), "--get" | "--list" | "-l" | "--get-all")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classification table: (command, read-only?).
    const TABLE: &[(&str, bool)] = &[
        ("ls", true),
        ("ls -la src", true),
        ("cat Cargo.toml", true),
        ("git status", true),
        ("git log --oneline -3", true),
        ("git diff HEAD~1 -- src/lib.rs", true),
        ("git -C sub --no-pager show HEAD", true),
        ("git branch", true),
        ("git branch -a", true),
        ("rg -n 'fn main' src", true),
        ("grep -r \"a > b\" .", true),
        ("find . -name '*.rs' | head -20", true),
        ("wc -l src/*.rs && git status", true),
        ("ls 2>&1 | head", true),
        ("cat missing.txt 2>/dev/null", true),
        ("pwd; ls", true),
        ("cd sub && git status", true),
        ("cd sub && make", false),
        ("echo hi > out.txt", false),
        ("cat a >> b", false),
        ("sort -o out.txt in.txt", false),
        ("ls && rm -rf target", false),
        ("git status; git commit -m x", false),
        ("cat a | tee b", false),
        ("git add -A && git commit -m 'msg'", false),
        ("git branch -D old", false),
        ("git push", false),
        ("find . -name '*.tmp' -delete", false),
        ("find . -exec rm {} \\;", false),
        ("cargo test", false),
        ("cargo init", false),
        ("rm file", false),
        ("mkdir foo", false),
        ("echo $(rm -rf x)", false),
        ("echo `touch x`", false),
        ("cat <(ls)", false),
        ("cat << EOF", false),
        ("unknown-tool --flag", false),
        ("FOO=1 ls", false),
        ("(cd sub && ls)", false),
        ("echo 'unclosed", false),
        ("", false),
        ("git", false),
        ("chmod +x s.sh && ./s.sh", false),
    ];

    #[test]
    fn the_classification_table() {
        let wrong: Vec<String> = TABLE
            .iter()
            .filter(|(command, expected)| is_read_only_command(command) != *expected)
            .map(|(command, expected)| format!("{command:?} should be read-only: {expected}"))
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn commands_split_on_operators_and_quotes_are_removed() {
        assert_eq!(
            simple_commands("git log --format='%h %s' && ls \"a b\"|wc -l").unwrap(),
            vec![
                vec!["git", "log", "--format=%h %s"],
                vec!["ls", "a b"],
                vec!["wc", "-l"],
            ]
        );
    }
}
