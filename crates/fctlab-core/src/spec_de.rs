//! Deserializing `kind`-tagged tables with full field paths in errors.
//!
//! serde's internally tagged enums (`#[serde(tag = "kind")]`) buffer the table and read the
//! variant from that buffer, out of `serde_path_to_error`'s sight, so an error inside a variant
//! would only name the enclosing field. Instead, enums derive the default (externally tagged)
//! form and the fields holding them use `#[serde(deserialize_with = "...")]` with the
//! functions below: they take `kind` out of the table, read `{kind: rest}` with path tracking,
//! and put the inner path before the message (`mean: expected a size ...`). [`crate::scenario::parse`]
//! joins those prefixes into one dotted path.

use serde::de::{self, DeserializeOwned, Deserializer};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// `T` from a `kind`-tagged table (the kind taken out, the rest read as `{kind: rest}`).
pub fn from_value<T: DeserializeOwned, E: de::Error>(value: Value) -> Result<T, E> {
    let mut table = match value {
        Value::Object(t) => t,
        other => return Err(E::custom(format!("expected a table with a `kind`, got {other}"))),
    };
    let kind = match table.remove("kind") {
        Some(Value::String(k)) => k,
        Some(other) => return Err(E::custom(format!("kind: expected a string, got {other}"))),
        None => return Err(E::missing_field("kind")),
    };
    let mut outer = Map::new();
    outer.insert(kind, Value::Object(table));
    serde_path_to_error::deserialize(Value::Object(outer)).map_err(|e| {
        // The first path segment is the variant name: drop it.
        let path = e.path().to_string();
        let inner = path.split_once('.').map(|(_, rest)| rest).unwrap_or("");
        let msg = e.inner().to_string();
        if inner.is_empty() || path == "." {
            E::custom(msg)
        } else {
            E::custom(format!("{inner}: {msg}"))
        }
    })
}

/// A `kind`-tagged table.
pub fn tagged<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<T, D::Error> {
    from_value(Value::deserialize(d)?)
}

/// An optional `kind`-tagged table.
pub fn tagged_opt<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(v) => from_value(v).map(Some),
    }
}

/// A list of `kind`-tagged tables; errors name the index (`[2].sizes: ...`).
pub fn tagged_vec<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Vec<T>, D::Error> {
    let items = Vec::<Value>::deserialize(d)?;
    items
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            from_value::<T, serde_json::Error>(v)
                .map_err(|e| de::Error::custom(format!("[{i}]: {}", strip_location(&e))))
        })
        .collect()
}

/// A map of names to `kind`-tagged tables.
pub fn tagged_map<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<BTreeMap<String, T>, D::Error> {
    let items = BTreeMap::<String, Value>::deserialize(d)?;
    items
        .into_iter()
        .map(|(k, v)| {
            let t = from_value::<T, serde_json::Error>(v)
                .map_err(|e| de::Error::custom(format!("{k}: {}", strip_location(&e))))?;
            Ok((k, t))
        })
        .collect()
}

/// `T` read from one table with path tracking: an error names the path inside the table
/// (`delayed_ack.count`) and says what was expected, as [`crate::scenario::parse`] does for
/// the whole scenario.
pub fn from_table<T: DeserializeOwned>(table: Map<String, Value>) -> crate::error::SpecResult<T> {
    serde_path_to_error::deserialize(Value::Object(table)).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let (path, msg) = join_path(path, strip_location(e.inner()));
        crate::error::SpecError::new(path, msg)
    })
}

/// The keys of struct `T` as serde's derive lists them (its fields after renames): what a
/// table split between several structs gives each (a transport's TCP part and its
/// protocol's part).
pub fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut catcher = FieldCatcher(&[]);
    let _ = T::deserialize(&mut catcher);
    catcher.0
}

/// A deserializer that only records the field list a struct asks for.
struct FieldCatcher(&'static [&'static str]);

impl<'de> Deserializer<'de> for &mut FieldCatcher {
    type Error = de::value::Error;

    fn deserialize_any<V: de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        self.0 = fields;
        Err(de::Error::custom("fields recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// A serde_json error's message without its " at line L column C" suffix.
pub fn strip_location(e: &impl std::fmt::Display) -> String {
    let mut msg = e.to_string();
    if let Some(i) = msg.find(" at line ") {
        msg.truncate(i);
    }
    msg
}

/// The message of a serde_json error about `json`, without its location; a NaN or an infinity
/// is named. JSON has neither: Python's json module writes them as the bare words `NaN`,
/// `Infinity` and `-Infinity` (from a TOML `nan` or `inf`, or a float in a dict), which
/// serde_json refuses with a bare "expected value".
pub fn json_message(json: &str, e: &serde_json::Error) -> String {
    if e.classify() == serde_json::error::Category::Syntax {
        if let Some(word) = non_finite_at(json, e.line(), e.column()) {
            return format!("expected a finite number, got {word}");
        }
    }
    strip_location(e)
}

/// The non-finite word at (1-based) `line` and `column` of `json`, or just before it.
fn non_finite_at(json: &str, line: usize, column: usize) -> Option<&'static str> {
    let text = json.split('\n').nth(line.checked_sub(1)?)?;
    // serde_json points at the character it could not take: the word's first letter, or
    // (after a sign) the one after it.
    (column.saturating_sub(2)..=column).find_map(|at| {
        let rest = text.get(at..)?;
        ["-Infinity", "Infinity", "NaN"].into_iter().find(|w| rest.starts_with(w))
    })
}

/// Splits `"a.b[0]: c: message"` into the path `a.b[0].c` appended to `path`, and the message.
pub fn join_path(mut path: String, mut msg: String) -> (String, String) {
    while let Some((head, rest)) = msg.split_once(": ") {
        let is_path = !head.is_empty()
            && head.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']' | '-'));
        if !is_path {
            break;
        }
        if head.starts_with('[') || path.is_empty() {
            path.push_str(head);
        } else {
            path.push('.');
            path.push_str(head);
        }
        msg = rest.to_string();
    }
    (path, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "snake_case", deny_unknown_fields)]
    enum Shape {
        Square { side: u32 },
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Holder {
        #[serde(deserialize_with = "tagged_vec")]
        shapes: Vec<Shape>,
    }

    fn err(json: &str) -> (String, String) {
        let de = &mut serde_json::Deserializer::from_str(json);
        let e = serde_path_to_error::deserialize::<_, Holder>(de).unwrap_err();
        join_path(e.path().to_string(), strip_location(e.inner()))
    }

    #[test]
    fn errors_inside_a_variant_keep_their_full_path() {
        let (path, msg) = err(r#"{"shapes": [{"kind": "square", "side": 1}, {"kind": "square", "side": -1}]}"#);
        assert_eq!(path, "shapes[1].side");
        assert!(msg.contains("-1"), "{msg}");
    }

    #[test]
    fn nan_and_infinities_are_named() {
        for (text, word) in [
            (r#"{"shapes": [{"kind": "square", "side": NaN}]}"#, "NaN"),
            ("{\"shapes\":\n [{\"kind\": \"square\",\n \"side\": Infinity}]}", "Infinity"),
            (r#"{"shapes": [{"kind": "square", "side": -Infinity}]}"#, "-Infinity"),
        ] {
            let de = &mut serde_json::Deserializer::from_str(text);
            let e = serde_path_to_error::deserialize::<_, Holder>(de).unwrap_err();
            let (path, msg) = join_path(e.path().to_string(), json_message(text, e.inner()));
            assert_eq!(path, "shapes[0].side", "{text}");
            assert_eq!(msg, format!("expected a finite number, got {word}"), "{text}");
        }
        // Other syntax errors keep serde_json's message.
        let e = serde_json::from_str::<Holder>(r#"{"shapes": [oops]}"#).unwrap_err();
        assert_eq!(json_message(r#"{"shapes": [oops]}"#, &e), "expected value");
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Part {
        side: u32,
        #[serde(rename = "fill-color", default)]
        fill: Option<String>,
    }

    #[test]
    fn field_names_are_the_keys_after_renames() {
        assert_eq!(field_names::<Part>(), &["side", "fill-color"]);
    }

    #[test]
    fn a_table_error_names_its_inner_path() {
        let table = serde_json::json!({"shapes": [{"kind": "square", "side": "x"}]});
        let Value::Object(t) = table else { unreachable!() };
        let e = from_table::<Holder>(t).unwrap_err();
        assert_eq!(e.field, "shapes[0].side");
        assert!(e.message.contains("invalid type"), "{e}");
    }

    #[test]
    fn unknown_kind_and_field_are_named() {
        let (path, msg) = err(r#"{"shapes": [{"kind": "circle"}]}"#);
        assert_eq!(path, "shapes[0]");
        assert!(msg.contains("unknown variant `circle`") && msg.contains("square"), "{msg}");
        let (path, msg) = err(r#"{"shapes": [{"kind": "square", "side": 1, "color": 2}]}"#);
        assert_eq!(path, "shapes[0].color");
        assert!(msg.contains("unknown field `color`"), "{msg}");
        let (_, msg) = err(r#"{"shapes": [{"side": 1}]}"#);
        assert!(msg.contains("missing field `kind`"), "{msg}");
    }
}
