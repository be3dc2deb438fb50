//! Bash's content permission rules (SPEC §6.1, §6.4): the `git *` in `Bash(git *)`.
//!
//! A rule's content is one of three forms, as in the reference:
//! - `npm:*`, the legacy prefix form: the command is `npm` or starts with `npm `;
//! - a pattern with `*` wildcards (`git *`, `cargo test *`): `*` stands for any text, and a
//!   trailing ` *` also lets the bare prefix through (`git *` covers `git`); `\*` is a literal
//!   star;
//! - anything else: the exact command.
//!
//! A compound command (`a && b`, `a | b`, `a; b`) is covered only when the rule covers each of
//! its simple commands, so `Bash(git *)` never lets `git status && rm -rf x` through on the
//! strength of its first part.

use super::classify::simple_commands;

/// Whether the rule content `rule` covers `command`.
pub fn rule_covers(rule: &str, command: &str) -> bool {
    let command = command.trim();
    let parts = split_simple(command);
    if parts.len() > 1 {
        return parts.iter().all(|part| covers_simple(rule, part));
    }
    covers_simple(rule, command)
}

/// The simple commands of `command` as text (the words joined by single spaces); the whole
/// command when it cannot be split.
fn split_simple(command: &str) -> Vec<String> {
    match simple_commands(command) {
        Some(commands) if commands.len() > 1 => {
            commands.into_iter().map(|words| words.join(" ")).collect()
        }
        _ => vec![command.to_owned()],
    }
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
    use super::rule_covers;

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
