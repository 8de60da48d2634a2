//! The parts of MCP Apps that need no server; against a real one: `tests/mcp_apps.rs`.

use super::*;

#[test]
fn ui_meta_reads_both_keys_and_visibility() {
    let (uri, v) = ui_meta(&json!({"_meta": {"ui": {"resourceUri": "ui://a/b"}}}));
    assert_eq!(uri.as_deref(), Some("ui://a/b"));
    assert_eq!(
        v,
        Visibility {
            model: true,
            app: true
        }
    );
    let (uri, _) = ui_meta(&json!({"_meta": {"ui/resourceUri": "ui://old"}}));
    assert_eq!(uri.as_deref(), Some("ui://old"));
    for bad in [
        json!({"_meta": {"ui": {"resourceUri": "https://x/y"}}}),
        json!({"_meta": {"ui": {"resourceUri": format!("ui://{}", "a".repeat(MAX_URI_LEN))}}}),
        json!({"_meta": {"ui": {"resourceUri": "ui://a\nb"}}}),
        json!({"_meta": {"ui": {"resourceUri": 3}}}),
        json!({}),
    ] {
        assert_eq!(ui_meta(&bad).0, None, "{bad}");
    }
    let (_, v) = ui_meta(&json!({"_meta": {"ui": {"visibility": ["app"]}}}));
    assert_eq!(
        v,
        Visibility {
            model: false,
            app: true
        }
    );
    let (_, v) = ui_meta(&json!({"_meta": {"ui": {"visibility": ["model"]}}}));
    assert_eq!(
        v,
        Visibility {
            model: true,
            app: false
        }
    );
}

#[test]
fn activity_content_falls_back_to_the_text() {
    let link = AppLink {
        resource_uri: "ui://a".into(),
        server_id: "s".into(),
        server_hash: server_hash("s", "stdio:x"),
    };
    let o = Outcome::error("boom");
    let c = link.content(&o, "{\"x\": 1}");
    assert_eq!(c["result"]["content"][0]["text"], "Error: boom");
    assert_eq!(c["toolInput"], json!({"x": 1}));
    assert_eq!(link.content(&o, "[1]")["toolInput"], json!({}));
    assert_ne!(server_hash("s", "a"), server_hash("s", "b"));
}
