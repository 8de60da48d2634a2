//! Who is asking: the middleware that puts the current [`User`] in every request's extensions
//! (from a bearer token or a session cookie, see [`crate::server::accounts`]), the sign-in
//! screen and its endpoints, and the guards every request passes (Host, Origin, security
//! headers).

use axum::extract::{Form, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde::Deserialize;

mod guard;
mod headers;
pub use guard::{guard, host_allowed};
pub use headers::{policy, security_headers};

use super::accounts::{session_cookie, User, SESSION_COOKIE, SESSION_LIFETIME};
use super::error::ApiError;
use super::state::AppState;

// ---- the middleware ----

/// Paths open to everyone: the health check, the sign-in endpoints and the site's static files
/// (the sign-in screen needs the stylesheet; the WASM and JS reveal nothing but the app).
fn is_public(req: &Request) -> bool {
    let path = req.uri().path();
    path == "/healthz"
        || path == "/auth/login"
        || path == "/auth/logout"
        // The frame loader is the same static document for everyone; no data.
        || path == crate::wire::frame::FRAME_PATH
        // CORS preflights carry no credentials; the CORS layer answers them.
        || req.method() == Method::OPTIONS
        || super::assets::is_asset(path)
}

/// Put the request's [`User`] in its extensions, or refuse it: 401 JSON for the API, the
/// sign-in screen for a page.
pub async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    if !state.auth.enabled() {
        req.extensions_mut().insert(User::anonymous());
        return next.run(req).await;
    }
    if is_public(&req) {
        return next.run(req).await;
    }
    match state.auth.user_of_request(req.headers()) {
        Some(user) => {
            req.extensions_mut().insert(user);
            next.run(req).await
        }
        None if wants_page(&req) => {
            let here = req
                .uri()
                .path_and_query()
                .map(|p| p.as_str().to_string())
                .unwrap_or_else(|| "/".into());
            sign_in_page(StatusCode::UNAUTHORIZED, &here, None)
        }
        None => ApiError::Unauthorized.into_response(),
    }
}

/// A page a person reads (the sign-in screen answers it), rather than an API call.
fn wants_page(req: &Request) -> bool {
    let path = req.uri().path();
    let api = path.starts_with("/api/") || path.starts_with("/agent/");
    !api && matches!(*req.method(), Method::GET | Method::HEAD)
}

// ---- sign-in and sign-out ----

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/auth/login", post(login))
        .route("/auth/logout", post(logout))
}

#[derive(Debug, Deserialize)]
struct LoginForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    next: String,
}

/// `POST /auth/login` (a form: `token`, `next`): a session cookie and a redirect to `next`, or
/// the sign-in screen again.
async fn login(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> Response {
    let next = local_path(&form.next);
    if !state.auth.enabled() {
        return redirect(next, None);
    }
    let Some(user) = state.auth.user_of_token(form.token.trim()) else {
        return sign_in_page(
            StatusCode::UNAUTHORIZED,
            next,
            Some("That token is not valid."),
        );
    };
    let id = state.auth.create_session(user);
    let secure = if is_tls(&headers) { "; Secure" } else { "" };
    let cookie = format!(
        "{SESSION_COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}{secure}",
        SESSION_LIFETIME.as_secs()
    );
    redirect(next, Some(cookie))
}

/// `POST /auth/logout`: the session ends and the cookie is cleared.
async fn logout(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(id) = session_cookie(&headers) {
        state.auth.end_session(&id);
    }
    let secure = if is_tls(&headers) { "; Secure" } else { "" };
    let cookie = format!("{SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0{secure}");
    redirect("/", Some(cookie))
}

/// Whether the browser reached us over TLS: this server speaks plain HTTP, so only a TLS proxy
/// in front of it that says so (`X-Forwarded-Proto: https`). Believing a forged header only
/// adds `Secure` to a cookie.
fn is_tls(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
}

/// `next` when it is a path of this site, else `/`: the sign-in form is no open redirect.
fn local_path(next: &str) -> &str {
    let ok = next.starts_with('/')
        && !next.starts_with("//")
        && !next.starts_with("/\\")
        && next.len() <= 2048
        && next.bytes().all(|b| b.is_ascii_graphic());
    if ok {
        next
    } else {
        "/"
    }
}

fn redirect(to: &str, cookie: Option<String>) -> Response {
    let mut resp = StatusCode::SEE_OTHER.into_response();
    let h = resp.headers_mut();
    h.insert(
        header::LOCATION,
        HeaderValue::from_str(to).unwrap_or(HeaderValue::from_static("/")),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Some(c) = cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        h.insert(header::SET_COOKIE, c);
    }
    resp
}

/// The sign-in screen: a token field and "Sign in", no script.
fn sign_in_page(status: StatusCode, next: &str, error: Option<&str>) -> Response {
    let next = html_escape(local_path(next));
    let error = error
        .map(|e| {
            format!(
                r#"<p class="sign-in-error" role="alert">{}</p>"#,
                html_escape(e)
            )
        })
        .unwrap_or_default();
    let body = format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Sign in · agui-studio</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/pkg/agui-studio.css">
</head>
<body>
<main class="sign-in">
<h1>agui-studio</h1>
<form method="post" action="/auth/login">
<label class="field"><span class="field-label">Token</span>
<input type="password" name="token" autocomplete="current-password" required autofocus></label>
<input type="hidden" name="next" value="{next}">
<button type="submit" class="btn">Sign in</button>
</form>
{error}
</main>
</body>
</html>
"#
    );
    let mut resp = (status, Html(body)).into_response();
    resp.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::accounts::{Auth, User};

    #[test]
    fn sessions_and_redirects() {
        let auth = Auth::new(Some("sesame"), None).unwrap();
        let id = auth.create_session(User("default".into()));
        assert_eq!(id.len(), 64);
        assert_ne!(id, auth.create_session(User("default".into())));
        assert_eq!(auth.user_of_session(&id).unwrap().name(), "default");
        auth.end_session(&id);
        assert!(auth.user_of_session(&id).is_none());
        assert_eq!(local_path("/?thread=t1"), "/?thread=t1");
        for bad in [
            "//evil.example",
            "https://evil.example",
            "/\\evil",
            "",
            "/a b",
        ] {
            assert_eq!(local_path(bad), "/", "{bad}");
        }
    }
}
