//! Generates the protobuf binding's Rust types from `proto/*.proto` (the AG-UI 1.1 definitions,
//! vendored, see `proto/README.md`). protox compiles the files in pure Rust, so no `protoc`
//! binary is needed; the compiled descriptor set is written next to the code so tests can check
//! every field number against the frozen ledger (`proto/proto-freeze.txt`).

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "proto/events.proto",
        "proto/types.proto",
        "proto/patch.proto",
    ];
    for f in files {
        println!("cargo:rerun-if-changed={f}");
    }
    let fds = protox::compile(files, ["proto"])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out.join("ag_ui_descriptor.bin"),
        prost::Message::encode_to_vec(&fds),
    )?;
    prost_build::Config::new().compile_fds(fds)?;
    Ok(())
}
