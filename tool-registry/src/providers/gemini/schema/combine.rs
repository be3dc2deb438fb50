//! The parts of the portable profile that combine schemas: `$ref` inlining (with recursion
//! detection and the size cap), `allOf` merging, unions (`anyOf`/`oneOf`) and `type` arrays.

use serde_json::{Map, Value};

use super::*;

impl Converter<'_> {
    /// Inlines the target of a `$ref`, converted, with the sibling annotations (such as
    /// `description`) over it; detects recursion.
    pub(super) fn inline(
        &mut self,
        map: &Map<String, Value>,
        reference: &str,
        path: &str,
    ) -> Result<Map<String, Value>, SchemaError> {
        let name = if reference == "#" {
            self.root
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("(the root)")
                .to_owned()
        } else {
            reference.rsplit('/').next().unwrap_or(reference).to_owned()
        };
        if self.inlining.iter().any(|seen| seen == reference) {
            return Err(self.fail(
                path,
                format!(
                    "the type `{name}` contains itself, and Gemini schemas have no references to express a recursive type"
                ),
            ));
        }
        let root = self.root;
        let target = reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .ok_or_else(|| self.fail(path, format!("`$ref` {reference} does not resolve")))?;
        self.inlining.push(reference.to_owned());
        let converted = self.convert(target, path);
        self.inlining.pop();
        let mut merged = converted?;
        let mut siblings = map.clone();
        siblings.shift_remove("$ref");
        for (key, value) in Self::single_keywords(siblings) {
            annotate(&mut merged, key, value);
        }
        Ok(merged)
    }

    pub(super) fn merge_all_of(
        &mut self,
        mut map: Map<String, Value>,
        path: &str,
    ) -> Result<Map<String, Value>, SchemaError> {
        let Some(Value::Array(branches)) = map.shift_remove("allOf") else {
            return Ok(map);
        };
        for branch in &branches {
            let branch = self.convert(branch, path)?;
            if branches.len() > 1 && branch.get("type").and_then(Value::as_str) != Some("object") {
                return Err(self.fail(path, "it is an `allOf` of schemas that are not all objects"));
            }
            for (key, value) in branch {
                match (key.as_str(), map.get_mut(&key)) {
                    ("properties", Some(Value::Object(properties))) => {
                        if let Value::Object(more) = value {
                            for (name, schema) in more {
                                properties.entry(name).or_insert(schema);
                            }
                        }
                    }
                    ("required", Some(Value::Array(required))) => {
                        if let Value::Array(more) = value {
                            for name in more {
                                if !required.contains(&name) {
                                    required.push(name);
                                }
                            }
                        }
                    }
                    ("description", Some(Value::String(kept))) => {
                        if let Value::String(replaced) = &value {
                            *kept = keep_allowed_values(kept, replaced);
                        }
                    }
                    (_, Some(_)) => {}
                    (_, None) => {
                        map.insert(key, value);
                    }
                }
            }
        }
        Ok(map)
    }

    pub(super) fn union(
        &mut self,
        mut outer: Map<String, Value>,
        branches: &[Value],
        path: &str,
    ) -> Result<Map<String, Value>, SchemaError> {
        let nullable = branches.iter().any(is_null_schema);
        let kept: Vec<&Value> = branches.iter().filter(|b| !is_null_schema(b)).collect();
        if kept.is_empty() {
            return Err(self.fail(path, "its only type is `null`"));
        }
        if kept.len() > 1
            && let Some(values) = kept
                .iter()
                .map(|branch| branch.as_object().and_then(string_constant))
                .collect::<Option<Vec<&str>>>()
        {
            outer.insert("type".to_owned(), Value::String("string".to_owned()));
            outer.insert(
                "enum".to_owned(),
                Value::Array(
                    values
                        .into_iter()
                        .map(|v| Value::String(v.to_owned()))
                        .collect(),
                ),
            );
            let mut converted = self.single(outer, path)?;
            if nullable {
                converted.insert("nullable".to_owned(), Value::Bool(true));
            }
            return Ok(converted);
        }
        if kept.len() == 1 {
            let mut branch = self.convert(kept[0], path)?;
            let outer = Self::single_keywords(outer);
            for (key, value) in outer {
                annotate(&mut branch, key, value);
            }
            if nullable {
                branch.insert("nullable".to_owned(), Value::Bool(true));
            }
            return Ok(branch);
        }
        let mut converted = Vec::with_capacity(kept.len());
        for branch in kept {
            let branch = self.convert(branch, path)?;
            if !branch.contains_key("type") {
                return Err(self.fail(path, "a branch of its union has no single type"));
            }
            converted.push(Value::Object(branch));
        }
        outer.shift_remove("type");
        let mut result = Self::single_keywords(outer);
        result.insert("anyOf".to_owned(), Value::Array(converted));
        if nullable {
            result.insert("nullable".to_owned(), Value::Bool(true));
        }
        Ok(result)
    }

    pub(super) fn type_array(
        &mut self,
        mut map: Map<String, Value>,
        kinds: &[Value],
        path: &str,
    ) -> Result<Map<String, Value>, SchemaError> {
        let nullable = kinds.iter().any(|kind| kind == "null");
        let kept: Vec<&str> = kinds
            .iter()
            .filter_map(Value::as_str)
            .filter(|kind| *kind != "null")
            .collect();
        match kept.as_slice() {
            [] => Err(self.fail(path, "its only type is `null`")),
            [one] => {
                map.insert("type".to_owned(), Value::String((*one).to_owned()));
                let mut converted = self.single(map, path)?;
                if nullable {
                    converted.insert("nullable".to_owned(), Value::Bool(true));
                }
                Ok(converted)
            }
            several => {
                map.shift_remove("type");
                let mut branches = Vec::new();
                let mut shared = Map::new();
                let mut typed: Vec<(String, Value)> = Vec::new();
                for (key, value) in map {
                    if keyword_type(&key).is_some() {
                        typed.push((key, value));
                    } else {
                        shared.insert(key, value);
                    }
                }
                for kind in several {
                    let mut branch = Map::new();
                    branch.insert("type".to_owned(), Value::String((*kind).to_owned()));
                    for (key, value) in &typed {
                        let belongs = keyword_type(key)
                            .is_some_and(|t| t == *kind || (t == "number" && *kind == "integer"));
                        if belongs {
                            branch.insert(key.clone(), value.clone());
                        }
                    }
                    branches.push(Value::Object(self.single(branch, path)?));
                }
                let mut result = Self::single_keywords(shared);
                result.insert("anyOf".to_owned(), Value::Array(branches));
                if nullable {
                    result.insert("nullable".to_owned(), Value::Bool(true));
                }
                Ok(result)
            }
        }
    }
}
