//! `--rebase PREFIX`: moving a recorded session's absolute paths into the workspace root.

use serde_json::Value;

/// Rewrites, in place, every string in `value` (at any depth) that equals `prefix` or starts
/// with `prefix` followed by `/`, so that it starts with `target` instead.
pub fn rebase_strings(value: &mut Value, prefix: &str, target: &str) {
    let prefix = prefix.trim_end_matches('/');
    match value {
        Value::String(text) => {
            if text == prefix {
                *text = target.to_owned();
            } else if let Some(rest) = text
                .strip_prefix(prefix)
                .filter(|rest| rest.starts_with('/'))
            {
                *text = format!("{target}{rest}");
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| rebase_strings(item, prefix, target)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|item| rebase_strings(item, prefix, target)),
        _ => {}
    }
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
}
