//! Open generative UI (`activityType: "open-generative-ui"`): HTML, CSS and JavaScript streamed
//! by the agent, run in a [`SandboxFrame`] once each part is complete.
//!
//! Content: `{initialHeight, generating, html: string[], htmlComplete, css?, cssComplete?, jsFunctions?,
//! jsFunctionsComplete?, jsExpressions?: string[], jsExpressionsComplete?}`. The frame loads
//! when the HTML is complete and once more when the scripts are; until then the card says how
//! much has arrived. The document gets a small script of ours that reports its height; the
//! frame also takes CopilotKit's own `__ck_resize` message.

use leptos::prelude::*;
use serde_json::{Map, Value};

use crate::protocol::types::Message as Msg;
use crate::ui::frame::SandboxFrame;
use crate::wire::frame::FRAME_SIZE_MESSAGE;

/// The largest document run (HTML + CSS + scripts), in bytes.
pub const MAX_DOCUMENT_BYTES: usize = 2 << 20;
/// At most this many HTML pieces and script expressions are read.
pub const MAX_PIECES: usize = 10_000;

/// What has arrived of an open generative UI, and the document to run now.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ogui {
    pub generating: bool,
    pub initial_height: Option<u32>,
    /// Bytes of HTML received so far.
    pub html_bytes: usize,
    pub html_complete: bool,
    pub scripts_complete: bool,
    /// The document to run (`None` until the HTML is complete, or when too large).
    pub document: Option<String>,
    /// Why nothing runs although the HTML is complete.
    pub error: Option<String>,
}

fn strings(v: Option<&Value>) -> Vec<&str> {
    match v {
        Some(Value::Array(a)) => a
            .iter()
            .take(MAX_PIECES)
            .filter_map(Value::as_str)
            .collect(),
        Some(Value::String(s)) => vec![s.as_str()],
        _ => Vec::new(),
    }
}

/// The script of ours in every document: it reports the document's height to the page.
fn size_script() -> String {
    format!(
        "(function(){{function s(){{parent.postMessage({{type:'{FRAME_SIZE_MESSAGE}',\
         height:Math.ceil(document.documentElement.scrollHeight)}},'*')}}\
         if(window.ResizeObserver)new ResizeObserver(s).observe(document.documentElement);\
         addEventListener('load',s);s()}})()"
    )
}

/// Read the content. Scripts join the document only once both their parts are complete (or
/// the agent is no longer generating), so a half-streamed function is never run and the
/// document changes at most twice while it streams: the HTML, then the HTML with its scripts.
pub fn ogui_of(content: &Map<String, Value>) -> Ogui {
    let flag = |k: &str| content.get(k).and_then(Value::as_bool).unwrap_or(false);
    let generating = flag("generating");
    let html = strings(content.get("html"));
    let html_bytes = html.iter().map(|s| s.len()).sum();
    let html_complete = flag("htmlComplete") || (!generating && html_bytes > 0);
    let functions = content.get("jsFunctions").and_then(Value::as_str);
    let expressions = strings(content.get("jsExpressions"));
    // The expressions come last: until they are complete, more scripts may follow, and a
    // document run with only the functions would be replaced (and its script restarted) by the
    // next one.
    let scripts_complete = !generating
        || ((functions.is_none() || flag("jsFunctionsComplete")) && flag("jsExpressionsComplete"));
    let mut out = Ogui {
        generating,
        initial_height: content
            .get("initialHeight")
            .and_then(Value::as_f64)
            .filter(|h| h.is_finite() && *h > 0.0)
            .map(|h| h.min(f64::from(u32::MAX)) as u32),
        html_bytes,
        html_complete,
        scripts_complete,
        document: None,
        error: None,
    };
    if !html_complete {
        return out;
    }
    // CSS joins once complete (CopilotKit says so with `cssComplete`; without the flag, as is).
    let css_ready = !generating || flag("cssComplete") || !content.contains_key("cssComplete");
    let css = content
        .get("css")
        .and_then(Value::as_str)
        .filter(|_| css_ready)
        .unwrap_or("");
    let mut doc = String::with_capacity(html_bytes + css.len() + 512);
    doc.push_str("<!doctype html><html><head><meta charset=\"utf-8\"><style>");
    doc.push_str(css);
    doc.push_str("</style></head><body>");
    html.iter().for_each(|h| doc.push_str(h));
    doc.push_str("<script>");
    doc.push_str(&size_script());
    doc.push_str("</script>");
    if scripts_complete {
        for script in functions.into_iter().chain(expressions) {
            doc.push_str("<script>");
            doc.push_str(script);
            doc.push_str("</script>");
        }
    }
    doc.push_str("</body></html>");
    if doc.len() > MAX_DOCUMENT_BYTES {
        out.error = Some(format!(
            "This generated UI is {} KB; the studio runs at most {} KB.",
            doc.len() / 1024,
            MAX_DOCUMENT_BYTES / 1024
        ));
    } else {
        out.document = Some(doc);
    }
    out
}

/// The card: a status line and the frame.
#[component]
pub fn OpenGenUi(#[prop(into)] message: Signal<Msg>) -> impl IntoView {
    let parts = Memo::new(move |_| {
        message.with(|m| match m {
            Msg::Activity(a) => ogui_of(&a.content),
            _ => Ogui::default(),
        })
    });
    // A memo: the frame reloads only for a new document, not for every flag that arrives
    // (a reload would start the agent's script again and lose what the user did in it).
    let document = Memo::new(move |_| parts.with(|p| p.document.clone()));
    let initial_height = parts.with_untracked(|p| p.initial_height);
    let status = move || {
        parts.with(|p| {
            if let Some(e) = &p.error {
                e.clone()
            } else if !p.html_complete {
                format!("Generating UI… {} KB of HTML", p.html_bytes.div_ceil(1024))
            } else if p.generating && !p.scripts_complete {
                "Generating UI… adding its scripts".to_string()
            } else if p.generating {
                "Generating UI…".to_string()
            } else {
                "Generated UI (runs in a sandboxed frame)".to_string()
            }
        })
    };
    view! {
        <div class="activity-card genui-card" role="group" aria-label="Generated UI" data-role="activity">
            <div class="activity-head">
                <span class="activity-icon" aria-hidden="true">"◧"</span>
                <span class="activity-type">{crate::protocol::genui::OPEN_GENERATIVE_UI}</span>
                <span class="badge activity-status" role="status">{status}</span>
            </div>
            <Show when=move || document.with(Option::is_some)>
                <SandboxFrame html=document title="Generated UI" initial_height=initial_height.unwrap_or(200)/>
            </Show>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(v: Value) -> Ogui {
        ogui_of(v.as_object().unwrap())
    }

    #[test]
    fn nothing_runs_until_the_html_is_complete() {
        let o = of(json!({"generating": true, "html": ["<div>", "hi"], "htmlComplete": false}));
        assert_eq!(o.document, None);
        assert_eq!(o.html_bytes, 7);
    }

    #[test]
    fn scripts_join_when_complete() {
        let mut c = json!({"generating": true, "html": ["<p id=x>1</p>"], "htmlComplete": true,
            "css": "p{color:red}", "jsFunctions": "function f(){}", "jsFunctionsComplete": false,
            "jsExpressions": ["f()"], "jsExpressionsComplete": false});
        let doc = of(c.clone()).document.unwrap();
        assert!(
            doc.contains("<p id=x>1</p>") && doc.contains("p{color:red}"),
            "{doc}"
        );
        assert!(!doc.contains("function f"), "{doc}");
        assert!(doc.contains(FRAME_SIZE_MESSAGE));
        c["jsFunctionsComplete"] = json!(true);
        // The functions alone are not yet the scripts: the expressions may still be streaming.
        let doc = of(c.clone()).document.unwrap();
        assert!(!doc.contains("function f"), "{doc}");
        c["jsExpressionsComplete"] = json!(true);
        let doc = of(c.clone()).document.unwrap();
        assert!(
            doc.contains("<script>function f(){}</script><script>f()</script>"),
            "{doc}"
        );
        // Finished generating: everything runs whatever the flags say.
        let doc = of(json!({"generating": false, "html": "<b>x</b>", "jsExpressions": ["1"]}))
            .document
            .unwrap();
        assert!(doc.contains("<script>1</script>"), "{doc}");
    }

    #[test]
    fn hostile_sizes_are_refused() {
        let big = "x".repeat(MAX_DOCUMENT_BYTES);
        let o = of(json!({"generating": false, "html": [big]}));
        assert!(o.document.is_none() && o.error.is_some());
        let many: Vec<Value> = (0..50_000).map(|_| json!("<i>")).collect();
        let o = of(json!({"generating": true, "htmlComplete": true, "html": many}));
        assert_eq!(o.html_bytes, 3 * MAX_PIECES);
        let o = of(json!({"initialHeight": -5, "html": 7, "generating": "yes"}));
        assert_eq!(o.initial_height, None);
        assert_eq!(o.document, None);
    }
}
