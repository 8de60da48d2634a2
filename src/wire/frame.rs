//! The sandboxed frame that runs agent HTML (MCP Apps, open generative UI): its URL, the
//! Content-Security-Policy it is served with, and the messages between it and the page.
//!
//! Why a route of our own and not `srcdoc`: a `srcdoc` document inherits the page's policy,
//! whose script nonce rightly refuses the agent's inline scripts. `GET /sandbox/frame` answers a
//! tiny loader under a policy made for agent HTML: `sandbox allow-scripts` (an opaque origin even
//! when opened directly: no cookies, no storage, no access to the page), scripts and styles
//! inline only, network access only to the domains an MCP App's resource declares
//! (`_meta.ui.csp`), nothing else. The page also frames it with `sandbox="allow-scripts"` and
//! never `allow-same-origin`. The loader waits for one message from its parent with the HTML
//! and writes it into its own document, which keeps the policy of the response.

use serde_json::Value;

/// The loader's path (public: it serves the same static loader to everyone).
pub const FRAME_PATH: &str = "/sandbox/frame";

/// The message type the page posts to the loader: `{type, html}`.
pub const FRAME_HTML_MESSAGE: &str = "agui-studio/frame-html";

/// The message type the studio's size script posts from inside a frame: `{type, height}`.
pub const FRAME_SIZE_MESSAGE: &str = "agui-studio/frame-size";

/// The size message CopilotKit's open generative UI posts from its frame: `{type, height}`.
pub const CK_RESIZE_MESSAGE: &str = "__ck_resize";

/// At most this many domains per CSP directive.
pub const MAX_DOMAINS: usize = 16;
/// At most this many bytes per domain.
pub const MAX_DOMAIN_BYTES: usize = 200;

/// The domains an MCP App may reach (`_meta.ui.csp` of its resource), validated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameCsp {
    /// `connectDomains`: fetch / XHR / WebSocket.
    pub connect: Vec<String>,
    /// `resourceDomains`: scripts, styles, images, fonts, media.
    pub resource: Vec<String>,
    /// `frameDomains`: nested frames.
    pub frame: Vec<String>,
    /// `baseUriDomains`: `<base href>`.
    pub base: Vec<String>,
}

/// Whether `d` is a source expression we pass on: `https://` or `wss://` with a host of letters,
/// digits, dots, dashes (a leading `*.` wildcard allowed), an optional port, and nothing else
/// — so it cannot end the directive, add keywords (`'unsafe-eval'`, `*`) or name `data:`.
pub fn is_allowed_domain(d: &str) -> bool {
    if d.len() > MAX_DOMAIN_BYTES {
        return false;
    }
    let Some(rest) = d
        .strip_prefix("https://")
        .or_else(|| d.strip_prefix("wss://"))
    else {
        return false;
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (rest, None),
    };
    let host = host.strip_prefix("*.").unwrap_or(host);
    let host_ok = !host.is_empty()
        && host.contains('.')
        && host
            .split('.')
            .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
    let port_ok =
        port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    host_ok && port_ok
}

impl FrameCsp {
    /// From a resource's `_meta.ui.csp` (unknown keys and invalid domains dropped).
    pub fn from_meta(csp: Option<&Value>) -> Self {
        let list = |key: &str| -> Vec<String> {
            csp.and_then(|c| c.get(key))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(|d| is_allowed_domain(d))
                .take(MAX_DOMAINS)
                .map(str::to_string)
                .collect()
        };
        Self {
            connect: list("connectDomains"),
            resource: list("resourceDomains"),
            frame: list("frameDomains"),
            base: list("baseUriDomains"),
        }
    }

    /// The loader's URL carrying these domains (`?connect=a+b&…`).
    pub fn url(&self) -> String {
        let mut q = Vec::new();
        for (k, v) in self.pairs() {
            if !v.is_empty() {
                q.push(format!("{k}={}", v.join("+")));
            }
        }
        if q.is_empty() {
            FRAME_PATH.to_string()
        } else {
            format!("{FRAME_PATH}?{}", q.join("&"))
        }
    }

    /// Parsed back from the loader URL's query (invalid domains dropped).
    pub fn from_query(query: &str) -> Self {
        let mut csp = Self::default();
        for pair in query.split('&').take(8) {
            let Some((k, v)) = pair.split_once('=') else {
                continue;
            };
            let domains = v
                .split(['+', ' '])
                .filter(|d| is_allowed_domain(d))
                .take(MAX_DOMAINS)
                .map(str::to_string)
                .collect();
            match k {
                "connect" => csp.connect = domains,
                "resource" => csp.resource = domains,
                "frame" => csp.frame = domains,
                "base" => csp.base = domains,
                _ => {}
            }
        }
        csp
    }

    fn pairs(&self) -> [(&'static str, &Vec<String>); 4] {
        [
            ("connect", &self.connect),
            ("resource", &self.resource),
            ("frame", &self.frame),
            ("base", &self.base),
        ]
    }

    /// The policy the loader is served with.
    pub fn policy(&self) -> String {
        let or_none = |v: &Vec<String>| {
            if v.is_empty() {
                "'none'".to_string()
            } else {
                v.join(" ")
            }
        };
        let res = self.resource.join(" ");
        let with = |base: &str| format!("{base} {res}").trim_end().to_string();
        format!(
            "sandbox allow-scripts; default-src 'none'; script-src {}; style-src {}; \
             img-src {}; font-src {}; media-src {}; connect-src {}; frame-src {}; \
             base-uri {}; form-action 'none'; frame-ancestors 'self'",
            with("'unsafe-inline'"),
            with("'unsafe-inline'"),
            with("data: blob:"),
            with("data:"),
            with("data: blob:"),
            or_none(&self.connect),
            or_none(&self.frame),
            or_none(&self.base),
        )
    }
}

/// The loader document: it takes one `{type: FRAME_HTML_MESSAGE, html}` message from its
/// parent and writes that HTML as its own document (scripts run, under the response's policy).
pub fn loader_html() -> String {
    format!(
        "<!doctype html><meta charset=\"utf-8\"><script>\
         addEventListener('message', function once(e) {{\
         if (e.source !== parent || !e.data || e.data.type !== '{FRAME_HTML_MESSAGE}' \
         || typeof e.data.html !== 'string') return;\
         removeEventListener('message', once);\
         document.open(); document.write(e.data.html); document.close();\
         }});\
         parent.postMessage({{type: '{FRAME_HTML_MESSAGE}', ready: true}}, '*');\
         </script>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn domains_are_validated() {
        for ok in [
            "https://api.example.com",
            "https://*.cdn.example.com",
            "wss://rt.example.com:8443",
            "https://a-b.example.org/",
        ] {
            assert!(is_allowed_domain(ok), "{ok}");
        }
        for bad in [
            "*",
            "'unsafe-eval'",
            "https://*",
            "http://example.com",
            "data:",
            "https://example.com; script-src *",
            "https://exa mple.com",
            "https://example.com/path",
            "https://localhost",
            "https://example.com:",
            "https://example.com:123456",
            "javascript:alert(1)",
            &format!("https://{}.com", "a".repeat(300)),
        ] {
            assert!(!is_allowed_domain(bad), "{bad}");
        }
    }

    #[test]
    fn meta_to_url_to_policy() {
        let meta = json!({
            "connectDomains": ["https://api.example.com", "'unsafe-eval'", 7],
            "resourceDomains": ["https://cdn.example.com"],
            "frameDomains": "https://not-a-list.example.com",
        });
        let csp = FrameCsp::from_meta(Some(&meta));
        assert_eq!(csp.connect, ["https://api.example.com"]);
        assert!(csp.frame.is_empty());
        let url = csp.url();
        assert_eq!(
            url,
            "/sandbox/frame?connect=https://api.example.com&resource=https://cdn.example.com"
        );
        let back = FrameCsp::from_query(url.split_once('?').unwrap().1);
        assert_eq!(back, csp);
        let p = back.policy();
        assert!(
            p.starts_with("sandbox allow-scripts; default-src 'none'"),
            "{p}"
        );
        assert!(p.contains("connect-src https://api.example.com;"), "{p}");
        assert!(
            p.contains("script-src 'unsafe-inline' https://cdn.example.com;"),
            "{p}"
        );
        assert!(p.contains("frame-src 'none'"), "{p}");
        assert!(!p.contains("unsafe-eval"), "{p}");
    }

    #[test]
    fn hostile_queries_add_nothing() {
        let many = (0..100)
            .map(|i| format!("https://h{i}.example.com"))
            .collect::<Vec<_>>()
            .join("+");
        let q = format!("connect={many}&resource=*+'unsafe-eval'+data:&x=1&frame=https://ok.example.com;%20script-src%20*");
        let csp = FrameCsp::from_query(&q);
        assert_eq!(csp.connect.len(), MAX_DOMAINS);
        assert!(csp.resource.is_empty() && csp.frame.is_empty());
        assert_eq!(FrameCsp::default().policy().matches("'none'").count(), 5);
        assert_eq!(FrameCsp::default().url(), FRAME_PATH);
    }
}
