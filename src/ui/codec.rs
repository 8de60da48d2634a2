//! How a resource's value crosses from the server-rendered page to the browser: JSON, as
//! Leptos's default codec writes it, read back through `serde_json::Value`. Read straight from
//! the text, every type a resource carries would have its parse compiled once more for JSON
//! text, beside the copy for `Value` the rest of the page uses (see
//! `protocol::types::tagged`).

use codee::{Decoder, Encoder};
use serde::{de::DeserializeOwned, Serialize};

/// The codec of the page's resources ([`Resource`](leptos::prelude::Resource)`<T, ViaValue>`).
pub struct ViaValue;

impl<T: Serialize> Encoder<T> for ViaValue {
    type Error = serde_json::Error;
    type Encoded = String;

    fn encode(value: &T) -> Result<String, serde_json::Error> {
        serde_json::to_string(value)
    }
}

impl<T: DeserializeOwned> Decoder<T> for ViaValue {
    type Error = serde_json::Error;
    type Encoded = str;

    fn decode(text: &str) -> Result<T, serde_json::Error> {
        serde_json::from_str::<serde_json::Value>(text).and_then(T::deserialize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::AgentSummary;

    #[test]
    fn a_value_comes_back_as_it_went() {
        let agents: Vec<AgentSummary> = serde_json::from_value(serde_json::json!([
            {"id": "demo", "name": "Demo", "description": "d", "url": "/api/agents/demo", "host": "h"}
        ]))
        .unwrap();
        let text = <ViaValue as Encoder<Vec<AgentSummary>>>::encode(&agents).unwrap();
        let back: Vec<AgentSummary> = ViaValue::decode(&text).unwrap();
        assert_eq!(back, agents);
        assert!(<ViaValue as Decoder<Vec<AgentSummary>>>::decode("[{").is_err());
    }
}
