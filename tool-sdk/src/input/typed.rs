//! Typed parsing: reading a checked JSON input into the tool's input type.
//!
//! The input is read by value through one deserializer, [`Located`]: strings and nested values
//! are moved into the typed input, never copied, and when serde refuses a value the path of
//! that value (`todos[0].status`) is known without a second reading. It is the only
//! deserializer a tool's input type is instantiated with, so each tool adds one copy of its
//! `Deserialize` code to a build, not one per reader.

use std::cell::RefCell;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde_json::{Map, Value};

/// One step of the path to a refused value.
enum Step {
    Key(String),
    Index(usize),
}

/// The steps from the refused value outwards, pushed as the error travels up.
#[derive(Default)]
pub(crate) struct Trail(RefCell<Vec<Step>>);

impl Trail {
    /// The path, written like `todos[0].activeForm`; empty for the whole input.
    pub(crate) fn path(&self) -> String {
        let mut path = String::new();
        for step in self.0.borrow().iter().rev() {
            match step {
                Step::Key(key) => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                }
                Step::Index(index) => path.push_str(&format!("[{index}]")),
            }
        }
        path
    }

    fn push(&self, step: Step) {
        self.0.borrow_mut().push(step);
    }
}

/// A JSON value read by value, recording in its [`Trail`] where a refusal happened.
pub(crate) struct Located<'t> {
    value: Value,
    trail: &'t Trail,
}

impl<'t> Located<'t> {
    /// `value`, to be read as a whole input.
    pub(crate) fn new(value: Value, trail: &'t Trail) -> Self {
        Self { value, trail }
    }
}

impl<'de> de::Deserializer<'de> for Located<'_> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(value) => visitor.visit_bool(value),
            Value::Number(number) => {
                if let Some(value) = number.as_u64() {
                    visitor.visit_u64(value)
                } else if let Some(value) = number.as_i64() {
                    visitor.visit_i64(value)
                } else {
                    visitor.visit_f64(number.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(text) => visitor.visit_string(text),
            Value::Array(items) => {
                let len = items.len();
                let mut access = Items {
                    items: items.into_iter().enumerate(),
                    trail: self.trail,
                };
                let value = visitor.visit_seq(&mut access)?;
                if access.items.len() == 0 {
                    Ok(value)
                } else {
                    Err(de::Error::invalid_length(len, &"fewer elements in array"))
                }
            }
            Value::Object(map) => visit_object(map, self.trail, visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    /// A unit variant is a string; a variant with content is an object of one key, read as
    /// serde_json reads it (the path stops at the enum's own value).
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::String(variant) => visitor.visit_enum(variant.into_deserializer()),
            other => de::Deserializer::deserialize_enum(other, name, variants, visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

fn visit_object<'de, V: Visitor<'de>>(
    map: Map<String, Value>,
    trail: &Trail,
    visitor: V,
) -> Result<V::Value, serde_json::Error> {
    let len = map.len();
    let mut access = Entries {
        entries: map.into_iter(),
        value: None,
        trail,
    };
    let value = visitor.visit_map(&mut access)?;
    // As serde_json: a visitor that stops early has refused the rest of the object.
    if access.entries.len() == 0 {
        Ok(value)
    } else {
        Err(de::Error::invalid_length(len, &"fewer elements in map"))
    }
}

struct Entries<'t> {
    entries: serde_json::map::IntoIter,
    /// The value of the key just read, and the key.
    value: Option<(String, Value)>,
    trail: &'t Trail,
}

impl<'de> de::MapAccess<'de> for Entries<'_> {
    type Error = serde_json::Error;

    /// A refusal while a key itself is read belongs to the object, not to a property.
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        let read = seed.deserialize(de::value::StrDeserializer::<Self::Error>::new(&key))?;
        self.value = Some((key, value));
        Ok(Some(read))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let (key, value) = self.value.take().unwrap_or_default();
        seed.deserialize(Located::new(value, self.trail))
            .inspect_err(|_| self.trail.push(Step::Key(key)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

struct Items<'t> {
    items: std::iter::Enumerate<std::vec::IntoIter<Value>>,
    trail: &'t Trail,
}

impl<'de> de::SeqAccess<'de> for Items<'_> {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        let Some((index, value)) = self.items.next() else {
            return Ok(None);
        };
        seed.deserialize(Located::new(value, self.trail))
            .map(Some)
            .inspect_err(|_| self.trail.push(Step::Index(index)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}
