//! Message content: a string or multimodal parts (text, image, audio, video, document).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

/// `string | ContentPart[]` (user and tool messages, `TOOL_CALL_RESULT.content`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Parts(Vec<ContentPart>),
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

/// One multimodal content part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ContentPart {
    Text(TextPart),
    Image(MediaPart),
    Audio(MediaPart),
    Video(MediaPart),
    Document(MediaPart),
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

/// Where a media part's bytes are: inline base64, a URL, or a provider file handle.
#[skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
pub enum PartSource {
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
