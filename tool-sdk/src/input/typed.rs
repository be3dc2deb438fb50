//! Typed parsing: reading a checked JSON input into the tool's input type.
//!
//! The input is read where it is, by reference, through one deserializer, [`Located`]: the
//! caller keeps the input (an orchestrator hands it to hooks and observers after the parse), so
//! nothing is copied before the read, and when serde refuses a value the path of that value
//! (`todos[0].status`) is known without a second reading. Object keys and enum
//! variant names are read by [`Key`], as serde_json reads keys (numbers, booleans and
//! newtypes parsed from the key's text). These two, and serde's string deserializer for an
//! enum used as a key, are the only deserializers a tool's input type is instantiated with,
//! so each tool adds one copy of its `Deserialize` code to a build, not one per reader.

use std::cell::RefCell;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Unexpected, Visitor};
use serde_json::{Map, Number, Value};

use super::policy::Integer;

/// One step of the path to a refused value.
enum Step {
    Key(String),
    Index(usize),
}

/// A JSON number as it is read: an unsigned or signed integer, or a float.
enum Read {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
}

/// The steps from the refused value outwards, pushed as the error travels up, and how numbers
/// are read.
pub(crate) struct Trail {
    steps: RefCell<Vec<Step>>,
    /// Whether a float with no fractional part is read as the integer it equals (input policy
    /// rule 3: the JSON Schema engine takes `3.0` where the schema says `integer`).
    integral_floats: bool,
}

impl Trail {
    /// A trail that reads integral floats as integers when `integral_floats` is set.
    pub(crate) fn new(integral_floats: bool) -> Self {
        Self {
            steps: RefCell::default(),
            integral_floats,
        }
    }

    /// The path, written like `todos[0].activeForm`; empty for the whole input.
    pub(crate) fn path(&self) -> String {
        let mut path = String::new();
        for step in self.steps.borrow().iter().rev() {
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

    /// How `number` is read: as serde_json reads it, except that an integral float is the
    /// integer it equals when the trail says so. Not generic, so each visitor type adds only
    /// its three calls.
    fn number(&self, number: &Number) -> Read {
        if let Some(value) = number.as_u64() {
            return Read::Unsigned(value);
        }
        if let Some(value) = number.as_i64() {
            return Read::Signed(value);
        }
        let float = number.as_f64().unwrap_or(f64::NAN);
        match super::policy::integer_of(float) {
            Some(Integer::Unsigned(value)) if self.integral_floats => Read::Unsigned(value),
            Some(Integer::Signed(value)) if self.integral_floats => Read::Signed(value),
            _ => Read::Float(float),
        }
    }

    fn push(&self, step: Step) {
        self.steps.borrow_mut().push(step);
    }

    /// How many steps are recorded now.
    fn len(&self) -> usize {
        self.steps.borrow().len()
    }

    /// Runs `read`; on success, forgets the steps a refusal caught inside it left behind (a
    /// `deserialize_with` that turns an error into `None`), and on failure adds `step`.
    fn within<T>(
        &self,
        step: impl FnOnce() -> Step,
        read: impl FnOnce() -> Result<T, serde_json::Error>,
    ) -> Result<T, serde_json::Error> {
        let before = self.len();
        match read() {
            Ok(value) => {
                self.steps.borrow_mut().truncate(before);
                Ok(value)
            }
            Err(error) => {
                self.push(step());
                Err(error)
            }
        }
    }
}

/// A JSON value read by reference, recording in its [`Trail`] where a refusal happened.
pub(crate) struct Located<'v, 't> {
    value: &'v Value,
    trail: &'t Trail,
}

impl<'v, 't> Located<'v, 't> {
    /// `value`, to be read as a whole input.
    pub(crate) fn new(value: &'v Value, trail: &'t Trail) -> Self {
        Self { value, trail }
    }
}

/// What an entry whose value was already taken reads as (never met: serde asks for a value
/// once per key).
static MISSING: Value = Value::Null;

impl<'de> de::Deserializer<'de> for Located<'_, '_> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(value) => visitor.visit_bool(*value),
            Value::Number(number) => match self.trail.number(number) {
                Read::Unsigned(value) => visitor.visit_u64(value),
                Read::Signed(value) => visitor.visit_i64(value),
                Read::Float(value) => visitor.visit_f64(value),
            },
            Value::String(text) => visitor.visit_str(text),
            Value::Array(items) => visit_array(items, self.trail, visitor),
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

    /// A unit variant is a string; a variant with content is an object of one key, the
    /// variant's name, whose value is read here too (a refusal inside it is located at
    /// `field.Variant.inner`, as serde_path_to_error locates it).
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let (variant, value) = match self.value {
            Value::String(variant) => (variant.as_str(), None),
            Value::Object(map) => {
                let mut entries = map.iter();
                match (entries.next(), entries.next()) {
                    (Some((variant, value)), None) => (variant.as_str(), Some(value)),
                    _ => {
                        return Err(de::Error::invalid_value(
                            Unexpected::Map,
                            &"map with a single key",
                        ));
                    }
                }
            }
            other => {
                return Err(de::Error::invalid_type(
                    unexpected(other, self.trail),
                    &"string or map",
                ));
            }
        };
        visitor.visit_enum(Variant {
            variant,
            value,
            trail: self.trail,
        })
    }

    /// A struct is read from an object only; anything else is refused here as a value of the
    /// wrong type (the issue says an object is expected, whatever the struct is called).
    /// serde_json also reads a struct from an array of its fields in order; the schema
    /// schemars derives for a struct says `"type": "object"`, so the input check refuses such
    /// an array before serde reads it, and only a schema the author wrote instead
    /// (`#[schemars(with = ..)]`, a hand-written `JsonSchema`) can let one through, to be
    /// refused here. Written out so that a struct's visitor is instantiated for objects only:
    /// not its `visit_seq`, nor the `visit_bool`, `visit_u64`, ... defaults, which saves a copy
    /// of each per tool type.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Object(map) => visit_object(map, self.trail, visitor),
            other => Err(not_an_object(other, self.trail)),
        }
    }

    /// As serde_json: an ignored value is not read.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map identifier
    }
}

/// The refusal of `value` where a struct (a JSON object) is expected. Its wording names no
/// struct, so that the issue it becomes says "object" whatever the struct is called (a struct
/// named `FilePath` is no string).
fn not_an_object(value: &Value, trail: &Trail) -> serde_json::Error {
    de::Error::invalid_type(unexpected(value, trail), &"a struct, written as an object")
}

/// What serde_json calls `value` in its refusals (an integral float as its integer when
/// `trail` reads it so).
fn unexpected<'v>(value: &'v Value, trail: &Trail) -> Unexpected<'v> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(value) => Unexpected::Bool(*value),
        Value::Number(number) => match trail.number(number) {
            Read::Unsigned(value) => Unexpected::Unsigned(value),
            Read::Signed(value) => Unexpected::Signed(value),
            Read::Float(value) => Unexpected::Float(value),
        },
        Value::String(text) => Unexpected::Str(text),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

fn visit_array<'de, V: Visitor<'de>>(
    items: &[Value],
    trail: &Trail,
    visitor: V,
) -> Result<V::Value, serde_json::Error> {
    let len = items.len();
    let mut access = Items {
        items: items.iter().enumerate(),
        trail,
    };
    // A `match` rather than `?`: `?` would add its `Try` impls per visitor type.
    match visitor.visit_seq(&mut access) {
        Ok(value) if access.items.len() == 0 => Ok(value),
        Ok(_) => Err(de::Error::invalid_length(len, &"fewer elements in array")),
        Err(error) => Err(error),
    }
}

fn visit_object<'de, V: Visitor<'de>>(
    map: &Map<String, Value>,
    trail: &Trail,
    visitor: V,
) -> Result<V::Value, serde_json::Error> {
    let mut access = Entries::new(map, trail);
    // As serde_json: a visitor that stops early has refused the rest of the object. (A
    // `match` rather than `?`, as in `visit_array`; the length check is `Entries::finish`, so
    // that each visitor type adds only the call.)
    match visitor.visit_map(&mut access) {
        Ok(value) => match access.finish() {
            None => Ok(value),
            Some(error) => Err(error),
        },
        Err(error) => Err(error),
    }
}

struct Entries<'v, 't> {
    entries: serde_json::map::Iter<'v>,
    /// How many entries the object had.
    len: usize,
    /// The value of the key just read, and the key.
    value: Option<(&'v str, &'v Value)>,
    trail: &'t Trail,
}

/// The steps of reading an object that do not depend on the key or value types: one copy in a
/// debug build, shared by every tool type; `#[inline]` so that an optimised build inlines them
/// into each generic caller in the tool's crate (as calls into tool-sdk, they cost dispatch
/// about 30 ns a call: BENCHMARKS.md, "Dispatch after the lean-core changes").
impl<'v, 't> Entries<'v, 't> {
    #[inline]
    fn new(map: &'v Map<String, Value>, trail: &'t Trail) -> Self {
        Self {
            len: map.len(),
            entries: map.iter(),
            value: None,
            trail,
        }
    }

    /// Takes the next entry, keeps its key and value for `next_value_seed`, and returns the
    /// key; `None` past the last entry. Not generic, so each key type adds only its read.
    #[inline]
    fn advance(&mut self) -> Option<&'v str> {
        let (key, value) = self.entries.next()?;
        self.value = Some((key.as_str(), value));
        Some(key.as_str())
    }

    /// serde_json's refusal of an object the visitor stopped reading early.
    #[inline]
    fn finish(self) -> Option<serde_json::Error> {
        (self.entries.len() != 0)
            .then(|| de::Error::invalid_length(self.len, &"fewer elements in map"))
    }
}

impl<'de> de::MapAccess<'de> for Entries<'_, '_> {
    type Error = serde_json::Error;

    /// A refusal while a key itself is read belongs to the object, not to a property.
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        match self.advance() {
            Some(key) => match seed.deserialize(Key(key)) {
                Ok(read) => Ok(Some(read)),
                Err(error) => Err(error),
            },
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let (key, value) = self.value.take().unwrap_or(("", &MISSING));
        let trail = self.trail;
        trail.within(
            || Step::Key(key.to_owned()),
            || seed.deserialize(Located::new(value, trail)),
        )
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

struct Items<'v, 't> {
    items: std::iter::Enumerate<std::slice::Iter<'v, Value>>,
    trail: &'t Trail,
}

impl<'de> de::SeqAccess<'de> for Items<'_, '_> {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        let Some((index, value)) = self.items.next() else {
            return Ok(None);
        };
        let trail = self.trail;
        trail
            .within(
                || Step::Index(index),
                || seed.deserialize(Located::new(value, trail)),
            )
            .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// An externally tagged enum's variant: its name and, unless it was written as a bare string,
/// its content.
struct Variant<'v, 't> {
    variant: &'v str,
    value: Option<&'v Value>,
    trail: &'t Trail,
}

impl<'de, 'v, 't> de::EnumAccess<'de> for Variant<'v, 't> {
    type Error = serde_json::Error;
    type Variant = Content<'v, 't>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Content<'v, 't>), Self::Error> {
        let read = seed.deserialize(Key(self.variant))?;
        let content = Content {
            variant: self.variant,
            value: self.value,
            trail: self.trail,
        };
        Ok((read, content))
    }
}

/// The content of a variant; a refusal inside it is located under the variant's name.
struct Content<'v, 't> {
    variant: &'v str,
    value: Option<&'v Value>,
    trail: &'t Trail,
}

impl<'v> Content<'v, '_> {
    /// Reads the content with `read`, or refuses a bare string where `expected` content is.
    fn read<T>(
        self,
        expected: &'static str,
        read: impl FnOnce(&'v Value, &Trail) -> Result<T, serde_json::Error>,
    ) -> Result<T, serde_json::Error> {
        let trail = self.trail;
        let variant = self.variant;
        trail.within(
            || Step::Key(variant.to_owned()),
            || match self.value {
                Some(value) => read(value, trail),
                None => Err(de::Error::invalid_type(Unexpected::UnitVariant, &expected)),
            },
        )
    }
}

impl<'de> de::VariantAccess<'de> for Content<'_, '_> {
    type Error = serde_json::Error;

    fn unit_variant(self) -> Result<(), Self::Error> {
        if self.value.is_none() {
            return Ok(());
        }
        self.read("unit variant", |value, trail| {
            de::Deserialize::deserialize(Located::new(value, trail))
        })
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        self.read("newtype variant", |value, trail| {
            seed.deserialize(Located::new(value, trail))
        })
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.read("tuple variant", |value, trail| match value {
            Value::Array(items) if items.is_empty() => visitor.visit_unit(),
            Value::Array(items) => visit_array(items, trail, visitor),
            other => Err(de::Error::invalid_type(
                unexpected(other, trail),
                &"tuple variant",
            )),
        })
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.read("struct variant", |value, trail| match value {
            Value::Object(map) => visit_object(map, trail, visitor),
            other => Err(de::Error::invalid_type(
                unexpected(other, trail),
                &"struct variant",
            )),
        })
    }
}

/// An object key (or a variant's name), read as serde_json's map-key reader reads it: a string,
/// except that a number or boolean asked for is parsed from its text, and an option or newtype
/// is the key itself.
struct Key<'k>(&'k str);

/// The number a key's text spells, or serde_json's refusal of a key that is not one.
fn numeric_key(key: &str) -> Result<Number, serde_json::Error> {
    let refused = || de::Error::custom("invalid value: expected key to be a number in quotes");
    if !key.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return Err(refused());
    }
    key.parse::<Number>().map_err(|_| refused())
}

macro_rules! numeric_key {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            de::Deserializer::deserialize_any(numeric_key(self.0)?, visitor)
        })*
    };
}

impl<'de> de::Deserializer<'de> for Key<'_> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_str(self.0)
    }

    numeric_key!(
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    );

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            other => Err(de::Error::invalid_type(Unexpected::Str(other), &visitor)),
        }
    }

    /// A key is never null.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        de::Deserializer::deserialize_enum(
            IntoDeserializer::<Self::Error>::into_deserializer(self.0),
            name,
            variants,
            visitor,
        )
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}
