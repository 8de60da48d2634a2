//! An MCP App (`activityType: "mcp-apps"`): the tool's `ui://` HTML resource, fetched through
//! the agent (a side run with `forwardedProps.__proxiedMCPRequest`, as the official AG-UI
//! middleware expects), run in a [`SandboxFrame`] under the policy the resource declares
//! (`_meta.ui.csp`), and spoken to over the MCP Apps bridge ([`super::mcp_bridge`]).
//!
//! Content: `{result, resourceUri, serverHash, serverId?, toolInput}`; the URI may also come as
//! the tool's `_meta.ui.resourceUri` or the older `_meta["ui/resourceUri"]`.

use leptos::prelude::*;
use serde_json::{json, Value};

use super::mcp_bridge::{self, Ask};
use crate::protocol::types::Message as Msg;
use crate::ui::frame::{FramePort, SandboxFrame};
use crate::wire::frame::FrameCsp;

mod resource;

pub use resource::{app_ref, resource_of, AppRef, MAX_RESOURCE_BYTES};

/// The resource's state (only the browser loads it).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
enum Load {
    Loading,
    Ready(String, FrameCsp),
    Failed(String),
}

/// The card: its status, the frame, and a question when the app wants to open a link.
#[component]
pub fn McpApp(#[prop(into)] message: Signal<Msg>) -> impl IntoView {
    let app = Memo::new(move |_| {
        message.with(|m| match m {
            Msg::Activity(a) => app_ref(&a.content),
            _ => AppRef::default(),
        })
    });
    let target = Memo::new(move |_| {
        app.with(|a| (a.uri.clone(), a.server_hash.clone(), a.server_id.clone()))
    });
    let load = RwSignal::new(Load::Loading);
    let link = RwSignal::new(None::<(Value, String)>);
    let port = StoredValue::new(None::<FramePort>);
    let initialized = RwSignal::new(false);
    let agent = use_context::<crate::ui::transcript::TranscriptCtx>().map(|c| c.agent);

    // Fetch the resource through the agent when the activity names it.
    Effect::new(move |_| {
        let (uri, hash, id) = target.get();
        let Some(uri) = uri else {
            load.set(Load::Failed("the activity names no ui:// resource".into()));
            return;
        };
        load.set(Load::Loading);
        let params = json!({ "uri": uri });
        let forwarded = crate::client::side_run::proxied_mcp_request(
            hash.as_deref(),
            id.as_deref(),
            "resources/read",
            params,
        );
        #[cfg(feature = "hydrate")]
        if let Some(agent) = agent {
            leptos::task::spawn_local(async move {
                let (url, headers, thread) = (
                    agent.url.get_untracked(),
                    agent.headers.get_untracked(),
                    agent.thread_id.get_untracked(),
                );
                let got = crate::client::side_run::side_run(&url, &headers, &thread, forwarded)
                    .await
                    .and_then(|r| resource_of(&r));
                load.set(match got {
                    Ok((html, csp)) => Load::Ready(html, csp),
                    Err(e) => Load::Failed(format!("The app could not be loaded: {e}")),
                });
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = forwarded;
    });

    // The tool's input and result go to the app once it is initialized, and again as they
    // change. Input without a result while the run still streams may be incomplete: it goes as
    // `tool-input-partial`, then as `tool-input` once the result (or the run's end) is there.
    Effect::new(move |_| {
        let (input, result) = app.with(|a| (a.tool_input.clone(), a.result.clone()));
        let streaming = agent.is_some_and(|a| a.is_running.get());
        if !initialized.get() {
            return;
        }
        if let Some(p) = port.get_value() {
            let method = if result.is_none() && streaming {
                "ui/notifications/tool-input-partial"
            } else {
                "ui/notifications/tool-input"
            };
            p.post(&mcp_bridge::notification(
                method,
                json!({ "arguments": input }),
            ));
            if let Some(r) = result {
                p.post(&mcp_bridge::notification(
                    "ui/notifications/tool-result",
                    mcp_bridge::tool_result(&r),
                ));
            }
        }
    });
    // A theme switched while the app shows: the app is told, as the MCP Apps host contract
    // asks, so it restyles (its first theme came with `ui/initialize`).
    let theme = use_context::<crate::ui::theme::Theme>();
    Effect::new(move |prev: Option<Option<bool>>| {
        let dark = theme.and_then(|t| t.0.get());
        if initialized.get() && prev.is_some_and(|p| p != dark) {
            if let (Some(p), Some(dark)) = (port.get_value(), dark) {
                p.post(&mcp_bridge::notification(
                    "ui/notifications/host-context-changed",
                    json!({ "theme": if dark { "dark" } else { "light" } }),
                ));
            }
        }
        dark
    });
    on_cleanup(move || {
        if let Some(p) = port.get_value() {
            p.post(&json!({"jsonrpc": "2.0", "id": "teardown", "method": "ui/resource-teardown", "params": {}}));
        }
    });

    let on_message = Callback::new(move |(msg, p): (Value, FramePort)| {
        port.set_value(Some(p));
        let host = mcp_bridge::HostContext {
            dark: crate::ui::theme::current_is_dark(),
            width: p.size().0,
            max_height: crate::ui::frame::MAX_HEIGHT,
            locale: "en".into(),
        };
        match mcp_bridge::ask(&msg, &host) {
            Ask::Reply(r) => p.post(&r),
            Ask::Initialized => initialized.set(true),
            Ask::Height(h) => p.set_height(h),
            Ask::Message { id, text } => {
                let reply = match agent {
                    Some(a) if !a.is_running.get_untracked() => {
                        a.send.run(crate::client::session::SendInput {
                            text,
                            ..Default::default()
                        });
                        mcp_bridge::response(&id, json!({}))
                    }
                    Some(_) => mcp_bridge::error(
                        &id,
                        -32000,
                        "the agent is busy with a run; try again when it ends",
                    ),
                    None => mcp_bridge::error(&id, -32000, "no agent to send to"),
                };
                p.post(&reply);
            }
            Ask::OpenLink { id, url } => link.set(Some((id, url))),
            Ask::Proxy { id, method, params } => {
                let (hash, server) = target.with_untracked(|t| (t.1.clone(), t.2.clone()));
                let forwarded = crate::client::side_run::proxied_mcp_request(
                    hash.as_deref(),
                    server.as_deref(),
                    &method,
                    params,
                );
                #[cfg(feature = "hydrate")]
                if let Some(agent) = agent {
                    leptos::task::spawn_local(async move {
                        let got = crate::client::side_run::side_run(
                            &agent.url.get_untracked(),
                            &agent.headers.get_untracked(),
                            &agent.thread_id.get_untracked(),
                            forwarded,
                        )
                        .await;
                        p.post(&match got {
                            Ok(r) => mcp_bridge::response(&id, r),
                            Err(e) => {
                                mcp_bridge::error(&id, -32000, &format!("{method} failed: {e}"))
                            }
                        });
                    });
                }
                #[cfg(not(feature = "hydrate"))]
                let _ = (forwarded, id);
            }
            Ask::Nothing => {}
        }
    });
    let on_port = Callback::new(move |p: FramePort| port.set_value(Some(p)));
    let answer_link = move |open: bool| {
        let Some((id, url)) = link.get_untracked() else {
            return;
        };
        link.set(None);
        #[cfg(feature = "hydrate")]
        if open {
            let _ = window().open_with_url_and_target_and_features(
                &url,
                "_blank",
                "noopener,noreferrer",
            );
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = &url;
        if let Some(p) = port.get_value() {
            let result = if open {
                json!({})
            } else {
                json!({"isError": true})
            };
            p.post(&mcp_bridge::response(&id, result));
        }
    };
    let uri = move || app.with(|a| a.uri.clone().unwrap_or_default());
    let status = move || match load.get() {
        Load::Loading => "Loading the app…".to_string(),
        Load::Ready(..) => "Runs in a sandboxed frame".to_string(),
        Load::Failed(e) => e,
    };
    view! {
        <div class="activity-card genui-card" role="group" aria-label=move || format!("MCP App: {}", uri()) data-role="activity">
            <div class="activity-head">
                <span class="activity-icon" aria-hidden="true">"▣"</span>
                <span class="activity-type">{crate::protocol::genui::MCP_APPS}</span>
                <code class="activity-title">{uri}</code>
                <span class="badge activity-status" role="status">{status}</span>
            </div>
            {move || link.get().map(|(_, url)| view! {
                <div class="genui-ask" role="alertdialog" aria-label="Open link">
                    <span>"The app wants to open "<code>{url}</code></span>
                    <button type="button" class="btn small primary" on:click=move |_| answer_link(true)>"Open link"</button>
                    <button type="button" class="btn small" on:click=move |_| answer_link(false)>"Cancel"</button>
                </div>
            })}
            // Only a new resource makes a new frame: the title is read untracked, or every change
            // of the activity's input or result would reload the app (and lose what it shows).
            {move || match load.get() {
                Load::Ready(html, csp) => {
                    let html = Signal::derive(move || Some(html.clone()));
                    let title = untrack(move || format!("MCP App {}", uri()));
                    view! {
                        <SandboxFrame html title csp on_message on_port/>
                    }.into_any()
                }
                _ => ().into_any(),
            }}
        </div>
    }
}
