#!/usr/bin/env bash
# agui-studio's one script: make a machine ready, run the app, run every test, run benchmarks.
#
#   scripts/studio.sh setup    install what building and testing need (idempotent, quick when present)
#   scripts/studio.sh run      set up, build the release binary and serve it (no API key needed)
#   scripts/studio.sh test     set up, then run every test suite (what CI runs)
#   scripts/studio.sh bench    run the benchmarks and print their figures
#   scripts/studio.sh release  build the self-contained release binary only
#
# Offline-safe: cargo-leptos would download wasm-bindgen, sass and wasm-opt from GitHub; we
# install each from a package registry instead (see ../shared/TOOLCHAIN.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CARGO_LEPTOS_VERSION=0.3.10
# The wasm-bindgen CLI must equal the crate pinned in Cargo.toml, byte for byte.
WASM_BINDGEN_VERSION="$(sed -nE 's/^wasm-bindgen = \{ version = "=([0-9.]+)".*/\1/p' Cargo.toml)"
export PATH="$ROOT/end2end/node_modules/.bin:$HOME/.cargo/bin:$PATH"

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

setup() {
  local want_browser="${1:-yes}"
  say "checking the toolchain"
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  if ! cargo leptos --version 2>/dev/null | grep -q "$CARGO_LEPTOS_VERSION"; then
    say "installing cargo-leptos $CARGO_LEPTOS_VERSION (about 18 minutes on 2 cores)"
    cargo install cargo-leptos --version "$CARGO_LEPTOS_VERSION" --locked
  fi
  if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
    say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2 minutes)"
    CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback \
      cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
  fi
  if [ "$want_browser" = yes ] && ! command -v cargo-machete >/dev/null; then
    say "installing cargo-machete (unused dependencies; about 3 minutes)"
    cargo install cargo-machete --version 0.9.2 --locked
  fi
  if [ "$want_browser" = yes ] && ! command -v chromium >/dev/null; then
    say "installing Debian's chromium for the browser tests"
    as_root apt-get update
    as_root apt-get install -y chromium
  fi
  if [ "$want_browser" = yes ] && ! command -v zopfli >/dev/null; then
    say "installing zopfli (the release site's .gz files, see regzip_site)"
    as_root apt-get install -y zopfli || { as_root apt-get update && as_root apt-get install -y zopfli; }
  fi
  if [ "$want_browser" = yes ] && ! command -v ss >/dev/null; then
    say "installing iproute2 (ss: tests/hostile.rs reads the server's socket buffers)"
    as_root apt-get install -y iproute2 || { as_root apt-get update && as_root apt-get install -y iproute2; }
  fi
  if [ ! -x end2end/node_modules/.bin/wasm-opt ] || [ end2end/package-lock.json -nt end2end/node_modules/.package-lock.json ]; then
    say "installing npm packages in end2end/ (playwright-core, binaryen's wasm-opt, the @ag-ui packages of tests/foreign/a2ui_agent.mjs, CopilotKit's core client, the reference MCP server of tests/mcp.rs)"
    (cd end2end && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
  fi
  # Debian's binaryen (wasm-opt 108) silently breaks hydration; ours must come first on PATH.
  case "$(command -v wasm-opt)" in
    "$ROOT"/end2end/node_modules/.bin/wasm-opt) ;;
    *) echo "error: wasm-opt on PATH is $(command -v wasm-opt), not end2end's npm binaryen" >&2; exit 1 ;;
  esac
  python_venv
}

# The Python venv of the foreign AG-UI agents that tests/proxy.rs and tests/frameworks.rs proxy:
# the official SDK with uvicorn, then LangGraph (ag-ui-langgraph) and Pydantic AI with fake models
# (about 25 s and 100 MB more on a fresh machine). Skipped while the stamp is newer than both files.
# requirements.txt also holds the MCP server tests/mcp.rs reaches over streamable HTTP.
python_venv() {
  local req=tests/foreign/requirements.txt fw=tests/foreign/requirements-frameworks.txt
  if [ -x .venv/bin/python ] && [ .venv/.requirements-installed -nt "$req" ] \
    && [ .venv/.requirements-installed -nt "$fw" ]; then
    return
  fi
  say "creating the Python venv .venv/ for the proxy tests ($req, $fw)"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r "$req" -r "$fw"
  touch .venv/.requirements-installed
}

# The release site's WASM is built by a pinned nightly that compiles `std` for the page with
# panics that abort at once (`-Cpanic=immediate-abort`, `-Zlocation-detail=none`, std's
# `optimize_for_size`): no panic messages, source locations or the formatting they need in the
# first load (-49 KB gzip, see the README's capacity section). A panic in the page still stops it
# (as `panic = "abort"` did), with "RuntimeError: unreachable" in the console instead of its
# message; `cargo leptos watch` and every test build stay on stable and keep the messages.
# AGUI_SITE_STABLE=1 builds the release site on stable too; so does a machine where the nightly
# cannot be installed (with a warning). Prints the toolchain to use, or nothing for stable.
SITE_NIGHTLY=nightly-2026-05-20
SITE_NIGHTLY_RUSTC="e50aa6fba 2026-05-19"
site_toolchain() {
  [ -n "${AGUI_SITE_STABLE:-}" ] && return 0
  local tc=""
  if RUSTUP_AUTO_INSTALL=0 rustc "+$SITE_NIGHTLY" -V >/dev/null 2>&1; then
    tc="$SITE_NIGHTLY"
  elif rustc +nightly -V 2>/dev/null | grep -q "($SITE_NIGHTLY_RUSTC)"; then
    tc=nightly # the same build, installed under the channel's name
  else
    say "installing the release site's toolchain $SITE_NIGHTLY (minimal, with rust-src; about 1 minute)" >&2
    rustup toolchain install "$SITE_NIGHTLY" --profile minimal --component rust-src >&2 && tc="$SITE_NIGHTLY"
  fi
  if [ -n "$tc" ] && ! rustup component list --toolchain "$tc" --installed 2>/dev/null | grep -qx rust-src; then
    rustup component add rust-src --toolchain "$tc" >&2 || tc=""
  fi
  [ -n "$tc" ] || echo "warning: $SITE_NIGHTLY could not be installed: the release site is built on stable (larger first load)" >&2
  echo "$tc"
}

release() {
  # --precompress writes the .br/.gz forms the release binary embeds and serves; the site is
  # built first (--frontend-only), its .gz files made smaller, then the server embeds them.
  local tc
  tc="$(site_toolchain)"
  if [ -n "$tc" ]; then
    say "building the release site with $tc (WASM, JS, CSS and their .br/.gz forms)"
    RUSTUP_TOOLCHAIN="$tc" CARGO_UNSTABLE_BUILD_STD=std,panic_abort \
      CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size \
      RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none" \
      cargo leptos build --release --precompress --split --frontend-only
  else
    say "building the release site on stable (WASM, JS, CSS and their .br/.gz forms)"
    cargo leptos build --release --precompress --split --frontend-only
  fi
  regzip_site
  say "building the release binary (site embedded)"
  cargo leptos build --release --server-only
  ls -l target/release/agui-studio
}

# cargo-leptos's .gz files come from a fast deflate (libflate): the WASM's was 17 % larger than
# `gzip -9` makes it. Each is written again with zopfli when it is installed (4-5 % smaller than
# `gzip -9`; setup installs it with the browser), else with `gzip -9`. Same bytes once unpacked.
regzip_site() {
  local f tool="gzip -9"
  command -v zopfli >/dev/null && tool="zopfli"
  say "recompressing the site's .gz files ($tool)"
  while IFS= read -r -d '' f; do
    if [ "$tool" = zopfli ]; then zopfli -c "${f%.gz}" >"$f.tmp"; else gzip -9 -n -c "${f%.gz}" >"$f.tmp"; fi
    mv -f "$f.tmp" "$f"
  done < <(find target/site -name '*.gz' -print0)
}

run() {
  setup no
  release
  say "starting agui-studio (Ctrl-C stops it)"
  exec target/release/agui-studio "$@"
}

# The release build needs a few GB beside the debug one; on a small disk (CI runners), the debug
# build the tests used goes first. Developers with room keep it.
free_disk_for_release() {
  local free_kb
  free_kb="$(df -Pk "$ROOT" | awk 'NR==2 {print $4}')"
  say "disk: $((free_kb / 1024)) MiB free, target/ holds $(du -sm target 2>/dev/null | cut -f1) MiB"
  if [ "$free_kb" -lt $((8 * 1024 * 1024)) ] && [ -d target/debug ]; then
    say "under 8 GiB free: removing target/debug before the release build"
    rm -rf target/debug
  fi
}

# `bounded SECONDS COMMAND…`: a test run that hangs fails its stage after SECONDS (its whole
# process group is stopped) instead of holding CI until its own limit. The tests are built
# before, unbounded; a normal run of each stage takes a fraction of its bound.
bounded() {
  local limit=$1 rc=0
  shift
  timeout --kill-after=30 "$limit" "$@" || rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    say "stopped after $limit s, still running: $*"
  fi
  return "$rc"
}

test_all() {
  setup yes
  local started=$SECONDS
  say "no unused dependencies (cargo machete)"
  cargo machete
  say "building the tests (cargo test --features ssr --no-run)"
  cargo test --features ssr --no-run
  say "unit, property, conformance and server tests (cargo test --features ssr)"
  bounded 1500 cargo test --features ssr -- --skip random_cuts_and_restarts --skip hostile_
  say "hostile tests: every attack of the hardening issue against the binary in its own process"
  bounded 1200 cargo test --features ssr --test hostile -- --test-threads 1 --nocapture
  say "resume test: random cuts and server restarts (prints its figures)"
  bounded 1200 cargo test --features ssr --test resume random_cuts_and_restarts -- --nocapture
  say "the browser build compiles (wasm32, feature hydrate)"
  cargo check --lib --no-default-features --features hydrate --target wasm32-unknown-unknown
  free_disk_for_release
  release
  say "browser tests against the release binary, copied alone to a temporary directory"
  local dir
  dir="$(mktemp -d)"
  cp target/release/agui-studio "$dir/"
  AGUI_BINARY="$dir/agui-studio" bounded 2400 env -C end2end node --test --test-reporter=spec tests/
  rm -rf "$dir"
  say "all test suites passed in $((SECONDS - started)) s"
}

# BENCH_ONLY=capacity runs the capacity benchmark and the browser pipeline's comparison alone
# (CAPACITY_QUICK=1: small sizes, ~1 min for the first).
bench() {
  # cargo-leptos compiles the release binary with `--cfg erase_components` (Cargo.toml's
  # `always-erase-components`); the benchmarks get the same flag so that they reuse the
  # dependencies it compiled: without it every dependency is compiled again for `cargo bench`
  # (24 minutes on 2 cores), and again for the next release build. With it: 8 minutes (the
  # dev-dependencies' features), and the next release build compiles this crate alone.
  # Given to `cargo bench` only (cargo-leptos adds the flag itself), after any RUSTFLAGS of
  # the environment as cargo-leptos puts it.
  local flags="${RUSTFLAGS:+$RUSTFLAGS }--cfg erase_components"
  if [ "${BENCH_ONLY:-}" != capacity ]; then
    say "protocol pipeline benchmark: encode, decode + reduce (release)"
    RUSTFLAGS="$flags" cargo bench --bench pipeline
    say "server benchmark: the long scenario drained over loopback (release)"
    RUSTFLAGS="$flags" cargo bench --features ssr --bench server
  fi
  # The release binary and the site (the capacity benchmark reads target/site/pkg's sizes);
  # setup also makes the Python venv with the official SDK agent.
  setup yes
  release
  say "capacity benchmark: the release binary against the official Python SDK (~10 min; CAPACITY_QUICK=1: ~1 min)"
  # `cargo bench` also builds the package's binary into target/release, without the settings
  # cargo-leptos gives it (the page would ask for a WASM file the site does not have): the
  # benchmark runs a copy of the release binary, which is put back afterwards.
  local bin="$ROOT/target/release/agui-studio"
  cp -p "$bin" "$bin.site"
  AGUI_BIN="${AGUI_BIN:-$bin.site}" RUSTFLAGS="$flags" cargo bench --features ssr --bench capacity \
    || { mv -f "$bin.site" "$bin"; return 1; }
  mv -f "$bin.site" "$bin"
  say "browser pipeline: the studio's WASM against the official TS client's HttpAgent, same stream, same page (~2 min)"
  (cd end2end && node bench/pipeline.mjs)
  [ "${BENCH_ONLY:-}" = capacity ] && return
  say "browser benchmark: long tasks and last paint while ~2,000 deltas/s stream in (release binary)"
  (cd end2end && node bench/longtask.mjs 20000)
}

case "${1:-}" in
  setup) setup yes ;;
  run) shift; run "$@" ;;
  test) test_all ;;
  bench) bench ;;
  release) setup no; release ;;
  *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
