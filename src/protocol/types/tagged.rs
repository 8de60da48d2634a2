//! The parse of the protocol's tagged unions (`EventKind`, `Message`, `ContentPart`,
//! `PartSource`, the outcomes) and of `Content`, through `serde_json::Value` alone.
//!
//! serde's derived parse of an internally tagged or untagged enum buffers its input in serde's
//! private `Content` tree and parses every variant from that buffer: the variants' code and the
//! code of every field type are compiled once more for it, beside their copies for `Value` and
//! for JSON text. In the page's WASM that buffer's copies were 195 KB of the 345 KB of parsing
//! code (2026-12-04, `twiggy`). Here a union is read as a `Value` (what every parse in the
//! protocol starts from), its tag looked up, and its body parsed by derived code for `Value`
//! only. The messages are the same as serde's (`missing field`, `unknown variant`), and a body's
//! unknown members are ignored, as before.

use std::fmt;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeOwned, MapAccess, Unexpected, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// Reads a JSON object from `d` as a `Value`, then `parse`s it. Inside the deserializer's own
/// visit, so that an error `parse` finds in JSON text carries the object's position.
pub(crate) fn deserialize_object<'de, D: Deserializer<'de>, T>(
    d: D,
    expecting: &'static str,
    parse: fn(Value) -> Result<T, serde_json::Error>,
) -> Result<T, D::Error> {
    d.deserialize_map(ObjectVisitor { expecting, parse })
}

struct ObjectVisitor<T> {
    expecting: &'static str,
    parse: fn(Value) -> Result<T, serde_json::Error>,
}

impl<'de, T> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_map<A: MapAccess<'de>>(self, access: A) -> Result<T, A::Error> {
        let map = Map::deserialize(MapAccessDeserializer::new(access))?;
        (self.parse)(Value::Object(map)).map_err(de::Error::custom)
    }
}

/// `T` parsed from `value` by its derived code for `Value`, its error carried into `E`.
pub(crate) fn parse<T: DeserializeOwned, E: de::Error>(value: Value) -> Result<T, E> {
    T::deserialize(value).map_err(E::custom)
}

/// The body of an internally tagged union parsed as the variant `tag` of `B`, an externally
/// tagged enum with the same variants (see [`struct_variants`]): the tag is taken out of the
/// object and wraps it (`{"TAG": {…}}`, the form whose variants serde parses without a buffer).
pub(crate) fn parse_variant<B: DeserializeOwned, E: de::Error>(
    value: Value,
    tag: &'static str,
    expecting: &'static str,
) -> Result<B, E> {
    let Value::Object(mut map) = value else {
        return Err(E::invalid_type(unexpected(&value), &expecting));
    };
    let name = match map.remove(tag) {
        Some(Value::String(s)) => s,
        Some(other) => return Err(E::invalid_type(unexpected(&other), &"a string tag")),
        None => return Err(E::missing_field(tag)),
    };
    let mut wrapped = Map::with_capacity(1);
    wrapped.insert(name, Value::Object(map));
    parse(Value::Object(wrapped))
}

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (_, Some(i), _) => Unexpected::Signed(i),
            (_, _, Some(f)) => Unexpected::Float(f),
            _ => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// An internally tagged enum whose variants all have named fields, with its parse through
/// `Value` ([`parse_variant`]): declares the enum as written (its attributes, which name the
/// tag for `Serialize`, first), a private externally tagged twin `$body` with the same variants
/// and fields (what the parse reads, with the serde attributes given after its name), the move
/// from the twin to the enum, `parse_value` and `Deserialize`. A variant without fields has an
/// empty body in the twin (`{"cancelled": {}}`).
macro_rules! struct_variants {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident : tag $tag:literal, parsed as $body:ident
            #[serde($($body_serde:tt)*)]
        {
            $(
                $(#[$vattr:meta])*
                $variant:ident $({ $( $(#[$fattr:meta])* $field:ident : $ty:ty ),* $(,)? })?
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $( $(#[$vattr])* $variant $({ $( $(#[$fattr])* $field: $ty ),* })?, )*
        }

        #[derive(serde::Deserialize)]
        #[serde($($body_serde)*)]
        enum $body {
            $( $variant { $($( $(#[$fattr])* $field: $ty ),*)? }, )*
        }

        impl From<$body> for $name {
            fn from(body: $body) -> Self {
                match body {
                    $( $body::$variant { $($($field),*)? } => $name::$variant $({ $($field),* })?, )*
                }
            }
        }

        impl $name {
            /// Parse the wire JSON object (what `Deserialize` does, without first reading the
            /// value as a `Value` again).
            pub fn parse_value(value: serde_json::Value) -> Result<Self, serde_json::Error> {
                $crate::protocol::types::tagged::parse_variant::<$body, serde_json::Error>(
                    value,
                    $tag,
                    concat!("internally tagged enum ", stringify!($name)),
                )
                .map($name::from)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::protocol::types::tagged::deserialize_object(
                    d,
                    concat!("internally tagged enum ", stringify!($name)),
                    $name::parse_value,
                )
            }
        }
    };
}
pub(crate) use struct_variants;

/// [`struct_variants`] for an internally tagged enum whose variants each hold one struct
/// (`Message`, `ContentPart`): the twin's variants hold the same structs.
macro_rules! newtype_variants {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident : tag $tag:literal, parsed as $body:ident
            #[serde($($body_serde:tt)*)]
        {
            $( $(#[$vattr:meta])* $variant:ident($ty:ty) ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $( $(#[$vattr])* $variant($ty) ),*
        }

        #[derive(serde::Deserialize)]
        #[serde($($body_serde)*)]
        enum $body {
            $( $variant($ty) ),*
        }

        impl $name {
            /// Parse the wire JSON object (what `Deserialize` does, without first reading the
            /// value as a `Value` again).
            pub fn parse_value(value: serde_json::Value) -> Result<Self, serde_json::Error> {
                let body = $crate::protocol::types::tagged::parse_variant::<
                    $body,
                    serde_json::Error,
                >(
                    value, $tag, concat!("internally tagged enum ", stringify!($name))
                )?;
                Ok(match body {
                    $( $body::$variant(inner) => $name::$variant(inner) ),*
                })
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::protocol::types::tagged::deserialize_object(
                    d,
                    concat!("internally tagged enum ", stringify!($name)),
                    $name::parse_value,
                )
            }
        }
    };
}
pub(crate) use newtype_variants;

#[cfg(test)]
mod tests;
