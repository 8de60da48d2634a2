//! `image`: an image from an `https:` or a raster `data:image/…` URL, with required alt text.
//!
//! Props:
//! ```json
//! {"url": "https://example.com/cat.png",   // https://host/… or data:image/(png|jpeg|gif|webp|avif|bmp)…
//!  "alt": "A cat on a sofa",               // required, non-empty
//!  "caption": "Figure 1"}                  // optional, shown under the image
//! ```
//! Any other scheme (`http:`, `javascript:`, `data:text/html`, `data:image/svg+xml`, relative
//! URLs…) or a URL with whitespace or control characters makes the props invalid, so the
//! registry shows its text fallback instead.
//!
//! A remote (`https:`) image is not loaded until the user asks: agent output must not make the
//! page fetch what it names (a tracking pixel tells its sender who reads the conversation,
//! when, and from where). It shows as a placeholder with the alt text, the host and a "Load
//! image" button; a click loads that one image. `data:` images carry their bytes and show at
//! once. The `<img>` gets `referrerpolicy="no-referrer"` and lazy loading; if it fails to load
//! in the browser, the alt text is shown as a placeholder.

use leptos::prelude::*;
use serde_json::Value;

use super::props::{as_object, opt_str, req_str, PropsError};

/// Raster image types accepted in `data:` URLs (SVG is excluded on purpose).
pub const DATA_IMAGE_TYPES: &[&str] = &["png", "jpeg", "jpg", "gif", "webp", "avif", "bmp"];

/// Validated image props.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageProps {
    pub url: String,
    pub alt: String,
    pub caption: Option<String>,
}

/// Checks an image URL against the allowed schemes.
pub fn check_url(url: &str) -> Result<(), PropsError> {
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(PropsError::Invalid(
            "\"url\" must not contain whitespace or control characters".into(),
        ));
    }
    let lower = url.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("https://") {
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        if host.is_empty() || host.starts_with('@') {
            return Err(PropsError::Invalid("\"url\" has no host".into()));
        }
        return Ok(());
    }
    if let Some(rest) = lower.strip_prefix("data:image/") {
        let subtype = rest.split([';', ',']).next().unwrap_or("");
        if !DATA_IMAGE_TYPES.contains(&subtype) {
            return Err(PropsError::Invalid(format!(
                "data URL type image/{subtype} is not allowed (expected one of {})",
                DATA_IMAGE_TYPES.join(", ")
            )));
        }
        if !rest.contains(',') {
            return Err(PropsError::Invalid("data URL has no data".into()));
        }
        return Ok(());
    }
    let scheme = lower.split(':').next().filter(|_| lower.contains(':'));
    Err(PropsError::Invalid(match scheme {
        Some(s) => format!("URL scheme \"{s}:\" is not allowed (only https: and data:image/)"),
        None => "\"url\" must be an absolute https: or data:image/ URL".into(),
    }))
}

/// Validates image props.
pub fn parse(props: &Value) -> Result<ImageProps, PropsError> {
    let obj = as_object(props, "image props")?;
    let url = req_str(obj, "url")?;
    check_url(&url)?;
    let alt = req_str(obj, "alt")?;
    if alt.trim().is_empty() {
        return Err(PropsError::Invalid("\"alt\" must not be empty".into()));
    }
    let caption = opt_str(obj, "caption")?;
    Ok(ImageProps { url, alt, caption })
}

/// The registry entry.
pub fn render(props: &Value) -> Result<AnyView, PropsError> {
    parse(props).map(view)
}

/// The host of an `https:` URL (without user info), or `None` for other (data:) URLs.
pub fn remote_host(url: &str) -> Option<&str> {
    let rest = url
        .get(..8)?
        .eq_ignore_ascii_case("https://")
        .then(|| &url[8..])?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    Some(authority.rsplit('@').next().unwrap_or(authority))
}

/// The image built from validated props.
pub fn view(p: ImageProps) -> AnyView {
    // Remote images wait for the user; data: images need no fetch.
    let allowed = RwSignal::new(remote_host(&p.url).is_none());
    view_with(p, allowed)
}

/// [`view`] with the "Load image" decision in `allowed` (set by the button's click).
pub(crate) fn view_with(p: ImageProps, allowed: RwSignal<bool>) -> AnyView {
    let failed = RwSignal::new(false);
    let ImageProps { url, alt, caption } = p;
    let host = remote_host(&url).map(str::to_string);
    let placeholder = alt.clone();
    let image = move || {
        if !allowed.get() {
            let host = host.clone().unwrap_or_default();
            let label = format!("Load image from {host}");
            view! {
                <div class="rh-image-blocked" role="group" aria-label=placeholder.clone()>
                    <span class="rh-image-alt">{placeholder.clone()}</span>
                    " "
                    <span class="rh-image-host">{format!("(remote image from {host}, not loaded)")}</span>
                    " "
                    <button type="button" class="rh-image-load" aria-label=label
                        on:click=move |_| allowed.set(true)>"Load image"</button>
                </div>
            }
            .into_any()
        } else if failed.get() {
            view! { <div class="rh-image-placeholder" role="img" aria-label=placeholder.clone()>{placeholder.clone()}</div> }
                .into_any()
        } else {
            view! {
                <img src=url.clone() alt=alt.clone() loading="lazy" decoding="async"
                    referrerpolicy="no-referrer" on:error=move |_| failed.set(true)/>
            }
            .into_any()
        }
    };
    let caption = caption.map(|c| view! { <div class="rh-image-caption">{c}</div> });
    view! { <div class="rh-image">{image}{caption}</div> }.into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn allowed_urls() {
        for url in [
            "https://example.com/a.png",
            "HTTPS://Example.com",
            "data:image/png;base64,iVBORw0KGgo=",
            "data:image/jpeg,xyz",
        ] {
            assert_eq!(check_url(url), Ok(()), "{url}");
        }
        let p = parse(&json!({"url": "https://x.test/i.png", "alt": "x", "caption": "c"})).unwrap();
        assert_eq!(p.caption.as_deref(), Some("c"));
    }

    #[test]
    fn rejected_urls() {
        let cases = [
            ("javascript:alert(1)", "\"javascript:\" is not allowed"),
            ("JavaScript:alert(1)", "\"javascript:\" is not allowed"),
            ("http://example.com/a.png", "\"http:\" is not allowed"),
            ("data:text/html,<script>", "\"data:\" is not allowed"),
            (
                "data:image/svg+xml,<svg/onload=alert(1)>",
                "image/svg+xml is not allowed",
            ),
            ("data:image/png;base64", "no data"),
            ("//example.com/a.png", "absolute"),
            ("/local.png", "absolute"),
            ("https://", "no host"),
            ("https://ex ample.com", "whitespace"),
            ("java\tscript:alert(1)", "whitespace"),
        ];
        for (url, msg) in cases {
            let e = check_url(url).unwrap_err().to_string();
            assert!(e.contains(msg), "{url}: {e}");
        }
    }

    #[test]
    fn remote_hosts() {
        assert_eq!(remote_host("https://x.test/a.png"), Some("x.test"));
        assert_eq!(
            remote_host("HTTPS://u:p@Cdn.x.test:8443?q"),
            Some("Cdn.x.test:8443")
        );
        assert_eq!(remote_host("data:image/png;base64,AA=="), None);
        assert_eq!(remote_host("é"), None);
    }

    #[test]
    fn invalid_props() {
        let err = |v: Value| parse(&v).unwrap_err().to_string();
        assert_eq!(err(json!({"alt": "x"})), "\"url\" is required");
        assert_eq!(
            err(json!({"url": "https://x.test/a.png"})),
            "\"alt\" is required"
        );
        assert_eq!(
            err(json!({"url": "https://x.test/a.png", "alt": "  "})),
            "\"alt\" must not be empty"
        );
        assert!(err(json!({"url": "javascript:alert(1)", "alt": "x"})).contains("not allowed"));
    }
}
