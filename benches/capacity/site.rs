//! First-load bytes: the WASM, JS and CSS of the built site (`target/site/pkg`, or
//! `CAPACITY_SITE_DIR/pkg`), raw and as served compressed. The `.gz`/`.br` files written by
//! `cargo leptos build --release --precompress` are read when present; without them the gzip size
//! is computed with `gzip -9` and the brotli size is left out.
//!
//! A split build (`--split`) also holds WASM chunks that the page fetches after it is
//! interactive: when a lazy view first renders, or while idle after hydration (a run's code and
//! the messages' views, fetched ahead of the first message): the ones
//! `__wasm_split_manifest.json` names are counted apart, as after the first load; everything
//! else (the main module, its JS, the split loader's JS, the CSS) is the first load.
//! `end2end/bench/firstload.mjs` measures the same split in Chromium, over the wire.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One file of the first load.
#[derive(Debug, Clone)]
pub struct File {
    pub name: String,
    pub raw: u64,
    pub gzip: Option<u64>,
    /// The gzip size was computed here (no `.gz` beside the file).
    pub gzip_computed: bool,
    pub brotli: Option<u64>,
    /// A lazy view's chunk, fetched when that view first renders (not part of the first load).
    pub on_demand: bool,
}

/// The site's first-load files (`.wasm`, `.js`, `.css` under `pkg/`, sub-folders included).
pub fn first_load(site: &Path) -> Result<Vec<File>, String> {
    let pkg = site.join("pkg");
    let mut paths = Vec::new();
    collect(&pkg, &mut paths).map_err(|e| format!("{}: {e}", pkg.display()))?;
    paths.sort();
    let chunks = lazy_chunks(&pkg);
    let files: Vec<File> = paths
        .iter()
        .map(|p| {
            let size = |p: PathBuf| std::fs::metadata(p).ok().map(|m| m.len());
            let with = |ext: &str| PathBuf::from(format!("{}.{ext}", p.display()));
            let gz = size(with("gz"));
            File {
                name: p
                    .strip_prefix(&pkg)
                    .unwrap_or(p)
                    .to_string_lossy()
                    .into_owned(),
                raw: size(p.clone()).unwrap_or(0),
                gzip: gz.or_else(|| gzip_size(p)),
                gzip_computed: gz.is_none(),
                brotli: size(with("br")),
                on_demand: p.file_stem().and_then(|s| s.to_str()).is_some_and(|s| {
                    p.extension().is_some_and(|e| e == "wasm") && chunks.contains(&s.to_string())
                }),
            }
        })
        .collect();
    if files.is_empty() {
        return Err(format!("no .wasm/.js/.css in {}", pkg.display()));
    }
    Ok(files)
}

/// The chunk names (file stems) in `__wasm_split_manifest.json`: each lazy function's split and
/// the shared chunks it needs. Empty for a build without `--split`.
fn lazy_chunks(pkg: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(pkg.join("__wasm_split_manifest.json")) else {
        return Vec::new();
    };
    let manifest: std::collections::HashMap<String, Vec<String>> =
        serde_json::from_str(&text).unwrap_or_default();
    manifest.into_values().flatten().collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("wasm" | "js" | "css")
        ) {
            out.push(path);
        }
    }
    Ok(())
}

/// `gzip -9 -c FILE | wc -c`, without a shell.
fn gzip_size(path: &Path) -> Option<u64> {
    let out = Command::new("gzip")
        .arg("-9")
        .arg("-c")
        .arg(path)
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout.len() as u64)
}

/// Print the files and return the gzip total of the first load (what a browser downloads before
/// the default page is interactive; chunks loaded on demand are marked and left out).
pub fn print(files: &[File]) -> u64 {
    let kb = |b: u64| format!("{:.1} KB", b as f64 / 1024.0);
    println!(
        "  {:<28} {:>12} {:>14} {:>12}",
        "file", "raw", "gzip", "brotli"
    );
    for f in files {
        println!(
            "  {:<28} {:>12} {:>14} {:>12}{}",
            f.name,
            kb(f.raw),
            f.gzip
                .map(|g| format!("{}{}", kb(g), if f.gzip_computed { "*" } else { "" }))
                .unwrap_or_else(|| "—".into()),
            f.brotli.map(kb).unwrap_or_else(|| "—".into()),
            if f.on_demand { "  (on demand)" } else { "" },
        );
    }
    if files.iter().any(|f| f.gzip_computed) {
        println!("  (* computed with gzip -9: the site was built without --precompress)");
    }
    let (first, later): (Vec<&File>, Vec<&File>) = files.iter().partition(|f| !f.on_demand);
    let gz = |fs: &[&File]| fs.iter().filter_map(|f| f.gzip).sum::<u64>();
    if !later.is_empty() {
        println!(
            "  first load {} gzip; after hydration (while idle or on demand), {} chunk(s): {} gzip",
            kb(gz(&first)),
            later.len(),
            kb(gz(&later))
        );
    }
    gz(&first)
}
