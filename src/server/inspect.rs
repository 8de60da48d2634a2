//! `agui-studio inspect`: read a recorded stream (file or stdin), run it through the full client
//! pipeline and print one JSON report — what does my agent really stream?

use std::io::Read;
use std::process::ExitCode;

use serde_json::Value;

use crate::protocol::compat::parse_version;
use crate::protocol::inspect::{inspect, parse_recording, Inspection};

use super::config::InspectArgs;

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

fn load(args: &InspectArgs) -> Result<Inspection, String> {
    let bytes = match args.file.as_deref() {
        None => read_stdin()?,
        Some(p) if p.as_os_str() == "-" => read_stdin()?,
        Some(p) => std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?,
    };
    let mut inspection = parse_recording(bytes)?;
    if let Some(path) = &args.input {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
        inspection.input = Some(v);
    }
    if let Some(v) = &args.max_protocol_version {
        inspection.max_protocol_version = Some(
            parse_version(v)
                .ok_or_else(|| format!("--max-protocol-version: cannot parse '{v}'"))?,
        );
    }
    Ok(inspection)
}

fn read_stdin() -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    std::io::stdin()
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    Ok(buf)
}
