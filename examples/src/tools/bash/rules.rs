//! Bash's content permission rules (SPEC §6.1, §6.4): the `git *` in `Bash(git *)`.
//!
//! A rule's content is one of three forms, as in the reference:
//! - `npm:*`, the legacy prefix form: the command is `npm` or starts with `npm `;
//! - a pattern with `*` wildcards (`git *`, `cargo test *`): `*` stands for any text, and a
//!   trailing ` *` also lets the bare prefix through (`git *` covers `git`); `\*` is a literal
//!   star;
//! - anything else: the exact command.
//!
//! An allow rule covers a command only when it covers each of its simple commands (the parts
//! between `&&`, `||`, `;`, `|`, `&`), compared as their unquoted words, so `Bash(git *)`
//! never lets `git status && rm -rf x` through on the strength of its first part; a command
//! the classifier cannot split (redirection to a file, substitution, heredoc) is covered by no
//! allow rule. A deny or ask rule applies when it covers ANY part, after dropping leading
//! `VAR=value` assignments and wrappers (`command`, `env`, `nice`, `time`, `nohup`, `builtin`,
//! `exec`, `sudo`, `timeout`, `xargs`) and looking into `sh -c`/`bash -c`/`eval` text; a
//! command that cannot be split counts as covered, so deny rules fail closed.

use super::classify::simple_commands;

/// Whether the allow rule content `rule` covers every part of `command`.
pub fn rule_covers(rule: &str, command: &str) -> bool {
    match simple_commands(command.trim()) {
        Some(parts) if !parts.is_empty() => parts
            .iter()
            .all(|words| covers_simple(rule, &words.join(" "))),
        _ => false,
    }
}

/// The allow rule contents that "allow always for this session" grants for `command`, as
/// the reference suggests them: for each simple command, `WORD SUBCOMMAND:*` when its second
/// word names a subcommand (lower-case letters, digits and inner dashes: `git status --short`
/// gives `git status:*`, `cargo test -p x` gives `cargo test:*`), else that simple command
/// exactly (its `*`s escaped, so `ls *.py` allows only itself). Empty when the command cannot
/// be split (no rule covers it).
pub fn session_rules(command: &str) -> Vec<String> {
    let Some(parts) = simple_commands(command.trim()) else {
        return Vec::new();
    };
    let mut rules: Vec<String> = Vec::new();
    for words in parts.iter().filter(|words| !words.is_empty()) {
        let rule = match words.as_slice() {
            [first, second, ..]
                if !is_assignment(first) && !first.contains('*') && is_subcommand(second) =>
            {
                format!("{first} {second}:*")
            }
            _ => words.join(" ").replace('*', "\\*"),
        };
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    rules
}

/// A word that reads as a subcommand (`status`, `run-script`), not an option or a path.
fn is_subcommand(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_lowercase())
        && word.split('-').all(|piece| {
            !piece.is_empty()
                && piece
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// Whether the deny or ask rule content `rule` applies to some part of `command` (or to a
/// command that cannot be split).
pub fn rule_restricts(rule: &str, command: &str) -> bool {
    restricts_at_depth(rule, command, 0)
}

fn restricts_at_depth(rule: &str, command: &str, depth: usize) -> bool {
    let Some(parts) = simple_commands(command.trim()) else {
        return true;
    };
    if depth > 8 {
        return true;
    }
    parts.iter().any(|words| {
        let words = unwrapped(words);
        let Some((program, args)) = words.split_first() else {
            return false;
        };
        let base = program.rsplit('/').next().unwrap_or(program);
        let shell_text = match base {
            "sh" | "bash" | "dash" | "zsh" | "ksh" => args
                .iter()
                .position(|arg| arg.starts_with('-') && !arg.starts_with("--") && arg.contains('c'))
                .and_then(|at| args.get(at + 1))
                .cloned(),
            "eval" => Some(args.join(" ")),
            _ => None,
        };
        if let Some(text) = shell_text
            && restricts_at_depth(rule, &text, depth + 1)
        {
            return true;
        }
        let mut candidates = vec![words.join(" ")];
        if base != program {
            let mut renamed = vec![base.to_owned()];
            renamed.extend(args.iter().cloned());
            candidates.push(renamed.join(" "));
        }
        candidates.iter().any(|text| covers_simple(rule, text))
    })
}

/// `words` without leading `VAR=value` assignments and wrapper commands (with their options).
fn unwrapped(words: &[String]) -> &[String] {
    let mut rest = words;
    loop {
        let Some((first, tail)) = rest.split_first() else {
            return rest;
        };
        if is_assignment(first) {
            rest = tail;
            continue;
        }
        let base = first.rsplit('/').next().unwrap_or(first);
        let takes_value: &[&str] = match base {
            "command" | "builtin" | "exec" | "nohup" | "time" | "xargs" => {
                &["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s"]
            }
            "env" => &["-u", "-C", "-S", "--unset", "--chdir", "--split-string"],
            "nice" => &["-n", "--adjustment"],
            "sudo" => &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"],
            "timeout" => &["-s", "-k", "--signal", "--kill-after"],
            _ => return rest,
        };
        rest = tail;
        while let Some((option, tail)) = rest.split_first() {
            if is_assignment(option) && base == "env" {
                rest = tail;
            } else if option.starts_with('-') && option.len() > 1 {
                rest = tail;
                if takes_value.contains(&option.as_str()) {
                    rest = rest.get(1..).unwrap_or_default();
                }
            } else {
                break;
            }
        }
        if base == "timeout" {
            rest = rest.get(1..).unwrap_or_default();
        }
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

fn covers_simple(rule: &str, command: &str) -> bool {
    if let Some(prefix) = rule.strip_suffix(":*") {
        return command == prefix
            || command
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(' '));
    }
    let pieces = wildcard_pieces(rule);
    if pieces.len() == 1 {
        return command == pieces[0];
    }
    if let Some(bare) = rule.strip_suffix(" *").filter(|bare| !bare.contains('*'))
        && command == bare
    {
        return true;
    }
    wildcard_match(&pieces, command)
}

/// The literal parts between unescaped `*`s, with `\*` turned into `*`.
fn wildcard_pieces(rule: &str) -> Vec<String> {
    let mut pieces = vec![String::new()];
    let mut chars = rule.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'*') => {
                chars.next();
                pieces.last_mut().unwrap_or(&mut String::new()).push('*');
            }
            '*' => pieces.push(String::new()),
            other => {
                if let Some(last) = pieces.last_mut() {
                    last.push(other);
                }
            }
        }
    }
    pieces
}

/// Whether `text` is `pieces` joined by arbitrary text.
fn wildcard_match(pieces: &[String], text: &str) -> bool {
    let (Some(first), Some(last)) = (pieces.first(), pieces.last()) else {
        return false;
    };
    let Some(mut rest) = text.strip_prefix(first.as_str()) else {
        return false;
    };
    let middle = &pieces[1..pieces.len() - 1];
    for piece in middle {
        match rest.find(piece.as_str()) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.ends_with(last.as_str())
}

#[cfg(test)]
mod tests {
    use super::{rule_covers, rule_restricts, session_rules};

    #[test]
    fn session_rules_are_subcommand_prefixes_or_exact_commands() {
        assert_eq!(session_rules("git status --short"), ["git status:*"]);
        assert_eq!(session_rules("cargo run-script x"), ["cargo run-script:*"]);
        assert_eq!(session_rules("ls -la"), ["ls -la"]);
        assert_eq!(session_rules("pwd"), ["pwd"]);
        assert_eq!(session_rules("ls *.py"), ["ls \\*.py"]);
        assert_eq!(session_rules("FOO=1 git status"), ["FOO=1 git status"]);
        assert_eq!(
            session_rules("git status && git status -s; npm test"),
            ["git status:*", "npm test:*"]
        );
        assert!(session_rules("echo $(rm x)").is_empty());
        // Each rule covers the command it came from, and no other program.
        for command in ["git status --short", "ls -la", "ls *.py", "pwd"] {
            let rules = session_rules(command);
            assert!(rule_covers(&rules[0], command), "{command}");
        }
        assert!(!rule_covers("git status:*", "git push"));
        assert!(!rule_covers("ls \\*.py", "ls secret.py"));
        assert!(!rule_covers("git status:*", "git status && rm -rf x"));
    }

    #[test]
    fn deny_rules_apply_to_any_part_and_to_unreadable_commands() {
        let denied = [
            "rm a.txt",
            "ls && rm a.txt",
            "ls; rm a.txt",
            "FOO=1 rm a.txt",
            "\\rm a.txt",
            "'rm' a.txt",
            "echo $(rm a.txt)",
            "command rm a.txt",
            "env -i FOO=1 rm a.txt",
            "nice -n 5 rm a.txt",
            "time rm a.txt",
            "nohup rm a.txt",
            "builtin rm a.txt",
            "exec rm a.txt",
            "timeout 5 rm a.txt",
            "/bin/rm a.txt",
            "sh -c 'rm a.txt'",
            "bash -c \"ls; rm a.txt\"",
            "eval rm a.txt",
            "ls | xargs rm",
            "echo 'unclosed",
        ];
        for command in denied {
            assert!(rule_restricts("rm *", command), "Bash(rm *) on {command:?}");
        }
        for command in ["ls", "git status && cat rm.txt", "echo rm"] {
            assert!(
                !rule_restricts("rm *", command),
                "Bash(rm *) on {command:?}"
            );
        }
    }

    #[test]
    fn prefix_wildcard_and_exact_rules() {
        let cases: &[(&str, &str, bool)] = &[
            ("git *", "git status", true),
            ("git *", "git", true),
            ("git *", "gitk", false),
            ("git *", "git status && git diff", true),
            ("git *", "git status && rm -rf x", false),
            ("git *", "git log | head -5", false),
            ("npm:*", "npm install", true),
            ("npm:*", "npm", true),
            ("npm:*", "npmx", false),
            ("cargo test *", "cargo test -p tool-examples", true),
            ("cargo test *", "cargo build", false),
            ("ls", "ls", true),
            ("ls", "ls -la", false),
            ("echo \\*", "echo *", true),
            ("echo \\*", "echo hi", false),
            ("* --version", "rustc --version", true),
            ("git * main", "git push origin main", true),
            ("git * main", "git push origin dev", false),
            ("git *", "git status; rm a.txt < /dev/null", false),
            ("git *", "git log > out.txt", false),
            ("git *", "git log $(rm x)", false),
        ];
        for (rule, command, expected) in cases {
            assert_eq!(
                rule_covers(rule, command),
                *expected,
                "Bash({rule}) on {command:?}"
            );
        }
    }
}
