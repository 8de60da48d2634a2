//! The request guard in front of everything: `Host` must name this server (421 otherwise, which
//! stops DNS rebinding), and a state-changing request must be JSON (415) sent by this origin or
//! one of `--cors-origin` when a browser says where it comes from (403). A browser sends a
//! cross-site "simple request" (`text/plain`, form types) without asking first; refusing every
//! non-JSON body takes that door away, and the Origin check refuses the rest.

use std::net::SocketAddr;

use axum::extract::{Request, State};
use axum::http::{header, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::server::error::ApiError;
use crate::server::state::{AppState, ServerConfig};

/// Refuse requests for another host, cross-site writes and writes that are not JSON.
pub async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    match check(&state.config, &req) {
        Ok(()) => next.run(req).await,
        Err(e) => e.into_response(),
    }
}

fn check(config: &ServerConfig, req: &Request) -> Result<(), ApiError> {
    let path = req.uri().path();
    // Orchestrators probe health with whatever Host they like; it reveals nothing.
    if path == "/healthz" {
        return Ok(());
    }
    let host = request_host(req).ok_or(ApiError::MisdirectedRequest)?;
    if !host_allowed(&host, config.addr, &config.allowed_hosts) {
        return Err(ApiError::MisdirectedRequest);
    }
    if matches!(
        *req.method(),
        Method::GET | Method::HEAD | Method::OPTIONS | Method::TRACE
    ) {
        return Ok(());
    }
    let headers = req.headers();
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    let cross_site = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("cross-site"));
    let same_origin_fetch = headers
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("same-origin"));
    let any_origin = config.cors_origins.iter().any(|o| o.trim() == "*");
    match origin {
        // Our own `Referrer-Policy: no-referrer` makes a browser send `Origin: null` with a
        // same-origin form POST (the sign-in form); the browser's own `Sec-Fetch-Site`, which
        // no page can set, says where it came from. Any other opaque origin (a sandboxed
        // frame, a `data:` page) is refused.
        Some(o) if o.trim() == "null" && !same_origin_fetch => {
            return Err(ApiError::ForbiddenOrigin);
        }
        Some(o) if o.trim() == "null" => {}
        Some(o) => {
            let same = origin_host(o).is_some_and(|h| h.eq_ignore_ascii_case(&host));
            let listed = any_origin
                || config.cors_origins.iter().any(|c| {
                    c.trim()
                        .trim_end_matches('/')
                        .eq_ignore_ascii_case(o.trim())
                });
            // A cross-site request from the same host (another port's page fetching ours
            // with `Sec-Fetch-Site: same-site`) is still judged by its Origin.
            if !(listed || (same && !cross_site)) {
                return Err(ApiError::ForbiddenOrigin);
            }
        }
        None if cross_site && !any_origin => return Err(ApiError::ForbiddenOrigin),
        None => {}
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    // The sign-in form is a browser form; it changes nothing but the session.
    if path == "/auth/login" || path == "/auth/logout" {
        return match content_type.as_deref() {
            None | Some("application/x-www-form-urlencoded") => Ok(()),
            Some(_) => Err(ApiError::UnsupportedMediaType),
        };
    }
    match content_type.as_deref() {
        Some("application/json") => Ok(()),
        // A bodiless POST (e.g. `abort`) carries no data to be mislabelled.
        None if !has_body(req) => Ok(()),
        _ => Err(ApiError::UnsupportedMediaType),
    }
}

fn has_body(req: &Request) -> bool {
    let h = req.headers();
    h.contains_key(header::TRANSFER_ENCODING)
        || h.get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim() != "0")
}

/// The host the request names: `Host` (HTTP/1.1), else the URI's authority (HTTP/2).
fn request_host(req: &Request) -> Option<String> {
    let host = match req.headers().get(header::HOST) {
        Some(v) => v.to_str().ok()?.trim().to_string(),
        None => req.uri().authority()?.as_str().to_string(),
    };
    (!host.is_empty()).then_some(host)
}

/// Split `host[:port]` (IPv6 literals in brackets) into its name and port.
fn split_host(host: &str) -> (&str, Option<&str>) {
    if let Some(rest) = host.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((ip, after)) => (ip, after.strip_prefix(':')),
            None => (host, None),
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') => (name, Some(port)),
        _ => (host, None),
    }
}

/// Whether `host` (a `Host` value) names this server: loopback names on any port, the bound
/// address, or an `--allowed-host` (`*`: any; a name without a port: on any port).
pub fn host_allowed(host: &str, bound: Option<SocketAddr>, allowed: &[String]) -> bool {
    let (name, port) = split_host(host);
    if port.is_some_and(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let name = name.to_ascii_lowercase();
    let name = name.trim_end_matches('.');
    if matches!(name, "localhost" | "127.0.0.1" | "::1") {
        return true;
    }
    if let Some(addr) = bound {
        let ip = addr.ip();
        if !ip.is_unspecified() && name.parse().ok() == Some(ip) {
            return port.is_none_or(|p| p.parse() == Ok(addr.port()));
        }
    }
    allowed.iter().map(|a| a.trim()).any(|a| {
        if a == "*" {
            return true;
        }
        let (a_name, a_port) = split_host(a);
        a_name.trim_end_matches('.').eq_ignore_ascii_case(name)
            && a_port.is_none_or(|ap| port == Some(ap))
    })
}

/// `host[:port]` of an `Origin` (`scheme://host[:port]`); None for `null` and the like.
fn origin_host(origin: &str) -> Option<&str> {
    let (_, rest) = origin.trim().split_once("://")?;
    (!rest.is_empty() && !rest.contains('/')).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        let bound: SocketAddr = "192.168.1.5:3000".parse().unwrap();
        let allowed = vec![
            "studio.example.com".to_string(),
            "other.example:8443".into(),
        ];
        for ok in [
            "localhost",
            "localhost:3000",
            "LOCALHOST:1",
            "127.0.0.1:3000",
            "[::1]:3000",
            "[::1]",
            "192.168.1.5:3000",
            "192.168.1.5",
            "studio.example.com",
            "studio.example.com:443",
            "other.example:8443",
        ] {
            assert!(host_allowed(ok, Some(bound), &allowed), "{ok}");
        }
        for bad in [
            "attacker.example",
            "attacker.example:3000",
            "192.168.1.5:3001",
            "192.168.1.6:3000",
            "other.example:443",
            "localhost.attacker.example",
            "127.0.0.1.nip.io",
            "localhost:abc",
            "localhost:",
        ] {
            assert!(!host_allowed(bad, Some(bound), &allowed), "{bad}");
        }
        let any: SocketAddr = "0.0.0.0:3000".parse().unwrap();
        assert!(!host_allowed("0.0.0.0:3000", Some(any), &[]));
        assert!(host_allowed("anything", Some(any), &["*".into()]));
        assert_eq!(origin_host("http://localhost:3000"), Some("localhost:3000"));
        assert_eq!(origin_host("null"), None);
    }
}
