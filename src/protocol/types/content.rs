//! Message content: a string or multimodal parts (text, image, audio, video, document).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

use super::tagged::{newtype_variants, struct_variants};

/// `string | ContentPart[]` (user and tool messages, `TOOL_CALL_RESULT.content`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Parts(Vec<ContentPart>),
}

/// The string, or the parts read one by one (serde's untagged parse would buffer the value
/// first: see [`super::tagged`]).
impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> serde::de::Visitor<'de> for ContentVisitor {
            type Value = Content;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or an array of content parts")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Content, E> {
                Ok(Content::Text(s.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Content, E> {
                Ok(Content::Text(s))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Content, A::Error> {
                Vec::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
                    .map(Content::Parts)
            }
        }
        d.deserialize_any(ContentVisitor)
    }
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

impl Content {
    /// The text of the content: the string, or the text parts joined by newlines.
    pub fn text(&self) -> String {
        match self {
            Content::Text(s) => s.clone(),
            Content::Parts(parts) => parts
                .iter()
                .filter_map(|p| match p {
                    ContentPart::Text(t) => Some(t.text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

newtype_variants! {
/// One multimodal content part.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ContentPart: tag "type", parsed as PartBody
    #[serde(rename_all = "lowercase")]
{
    Text(TextPart),
    Image(MediaPart),
    Audio(MediaPart),
    Video(MediaPart),
    Document(MediaPart),
}
}

/// The part type names 1.1 defines (anything else is stripped with a warning on input).
pub const CONTENT_PART_TYPES: [&str; 5] = ["text", "image", "audio", "video", "document"];

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextPart {
    pub text: String,
    pub id: Option<String>,
    pub metadata: Option<Value>,
}

#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaPart {
    pub source: PartSource,
    pub id: Option<String>,
    pub metadata: Option<Value>,
}

struct_variants! {
/// Where a media part's bytes are: inline base64, a URL, or a provider file handle.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
pub enum PartSource: tag "type", parsed as SourceBody
    #[serde(rename_all = "lowercase", rename_all_fields = "camelCase")]
{
    Data {
        value: String,
        mime_type: String,
    },
    Url {
        value: String,
        mime_type: Option<String>,
    },
    File {
        value: String,
        provider: Option<String>,
        mime_type: Option<String>,
    },
}
}
