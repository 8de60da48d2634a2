//! Reading an MCP App activity: where its `ui://` resource is, and the HTML and CSP of the read.

use serde_json::{json, Map, Value};

use crate::wire::frame::FrameCsp;

/// The largest HTML resource run.
pub const MAX_RESOURCE_BYTES: usize = 2 << 20;

/// Where an app's resource is and what its tool was given and returned.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AppRef {
    pub uri: Option<String>,
    pub server_hash: Option<String>,
    pub server_id: Option<String>,
    pub tool_input: Value,
    pub result: Option<Value>,
}

fn meta_uri(v: Option<&Value>) -> Option<String> {
    let meta = v?.get("_meta")?;
    meta.get("ui")
        .and_then(|u| u.get("resourceUri"))
        .or_else(|| meta.get("ui/resourceUri"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Read the activity's content.
pub fn app_ref(content: &Map<String, Value>) -> AppRef {
    let text = |k: &str| content.get(k).and_then(Value::as_str).map(str::to_string);
    let whole = Value::Object(content.clone());
    let uri = text("resourceUri")
        .or_else(|| meta_uri(Some(&whole)))
        .or_else(|| meta_uri(content.get("result")))
        .filter(|u| u.starts_with("ui://") && u.len() <= 2048);
    AppRef {
        uri,
        server_hash: text("serverHash"),
        server_id: text("serverId"),
        tool_input: content
            .get("toolInput")
            .cloned()
            .unwrap_or_else(|| json!({})),
        result: content.get("result").cloned().filter(|r| !r.is_null()),
    }
}

/// The HTML and policy of a `resources/read` result.
pub fn resource_of(result: &Value) -> Result<(String, FrameCsp), String> {
    let first = result
        .get("contents")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or("the agent's answer has no resource contents")?;
    let mime = first.get("mimeType").and_then(Value::as_str).unwrap_or("");
    if !mime.starts_with("text/html") {
        return Err(format!(
            "the resource is {}, not HTML",
            mime.chars().take(60).collect::<String>()
        ));
    }
    let html = match (first.get("text"), first.get("blob")) {
        (Some(Value::String(t)), _) => t.clone(),
        (_, Some(Value::String(b))) => {
            decode_base64(b).ok_or("the resource's blob is not base64 UTF-8")?
        }
        _ => return Err("the resource has no text".into()),
    };
    if html.len() > MAX_RESOURCE_BYTES {
        return Err(format!(
            "the resource is {} KB; the studio runs at most {} KB",
            html.len() / 1024,
            MAX_RESOURCE_BYTES / 1024
        ));
    }
    let ui = |v: &Value| v.get("_meta").and_then(|m| m.get("ui")).cloned();
    let csp = ui(first)
        .or_else(|| ui(result))
        .and_then(|u| u.get("csp").cloned());
    Ok((html, FrameCsp::from_meta(csp.as_ref())))
}

/// Standard base64 (padding optional, whitespace ignored) as UTF-8 text.
fn decode_base64(b: &str) -> Option<String> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let digits: Vec<u8> = b.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let digits = digits
        .strip_suffix(b"==")
        .or_else(|| digits.strip_suffix(b"="))
        .unwrap_or(&digits);
    if digits.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for group in digits.chunks(4) {
        let mut n = 0u32;
        for (i, c) in group.iter().enumerate() {
            n |= value(*c)? << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..group.len()]);
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_refs_from_either_meta_key() {
        let c = json!({"resourceUri": "ui://a/b", "serverHash": "h", "toolInput": {"x": 1}, "result": {"y": 2}});
        let a = app_ref(c.as_object().unwrap());
        assert_eq!(a.uri.as_deref(), Some("ui://a/b"));
        assert_eq!(a.server_hash.as_deref(), Some("h"));
        assert_eq!(a.tool_input, json!({"x": 1}));
        let c = json!({"_meta": {"ui": {"resourceUri": "ui://new"}}});
        assert_eq!(
            app_ref(c.as_object().unwrap()).uri.as_deref(),
            Some("ui://new")
        );
        let c = json!({"result": {"_meta": {"ui/resourceUri": "ui://old"}}});
        assert_eq!(
            app_ref(c.as_object().unwrap()).uri.as_deref(),
            Some("ui://old")
        );
        // Only ui:// URIs are fetched.
        let c = json!({"resourceUri": "https://evil.example.com/x"});
        assert_eq!(app_ref(c.as_object().unwrap()).uri, None);
    }

    #[test]
    fn resources_are_read_with_their_policy() {
        let r = json!({"contents": [{"uri": "ui://a", "mimeType": "text/html;profile=mcp-app", "text": "<p>x</p>",
            "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com"]}}}}]});
        let (html, csp) = resource_of(&r).unwrap();
        assert_eq!(html, "<p>x</p>");
        assert_eq!(csp.connect, ["https://api.example.com"]);
        let r = json!({"contents": [{"mimeType": "text/html", "blob": "PGI+eDwvYj4="}]});
        assert_eq!(resource_of(&r).unwrap().0, "<b>x</b>");
        assert_eq!(decode_base64("aGk=").as_deref(), Some("hi"));
        assert_eq!(
            decode_base64("aGVsbG8gd29ybGQ").as_deref(),
            Some("hello world")
        );
        assert_eq!(decode_base64("a"), None);
        for bad in [
            json!({}),
            json!({"contents": []}),
            json!({"contents": [{"mimeType": "application/javascript", "text": "x"}]}),
            json!({"contents": [{"mimeType": "text/html", "blob": "%%%"}]}),
            json!({"contents": [{"mimeType": "text/html", "text": "x".repeat(MAX_RESOURCE_BYTES + 1)}]}),
        ] {
            assert!(resource_of(&bad).is_err(), "{bad}");
        }
    }
}
