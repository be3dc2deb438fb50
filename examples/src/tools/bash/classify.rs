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
    // Command substitution runs code wherever it appears, even inside single quotes when bash
    // later evaluates the word as an array subscript (`test -v 'a[$(cmd)]'`).
    if command.contains("$(") || command.contains('`') {
        return None;
    }
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
                    // `>&N` and `>&-` duplicate or close a descriptor; `>&word` writes a file.
                    chars.next();
                    while let Some(&digit) = chars.peek().filter(|c| c.is_ascii_digit()) {
                        target.push(digit);
                        chars.next();
                    }
                    if target.is_empty() && chars.peek() == Some(&'-') {
                        target.push('-');
                        chars.next();
                    }
                    let ends_word = chars.peek().is_none_or(|next| {
                        next.is_whitespace() || matches!(next, ';' | '|' | '&' | ')')
                    });
                    if target.is_empty() || !ends_word {
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
    "which",
    "whoami",
    "stat",
    "du",
    "df",
    "grep",
    "egrep",
    "fgrep",
    "diff",
    "cmp",
    "true",
    "false",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "uname",
    "cut",
    "tr",
    "nl",
    "jq",
    "id",
    "type",
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
        // `-o FILE` writes; `--compress-program` runs a program; long options may be abbreviated.
        "sort" => !args.iter().any(|arg| {
            short_cluster_has(arg, 'o')
                || abbreviates(arg, "output")
                || abbreviates(arg, "compress-program")
        }),
        // A second file operand is the output file.
        "uniq" => args.iter().filter(|arg| !arg.starts_with('-')).count() <= 1,
        // `-v NAME` assigns (and evaluates an array subscript in NAME).
        "printf" | "test" | "[" => !args.iter().any(|arg| arg.starts_with("-v")),
        // Only formats and date options that print; `-s`/`--set` sets the clock.
        "date" => args.iter().all(|arg| {
            arg.starts_with('+')
                || matches!(
                    arg.as_str(),
                    "-u" | "--utc" | "--universal" | "-R" | "--rfc-email"
                )
                || arg.starts_with("--iso-8601")
                || arg.starts_with("--rfc-3339")
                || arg == "-I"
                || arg.starts_with("-I") && !arg.contains('s')
        }),
        // Without operands it prints; `hostname NAME` or `-F FILE` sets the name.
        "hostname" => args.iter().all(|arg| {
            matches!(
                arg.as_str(),
                "-f" | "--fqdn"
                    | "--long"
                    | "-s"
                    | "--short"
                    | "-d"
                    | "--domain"
                    | "-i"
                    | "-I"
                    | "--ip-address"
                    | "--all-ip-addresses"
                    | "-A"
                    | "--all-fqdns"
            )
        }),
        // `-o FILE` writes the listing to a file.
        "tree" => !args
            .iter()
            .any(|arg| short_cluster_has(arg, 'o') || arg.starts_with("--o")),
        // `--pre CMD` runs a program on every file searched.
        "rg" => !args
            .iter()
            .any(|arg| abbreviates(arg, "pre") || arg.starts_with("--pre")),
        // `-C` compiles a magic file and writes it.
        "file" => !args
            .iter()
            .any(|arg| short_cluster_has(arg, 'C') || abbreviates(arg, "compile")),
        "git" => is_read_only_git(args),
        _ => false,
    }
}

/// Whether `arg` is a cluster of short options (`-uo`) that holds `flag`.
fn short_cluster_has(arg: &str, flag: char) -> bool {
    arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(flag)
}

/// Whether `arg` is the long option `--long` or an abbreviation of it, with or without `=value`.
fn abbreviates(arg: &str, long: &str) -> bool {
    let Some(name) = arg.strip_prefix("--") else {
        return false;
    };
    let name = name.split('=').next().unwrap_or(name);
    !name.is_empty() && long.starts_with(name)
}

/// Whether a git option writes a file or runs a program: `--output` (diff and log family),
/// `-O`/`--open-files-in-pager` (grep), and their abbreviations.
fn git_option_acts(option: &str) -> bool {
    option.starts_with("--output")
        || abbreviates(option, "output")
        || abbreviates(option, "open-files-in-pager")
        || short_cluster_has(option, 'O')
        || abbreviates(option, "ext-diff")
        || option.starts_with("--exec")
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
        "reflog" => {
            options
                .first()
                .is_none_or(|o| o == "show" || o.starts_with('-'))
                && !options
                    .iter()
                    .any(|o| matches!(o.as_str(), "expire" | "delete" | "drop"))
                && !options.iter().any(|o| git_option_acts(o))
        }
        sub if GIT_READERS.contains(&sub) => !options.iter().any(|o| git_option_acts(o)),
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
        ("test -v 'a[$(touch p)]'", false),
        ("[ -v 'x[$(touch p)]' ]", false),
        ("printf -v 'a[$(touch p)]' 1", false),
        ("printf -v x 1", false),
        ("test -v x", false),
        ("[ -f Cargo.toml ]", true),
        ("printf '%s\\n' a", true),
        ("echo 'a $(b)'", false),
        ("echo \"`id`\"", false),
        ("git grep -Orm hello", false),
        ("git grep --open-files-in-pager=rm hello", false),
        ("git grep -n hello", true),
        ("git diff --output=out.txt", false),
        ("git log --output=x", false),
        ("git log --outp=x", false),
        ("git log --oneline", true),
        ("git reflog", true),
        ("git reflog show HEAD", true),
        ("git reflog expire --expire=now --all", false),
        ("git reflog delete HEAD@{1}", false),
        ("ls >&1out.txt", false),
        ("ls >&2", true),
        ("ls 2>&-", true),
        ("uniq in", true),
        ("uniq in out", false),
        ("sort -uo out in", false),
        ("sort --out=x in", false),
        ("sort --compress-program=sh in", false),
        ("sort -u in", true),
        ("date", true),
        ("date +%s", true),
        ("date -s 2020-01-01", false),
        ("date --set=2020-01-01", false),
        ("hostname", true),
        ("hostname NAME", false),
        ("tree -o f", false),
        ("tree -L 2", true),
        ("rg --pre CMD x", false),
        ("rg --pre=CMD x", false),
        ("rg -n x", true),
        ("file -C", false),
        ("file -bC", false),
        ("file Cargo.toml", true),
        ("less -o log file", false),
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
