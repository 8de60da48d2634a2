//! A proxy to a foreign AG-UI agent (LangGraph, CrewAI, Mastra, Pydantic AI, the official SDKs…):
//! the run's input is POSTed to the foreign URL and its SSE answer (or protobuf frames, with
//! `transport=proto`) goes through this crate's client pipeline (decoder → dialects → enforcement → chunks → verifier → reducer) before the events are
//! re-emitted as our own, so foreign runs get the same translation, verification and persistence
//! as local ones. Error codes and behaviour are described in `docs/proxy.md`.
//!
//! The foreign agent is not trusted: redirects are not followed (they would carry the
//! configured headers elsewhere), and its response is bounded in total bytes and events
//! (`--max-upstream-bytes`/`-events`, code `RunErrorCode::UpstreamLimit`), not only per line.

pub mod caps;
mod feed;
mod open;
mod quirks;
mod relay;
pub mod spec;

use std::time::Duration;

use futures::future::BoxFuture;
use reqwest::{Client, Url};
use serde_json::json;

use super::{Agent, AgentError, AgentInfo, RunContext, RunEnd};

pub use spec::ProxySpec;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A model may think for minutes between tokens, but a silent socket for this long is dead.
const IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// A foreign agent configured by `--proxy ID=URL[,header=…]`.
pub struct ProxyAgent {
    spec: ProxySpec,
    client: Client,
    /// The foreign agent's published capabilities, read in the background.
    foreign: std::sync::Arc<caps::Foreign>,
}

impl ProxyAgent {
    /// Fails only when the platform's TLS setup cannot make an HTTP client.
    pub fn new(spec: ProxySpec) -> reqwest::Result<Self> {
        let mut builder = Client::builder()
            .user_agent(concat!(
                "agui-studio/",
                env!("CARGO_PKG_VERSION"),
                " (AG-UI proxy)"
            ))
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(IDLE_TIMEOUT)
            // A redirect would re-send the configured (secret) headers to wherever it points,
            // and 301/302 would turn the POST into a GET: report it instead.
            .redirect(reqwest::redirect::Policy::none());
        if is_loopback(&spec.url) {
            // An HTTP(S)_PROXY meant for the outside world must not capture a local agent.
            builder = builder.no_proxy();
        }
        let client = builder.build()?;
        let foreign = std::sync::Arc::new(caps::Foreign::default());
        foreign.refresh(&client, &spec);
        Ok(ProxyAgent {
            spec,
            client,
            foreign,
        })
    }

    /// `host[:port]` of the foreign agent: what logs and messages name (never the full URL,
    /// whose query may hold a key).
    fn host(&self) -> String {
        host_of(&self.spec.url)
    }
}

impl Agent for ProxyAgent {
    fn info(&self) -> AgentInfo {
        let host = self.host();
        AgentInfo {
            id: self.spec.id.clone(),
            name: self.spec.id.clone(),
            description: format!(
                "Foreign AG-UI agent at {host}, proxied: its events are translated, verified and stored here."
            ),
            capabilities: caps::describe(&self.spec, &host, self.foreign.get()),
            extra: serde_json::Map::from_iter([(
                "proxy".to_string(),
                json!({"host": host}),
            )]),
        }
    }

    fn run<'a>(&'a self, ctx: &'a mut RunContext) -> BoxFuture<'a, Result<RunEnd, AgentError>> {
        Box::pin(async move {
            // Not read at start (the foreign agent was down): try again, in the background.
            self.foreign.refresh(&self.client, &self.spec);
            let (response, feed) = self.open(ctx).await?;
            tracing::debug!(run = %ctx.run_id(), format = feed::name(feed), "foreign stream");
            self.relay(ctx, response, feed).await
        })
    }
}

fn host_of(url: &Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        (Some(h), None) => h.to_string(),
        _ => "?".into(),
    }
}

fn is_loopback(url: &Url) -> bool {
    let host = url.host_str().unwrap_or("");
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests;
