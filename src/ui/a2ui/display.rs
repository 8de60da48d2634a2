//! Display components of the basic catalog: Text, Image, Icon, Video, AudioPlayer. URLs pass
//! the render hints' image policy; remote media waits for the user's click.

use leptos::prelude::*;
use serde_json::Value;

use super::node::{placeholder, Node};
use super::state::{icon_glyph, pick};
use crate::ui::render_hints::image::{self, check_url, remote_host, ImageProps};

/// `Text`: h1–h5 as headings (`role="heading"` with a level, not document headings, so a
/// surface does not reshape the page's outline), caption and body as text. Plain text: no
/// markup of the payload is interpreted.
pub fn text(n: Node) -> AnyView {
    let text = n.text("text");
    let variant = n.prop("variant");
    let (label, desc) = n.a11y();
    let level = Memo::new(move |_| {
        variant.with(|v| match pick(v.as_ref(), ("Text", "variant"), "body") {
            v if v.starts_with('h') => v[1..].parse::<u8>().ok(),
            _ => None,
        })
    });
    let caption =
        Memo::new(move |_| variant.with(|v| v.as_ref().and_then(Value::as_str) == Some("caption")));
    (move || match (level.get(), caption.get()) {
        (Some(l), _) => view! {
            <div class=format!("a2ui-text a2ui-h{l}") role="heading" attr:aria-level=l.to_string()
                aria-label=move || label.get() aria-description=move || desc.get()>{move || text.get()}</div>
        }
        .into_any(),
        (None, true) => view! { <small class="a2ui-text a2ui-caption" aria-label=move || label.get()>{move || text.get()}</small> }.into_any(),
        (None, false) => view! { <p class="a2ui-text" aria-label=move || label.get() aria-description=move || desc.get()>{move || text.get()}</p> }.into_any(),
    })
    .into_any()
}

/// `Image`: through the image policy (alt text from `description` or the accessible label).
pub fn image(n: Node) -> AnyView {
    let url = n.text("url");
    let alt = n.text("description");
    let (label, _) = n.a11y();
    let fit = n.prop("fit");
    let variant = n.prop("variant");
    let class = move || {
        let f = fit.with(|v| pick(v.as_ref(), ("Image", "fit"), "fill").to_string());
        let v =
            variant.with(|v| pick(v.as_ref(), ("Image", "variant"), "mediumFeature").to_string());
        format!("a2ui-image a2ui-fit-{f} a2ui-img-{v}")
    };
    let body = move || {
        let url = url.get();
        let alt = Some(alt.get())
            .filter(|a| !a.trim().is_empty())
            .or_else(|| label.get())
            .unwrap_or_else(|| "Image".into());
        match check_url(&url) {
            Ok(()) => image::view(ImageProps {
                url,
                alt,
                caption: None,
            }),
            Err(e) => placeholder(format!("Image not shown ({alt}): {e}")),
        }
    };
    view! { <div class=class>{body}</div> }.into_any()
}

/// `Icon`: a glyph named by the catalog (its name is the accessible name), or an SVG path.
pub fn icon(n: Node) -> AnyView {
    let name = n.prop("name");
    let resolved = n.value("name");
    let (label, _) = n.a11y();
    (move || {
        let svg = name.with(|v| v.as_ref().and_then(|v| v.get("svgPath")).and_then(Value::as_str).map(str::to_string));
        let accessible = label.get();
        match svg {
            Some(d) => view! {
                <svg class="a2ui-icon" viewBox="0 0 24 24" role="img" aria-label=accessible.unwrap_or_else(|| "Icon".into())>
                    <path d=d fill="currentColor"/>
                </svg>
            }
            .into_any(),
            None => {
                let icon = resolved.with(|v| v.as_str().map(str::to_string)).unwrap_or_default();
                let glyph = icon_glyph(&icon);
                let name = accessible.unwrap_or(icon);
                view! { <span class="a2ui-icon" role="img" aria-label=name>{glyph}</span> }.into_any()
            }
        }
    })
    .into_any()
}

/// `Video`.
pub fn video(n: Node) -> AnyView {
    media(n, "video", "url", None)
}

/// `AudioPlayer`.
pub fn audio(n: Node) -> AnyView {
    media(n, "audio", "url", Some("description"))
}

/// A remote `https:` medium, loaded only when the user asks (like remote images: a URL must
/// not make the page tell its sender who reads the conversation).
fn media(
    n: Node,
    kind: &'static str,
    url_prop: &'static str,
    title_prop: Option<&'static str>,
) -> AnyView {
    let url = n.text(url_prop);
    let title = title_prop.map(|p| n.text(p));
    let (label, _) = n.a11y();
    let allowed = RwSignal::new(false);
    let name = move || {
        label
            .get()
            .or_else(|| title.map(|t| t.get()).filter(|t| !t.is_empty()))
            .unwrap_or_else(|| {
                if kind == "video" {
                    "Video".into()
                } else {
                    "Audio".into()
                }
            })
    };
    (move || {
        let url = url.get();
        let host = match check_url(&url).map(|()| remote_host(&url).map(str::to_string)) {
            Ok(Some(host)) => host,
            Ok(None) => return placeholder(format!("{} not shown: only https: URLs are played", name())),
            Err(e) => return placeholder(format!("{} not shown: {e}", name())),
        };
        if !allowed.get() {
            let button = format!("Load {kind} from {host}");
            return view! {
                <div class="a2ui-media-blocked" role="group" aria-label=name()>
                    <span>{name()}</span>" "
                    <span class="a2ui-muted">{format!("(remote {kind} from {host}, not loaded)")}</span>" "
                    <button type="button" aria-label=button on:click=move |_| allowed.set(true)>{format!("Load {kind}")}</button>
                </div>
            }
            .into_any();
        }
        if kind == "video" {
            view! { <video class="a2ui-video" src=url controls=true preload="none" aria-label=name()></video> }.into_any()
        } else {
            view! { <audio class="a2ui-audio" src=url controls=true preload="none" aria-label=name()></audio> }.into_any()
        }
    })
    .into_any()
}
