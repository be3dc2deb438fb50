//! `--rebase PREFIX`: moving a recorded session's absolute paths into the workspace root.

use serde_json::Value;

/// Rewrites, in place, every occurrence of the path `prefix` in every string in `value` (at
/// any depth), wherever it stands in the string (a Bash `command` holds paths mid-text), to
/// `target`. An occurrence counts only when the path ends there: at the end of the string, at a
/// `/`, or at a character that cannot continue a file name in a command (space, quote, `;`...),
/// so `/home/user/projectile` is left alone for the prefix `/home/user/project`.
pub fn rebase_strings(value: &mut Value, prefix: &str, target: &str) {
    let prefix = prefix.trim_end_matches('/');
    if prefix.is_empty() {
        return;
    }
    match value {
        Value::String(text) => *text = rebase_text(text, prefix, target),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| rebase_strings(item, prefix, target)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|item| rebase_strings(item, prefix, target)),
        _ => {}
    }
}

fn rebase_text(text: &str, prefix: &str, target: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let after = &rest[at + prefix.len()..];
        let ends_path = after
            .chars()
            .next()
            .is_none_or(|next| !(next.is_alphanumeric() || matches!(next, '_' | '-' | '.')));
        out.push_str(&rest[..at]);
        out.push_str(if ends_path { target } else { prefix });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_whole_path_prefixes_move() {
        let mut input = json!({
            "file_path": "/home/user/project/src/a.py",
            "path": "/home/user/project",
            "other": "/home/user/projectile/x",
            "list": ["/home/user/project/b"],
            "n": 3
        });
        rebase_strings(&mut input, "/home/user/project/", "/tmp/w");
        assert_eq!(
            input,
            json!({
                "file_path": "/tmp/w/src/a.py",
                "path": "/tmp/w",
                "other": "/home/user/projectile/x",
                "list": ["/tmp/w/b"],
                "n": 3
            })
        );
    }

    #[test]
    fn paths_inside_commands_move_too() {
        let mut input = json!({
            "command": "rm -r /tmp/x/project/tests/ && cd /tmp/x/project; ls '/tmp/x/project'",
            "other": "cat /tmp/x/projectile/a"
        });
        rebase_strings(&mut input, "/tmp/x/project", "/w");
        assert_eq!(
            input,
            json!({
                "command": "rm -r /w/tests/ && cd /w; ls '/w'",
                "other": "cat /tmp/x/projectile/a"
            })
        );
    }
}
