//! The parse of the protocol's tagged unions (`EventKind`, `Message`, `ContentPart`,
//! `PartSource`, the outcomes) and of `Content`, without serde's buffer.
//!
//! serde's derived parse of an internally tagged or untagged enum buffers its input in serde's
//! private `Content` tree and parses every variant from that buffer: the variants' code and the
//! code of every field type are compiled once more for it, beside their copies for `Value` and
//! for JSON text. In the page's WASM that buffer's copies were 195 KB of the 351 KB of parsing
//! code (2026-12-04, `twiggy`). Here a union's object — a `Value`'s map, or the members read
//! from JSON text in their order, nothing hashed — has its tag taken out, and a derived
//! externally tagged twin of the enum reads the tag as the variant's name and the other members
//! as its body, through one serde `MapDeserializer` over them whose values are `Value`s: each
//! body's code is compiled once, for that one deserializer. The messages are serde's
//! (`missing field`, `unknown variant`), a body's unknown members are ignored as before, and an
//! array is not taken for a union (serde took `["cancelled"]`, the tag first); `tagged/tests.rs`
//! holds each union to serde's derived parse.

use std::fmt;

use serde::de::value::{MapDeserializer, StringDeserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, Unexpected,
    VariantAccess, Visitor,
};
use serde::Deserializer;
use serde_json::{Map, Value};

/// A JSON object about to be parsed as a union: a `Value`'s map, or the members read from JSON
/// text in their order.
pub(crate) enum Object {
    Map(Map<String, Value>),
    List(Vec<(String, Value)>),
}

impl Object {
    /// `value` as an object, or the error of a union (`expecting`) given anything else.
    pub(crate) fn of(value: Value, expecting: &'static str) -> Result<Object, serde_json::Error> {
        match value {
            Value::Object(map) => Ok(Object::Map(map)),
            other => Err(de::Error::invalid_type(unexpected(&other), &expecting)),
        }
    }

    /// Takes the member `key` out; a key given twice (JSON text may) is refused, as serde's
    /// buffered parse refused a repeated tag, so that no reader of the same text can take the
    /// union for another variant.
    fn take(&mut self, key: &'static str) -> Result<Option<Value>, serde_json::Error> {
        match self {
            Object::Map(map) => Ok(map.remove(key)),
            Object::List(list) => {
                let mut found = list.iter().enumerate().filter(|(_, (k, _))| k == key);
                match (found.next().map(|(i, _)| i), found.next()) {
                    (_, Some(_)) => Err(de::Error::duplicate_field(key)),
                    (Some(i), None) => Ok(Some(list.remove(i).1)),
                    (None, None) => Ok(None),
                }
            }
        }
    }
}

/// Reads a JSON object from `d` (its members as they come, nothing hashed), then `parse`s it.
/// Inside the deserializer's own visit, so that an error `parse` finds in JSON text carries the
/// object's position.
pub(crate) fn deserialize_object<'de, D: Deserializer<'de>, T>(
    d: D,
    expecting: &'static str,
    parse: fn(Object) -> Result<T, serde_json::Error>,
) -> Result<T, D::Error> {
    d.deserialize_map(ObjectVisitor { expecting, parse })
}

struct ObjectVisitor<T> {
    expecting: &'static str,
    parse: fn(Object) -> Result<T, serde_json::Error>,
}

impl<'de, T> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<T, A::Error> {
        let mut members = Vec::with_capacity(access.size_hint().unwrap_or(8).min(64));
        while let Some(member) = access.next_entry::<String, Value>()? {
            members.push(member);
        }
        (self.parse)(Object::List(members)).map_err(de::Error::custom)
    }
}

/// `object` parsed as the variant its member `tag` names of `B`, an externally tagged enum with
/// the union's variants (see [`struct_variants`]): `B`'s derived code reads the tag as the
/// variant's name and the other members as its body, without a buffer or a second map.
pub(crate) fn parse_variant<B: DeserializeOwned>(
    mut object: Object,
    tag: &'static str,
) -> Result<B, serde_json::Error> {
    let name = match object.take(tag)? {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(de::Error::invalid_type(unexpected(&other), &"a string tag"));
        }
        None => return Err(de::Error::missing_field(tag)),
    };
    let members = match object {
        Object::Map(map) => Members::Map(map.into_iter()),
        Object::List(list) => Members::List(list.into_iter()),
    };
    B::deserialize(Tagged {
        name,
        body: MapDeserializer::new(members),
    })
}

/// The members of a union's body, from either form of [`Object`] (one type, so that every
/// body's derived code is compiled once).
enum Members {
    Map(serde_json::map::IntoIter),
    List(std::vec::IntoIter<(String, Value)>),
}

impl Iterator for Members {
    type Item = (String, Value);

    fn next(&mut self) -> Option<(String, Value)> {
        match self {
            Members::Map(i) => i.next(),
            Members::List(i) => i.next(),
        }
    }
}

type Body = MapDeserializer<'static, Members, serde_json::Error>;

/// A union's variant name and body, read as an externally tagged enum's variant.
struct Tagged {
    name: String,
    body: Body,
}

impl<'de> Deserializer<'de> for Tagged {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl<'de> EnumAccess<'de> for Tagged {
    type Error = serde_json::Error;
    type Variant = VariantBody;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, VariantBody), serde_json::Error> {
        let name: StringDeserializer<serde_json::Error> = self.name.into_deserializer();
        Ok((seed.deserialize(name)?, VariantBody(self.body)))
    }
}

struct VariantBody(Body);

impl<'de> VariantAccess<'de> for VariantBody {
    type Error = serde_json::Error;

    fn unit_variant(self) -> Result<(), serde_json::Error> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, serde_json::Error> {
        seed.deserialize(self.0)
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        Err(de::Error::invalid_type(Unexpected::Map, &"a tuple variant"))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_map(self.0)
    }
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

/// An internally tagged enum whose variants all have named fields, with its parse without
/// serde's buffer ([`parse_variant`]): declares the enum as written (its attributes, which name the
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

        $crate::protocol::types::tagged::parse_impls!($name, |object| {
            $crate::protocol::types::tagged::parse_variant::<$body>(object, $tag)
                .map($name::from)
        });
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

        $crate::protocol::types::tagged::parse_impls!($name, |object| {
            let body = $crate::protocol::types::tagged::parse_variant::<$body>(object, $tag)?;
            Ok(match body {
                $( $body::$variant(inner) => $name::$variant(inner) ),*
            })
        });
    };
}
pub(crate) use newtype_variants;

/// A union's `parse_value` and `Deserialize`, both through `parse_object` (an [`Object`] to the
/// union).
macro_rules! parse_impls {
    ($name:ident, $parse_object:expr) => {
        impl $name {
            const EXPECTING: &'static str = concat!("internally tagged enum ", stringify!($name));

            fn parse_object(
                object: $crate::protocol::types::tagged::Object,
            ) -> Result<Self, serde_json::Error> {
                let parse: fn(
                    $crate::protocol::types::tagged::Object,
                ) -> Result<Self, serde_json::Error> = $parse_object;
                parse(object)
            }

            /// Parse the wire JSON object (what `Deserialize` does, without reading the value
            /// as a `Value` again).
            pub fn parse_value(value: serde_json::Value) -> Result<Self, serde_json::Error> {
                $crate::protocol::types::tagged::Object::of(value, Self::EXPECTING)
                    .and_then(Self::parse_object)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::protocol::types::tagged::deserialize_object(
                    d,
                    Self::EXPECTING,
                    Self::parse_object,
                )
            }
        }
    };
}
pub(crate) use parse_impls;

#[cfg(test)]
mod tests;
