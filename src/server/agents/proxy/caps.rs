//! The foreign agent's own `AgentCapabilities`, where it publishes them. AG-UI specifies no way
//! to ask, so the proxy reads the one listing it knows: an agent served at `…/agents/{id}` whose
//! `GET …/agents` answers `{"agents": [{"id", "capabilities"}, …]}` (agui-studio's
//! `/api/agents`; a map by id is read too). Whatever it finds passes
//! [`protocol::capabilities::sanitize`](crate::protocol::capabilities::sanitize); an agent
//! that publishes nothing is described by what the proxy knows, the rest left out (unknown).
//!
//! The listing is foreign input: one request at a time, bounded in time ([`FETCH_TIMEOUT`])
//! and size ([`MAX_LISTING_BYTES`]), redirects not followed; a failure is only logged.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{HeaderValue, ACCEPT};
use reqwest::{Client, Url};
use serde_json::{json, Value};

use super::ProxySpec;
use crate::protocol::capabilities::sanitize;

/// Longest wait for the whole listing (connect, headers and body).
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// Largest listing read; a longer one is not read at all.
pub const MAX_LISTING_BYTES: usize = 256 * 1024;
/// After a failed read, how long before a run tries again.
const RETRY_AFTER: Duration = Duration::from_secs(30);

/// What is known of the foreign agent's capabilities, shared with the reading task.
#[derive(Default)]
pub struct Foreign {
    inner: Mutex<Known>,
}

#[derive(Default)]
struct Known {
    caps: Option<Value>,
    reading: bool,
    last_try: Option<tokio::time::Instant>,
}

impl Foreign {
    /// The sanitized document the foreign agent published (None: none read).
    pub fn get(&self) -> Option<Value> {
        self.lock().caps.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Known> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Read the listing in the background unless it is known, being read, or was tried
    /// recently. Does nothing outside a Tokio runtime.
    pub fn refresh(self: &Arc<Self>, client: &Client, spec: &ProxySpec) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let Some((url, id)) = listing_of(&spec.url) else {
            return;
        };
        {
            let mut k = self.lock();
            let recent = k.last_try.is_some_and(|t| t.elapsed() < RETRY_AFTER);
            if k.caps.is_some() || k.reading || recent {
                return;
            }
            k.reading = true;
            k.last_try = Some(tokio::time::Instant::now());
        }
        let request = client
            .get(url)
            .headers(spec.headers.clone())
            .header(ACCEPT, HeaderValue::from_static("application/json"));
        let this = self.clone();
        let agent = spec.id.clone();
        rt.spawn(async move {
            let read = tokio::time::timeout(FETCH_TIMEOUT, async {
                let response = request.send().await.ok()?;
                if !response.status().is_success() {
                    return None;
                }
                read_bounded(response).await
            });
            let found = match read.await {
                Ok(Some(body)) => serde_json::from_slice::<Value>(&body)
                    .ok()
                    .and_then(|v| published(&v, &id)),
                _ => None,
            };
            match &found {
                Some(_) => tracing::info!(agent = %agent, "read the foreign agent's capabilities"),
                None => {
                    tracing::debug!(agent = %agent, "the foreign agent publishes no capabilities")
                }
            }
            let mut k = this.lock();
            k.reading = false;
            if found.is_some() {
                k.caps = found;
            }
        });
    }
}

/// The listing's URL and the agent's id in it: `…/agents/{id}` → (`…/agents`, id).
fn listing_of(url: &Url) -> Option<(Url, String)> {
    let mut listing = url.clone();
    let path = url.path().trim_end_matches('/');
    let (parent, id) = path.rsplit_once('/')?;
    if id.is_empty() || parent.is_empty() {
        return None;
    }
    listing.set_path(parent);
    listing.set_query(None);
    listing.set_fragment(None);
    Some((listing, id.to_string()))
}

async fn read_bounded(response: reqwest::Response) -> Option<Vec<u8>> {
    if response
        .content_length()
        .is_some_and(|n| n > MAX_LISTING_BYTES as u64)
    {
        return None;
    }
    let mut body = response.bytes_stream();
    let mut bytes = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.ok()?;
        if bytes.len() + chunk.len() > MAX_LISTING_BYTES {
            return None;
        }
        bytes.extend_from_slice(&chunk);
    }
    Some(bytes)
}

/// Agent `id`'s capabilities in a listing: `{"agents": [{"id": …, "capabilities": …}]}` or
/// `{"agents": {"<id>": {"capabilities": …}}}`, sanitized.
pub fn published(listing: &Value, id: &str) -> Option<Value> {
    let agents = listing.get("agents")?;
    let entry = match agents {
        Value::Array(a) => a
            .iter()
            .find(|e| e.get("id").and_then(Value::as_str) == Some(id))?,
        Value::Object(o) => o.get(id)?,
        _ => return None,
    };
    let caps = entry.get("capabilities")?;
    caps.is_object().then(|| sanitize(caps))
}

/// The proxied agent's capabilities: its identity as served here (the foreign one kept under
/// `identity.metadata.foreign`), and from the foreign document every group but `transport`
/// (how the foreign agent is reached is no concern of a client of this server, which adds its
/// own). Without a document, the identity alone.
pub fn describe(spec: &ProxySpec, host: &str, foreign: Option<Value>) -> Value {
    let mut caps = json!({
        "identity": {
            "name": spec.id,
            "type": "proxy",
            "description": format!("Foreign AG-UI agent at {host}"),
            "provider": host,
        },
    });
    let Some(Value::Object(mut doc)) = foreign else {
        return caps;
    };
    if let Some(identity) = doc.remove("identity").filter(|i| i.is_object()) {
        caps["identity"]["metadata"] = json!({ "foreign": identity });
    }
    doc.remove("transport");
    for (k, v) in doc {
        caps[k] = v;
    }
    caps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listing_is_the_parent_of_the_agent_url() {
        let url = Url::parse("http://h:1/api/agents/demo?key=s#x").unwrap();
        let (listing, id) = listing_of(&url).unwrap();
        assert_eq!(listing.as_str(), "http://h:1/api/agents");
        assert_eq!(id, "demo");
        assert!(listing_of(&Url::parse("http://h/").unwrap()).is_none());
        assert!(listing_of(&Url::parse("http://h/run").unwrap()).is_none());
    }

    #[test]
    fn published_capabilities_are_found_by_id_and_sanitized() {
        let listing = json!({"agents": [
            {"id": "other", "capabilities": {"reasoning": {"supported": false}}},
            {"id": "demo", "capabilities": {"reasoning": {"supported": true}, "bogus": 1}}
        ]});
        assert_eq!(
            published(&listing, "demo"),
            Some(json!({"reasoning": {"supported": true}}))
        );
        assert_eq!(published(&listing, "absent"), None);
        let by_id = json!({"agents": {"demo": {"capabilities": {"tools": {"supported": true}}}}});
        assert_eq!(
            published(&by_id, "demo"),
            Some(json!({"tools": {"supported": true}}))
        );
        assert_eq!(published(&json!({"agents": "x"}), "demo"), None);
        assert_eq!(
            published(
                &json!({"agents": [{"id": "demo", "capabilities": [1]}]}),
                "demo"
            ),
            None
        );
    }

    #[test]
    fn the_foreign_transport_is_not_ours_and_its_identity_is_kept_apart() {
        let spec: ProxySpec = "up=http://127.0.0.1:9/api/agents/demo".parse().unwrap();
        let caps = describe(
            &spec,
            "127.0.0.1:9",
            Some(json!({
                "identity": {"type": "demo"},
                "transport": {"websocket": true},
                "reasoning": {"supported": true}
            })),
        );
        assert!(caps.get("transport").is_none());
        assert_eq!(caps["identity"]["type"], "proxy");
        assert_eq!(caps["identity"]["metadata"]["foreign"]["type"], "demo");
        assert_eq!(caps["reasoning"]["supported"], true);
        let unknown = describe(&spec, "127.0.0.1:9", None);
        assert_eq!(unknown.as_object().unwrap().len(), 1, "{unknown}");
    }
}
