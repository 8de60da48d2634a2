//! `agui-studio inspect`: read a recorded stream (file or stdin), run it through the full client
//! pipeline and print one JSON report — what does my agent really stream?

use std::io::Read;
use std::process::ExitCode;

use serde_json::Value;

use crate::protocol::compat::parse_version;
use crate::protocol::inspect::{inspect, parse_recording, Inspection};

use super::config::InspectArgs;
use crate::protocol::error::ProtocolError;

/// Why a recording could not be inspected (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    #[error("cannot read {what}: {source}")]
    Read {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not JSON: {source}")]
    InputNotJson {
        path: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("--max-protocol-version: cannot parse '{0}'")]
    BadVersion(String),
    #[error(transparent)]
    Recording(#[from] ProtocolError),
}

/// The CLI entry point.
pub fn run(args: InspectArgs) -> ExitCode {
    match load(&args) {
        Ok(inspection) => {
            let report = inspect(inspection);
            let text = if args.pretty {
                serde_json::to_string_pretty(&report)
            } else {
                serde_json::to_string(&report)
            }
            .expect("reports serialise");
            println!("{text}");
            if report["outcome"] == "completed" {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("agui-studio inspect: {e}");
            ExitCode::from(2)
        }
    }
}

fn load(args: &InspectArgs) -> Result<Inspection, InspectError> {
    let read = |p: &std::path::Path| {
        std::fs::read(p).map_err(|source| InspectError::Read {
            what: p.display().to_string(),
            source,
        })
    };
    let bytes = match args.file.as_deref() {
        None => read_stdin()?,
        Some(p) if p.as_os_str() == "-" => read_stdin()?,
        Some(p) => read(p)?,
    };
    let mut inspection = parse_recording(bytes)?;
    if let Some(path) = &args.input {
        let v: Value =
            serde_json::from_slice(&read(path)?).map_err(|source| InspectError::InputNotJson {
                path: path.display().to_string(),
                source,
            })?;
        inspection.input = Some(v);
    }
    if let Some(v) = &args.max_protocol_version {
        let version = parse_version(v).ok_or_else(|| InspectError::BadVersion(v.clone()))?;
        inspection.max_protocol_version = Some(version);
    }
    Ok(inspection)
}

fn read_stdin() -> Result<Vec<u8>, InspectError> {
    let mut buf = Vec::new();
    std::io::stdin()
        .read_to_end(&mut buf)
        .map_err(|source| InspectError::Read {
            what: "standard input".into(),
            source,
        })?;
    Ok(buf)
}
