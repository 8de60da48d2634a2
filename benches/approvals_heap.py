#!/usr/bin/env python3
"""Where the memory of runs waiting on an approval goes (prints figures, asserts nothing).

Starts BIN (default: target/debug/agui-studio, which keeps its symbols; the release binary is
stripped) on a loopback port with a fresh SQLite file, opens N runs of the demo's `approval`
scenario (200 connecting at a time), holds each once its `request_approval` call has arrived
(`TOOL_CALL_END`), prints the server's RSS before, while they wait (SETTLE_S, default 2, seconds
after the last one arrived, as the capacity benchmark reads it) and every 5 s for AFTER_S
(default 10) seconds after they closed, then (ROUNDS, default 1) does it again with new runs and
prints each round's figures, so that what stays after a crowd can be told from what grows crowd
after crowd; then stops the server with SIGINT. Each RSS is also split into its anonymous part (what the
server allocated) and its file-backed part (the binary's pages read from disk). SERVER_LOG=FILE
keeps the server's stderr; with a `--features alloc-stats` build and AGUI_ALLOC_STATS_MS=N it
holds a line of allocator figures every N ms (see src/server/alloc_stats.rs). With HEAPTRACK=1
the server runs under heaptrack (`apt-get install heaptrack`) and the script prints the
allocation sites holding the most at the peak.

    cargo build --features ssr --bin agui-studio
    python3 benches/approvals_heap.py 500
    HEAPTRACK=1 python3 benches/approvals_heap.py 500
    SERVER_ARGS="--approval-timeout 3" python3 benches/approvals_heap.py 500
    SMAPS=1 AFTER_S=60 BIN=target/release/agui-studio python3 benches/approvals_heap.py 10000
    ROUNDS=5 AFTER_S=30 BIN=target/release/agui-studio python3 benches/approvals_heap.py 10000
    cargo build --release --features alloc-stats && cp target/release/agui-studio /tmp/agui-stats
    AGUI_ALLOC_STATS_MS=5000 SERVER_LOG=/tmp/server.log BIN=/tmp/agui-stats \
        python3 benches/approvals_heap.py 10000
"""
import asyncio
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 500
BIN = os.environ.get("BIN", "target/debug/agui-studio")
PORT = int(os.environ.get("PORT", "3998"))
HEAP = os.environ.get("HEAPTRACK") == "1"
TIMEOUT_S = 120
AFTER_S = int(os.environ.get("AFTER_S", "10"))
SETTLE_S = float(os.environ.get("SETTLE_S", "2"))
ROUNDS = max(1, int(os.environ.get("ROUNDS", "1")))


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


def parts(pid):
    """RSS as `anon A + file F MB`: the file part is the binary's code and data pages read from
    disk, which the kernel can drop and read again; the anonymous part is what the server
    allocated."""
    got = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key = line.split(":")[0]
            if key in ("RssAnon", "RssFile"):
                got[key] = int(line.split()[1]) / 1024
    return f"anon {got.get('RssAnon', 0):.0f} + file {got.get('RssFile', 0):.0f} MB"


async def one(i, held):
    r, w = await asyncio.open_connection("127.0.0.1", PORT)
    body = json.dumps({
        "threadId": f"heap-t-{i}", "runId": f"heap-r-{i}",
        "messages": [{"id": f"heap-u-{i}", "role": "user", "content": "approval"}],
        "tools": [], "context": [], "state": {}, "forwardedProps": {},
    }).encode()
    w.write(b"POST /api/agents/demo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: text/event-stream\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    await w.drain()
    buf = b""
    while b"TOOL_CALL_END" not in buf:
        d = await r.read(65536)
        if not d:
            raise RuntimeError("the run ended early: " + buf[-300:].decode(errors="replace"))
        buf += d
    held.append((r, w))


def server_pid(proc):
    """The server's own pid (under heaptrack it is a child of the wrapper)."""
    if not HEAP:
        return proc.pid
    for _ in range(100):
        out = subprocess.run(["pgrep", "-f", f"^{re.escape(os.path.abspath(BIN))} --addr 127.0.0.1:{PORT}"],
                             capture_output=True, text=True).stdout.split()
        if out:
            return int(out[0])
        time.sleep(0.1)
    raise RuntimeError("the server did not start")


async def main():
    tmp = tempfile.mkdtemp(prefix="agui-heap-")
    cap = str(N + 100)
    cmd = [os.path.abspath(BIN), "--addr", f"127.0.0.1:{PORT}", "--db", f"{tmp}/heap.db",
           "--max-connections", cap, "--max-runs", cap, "--max-runs-per-user", cap]
    cmd += os.environ.get("SERVER_ARGS", "").split()
    if HEAP:
        cmd = ["heaptrack", "-o", f"{tmp}/heap"] + cmd
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(os.environ.get("SERVER_LOG", os.devnull), "w"))
    pid = None
    try:
        pid = server_pid(proc)
        for _ in range(200):
            try:
                _, w = await asyncio.open_connection("127.0.0.1", PORT)
                w.close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        warm = []  # held open, as a crowd's runs are, through every round
        await one(-1, warm)
        base, base_parts = rss_mb(pid), parts(pid)
        if os.environ.get("SMAPS") == "1":
            print("before the runs:")
            print_smaps(pid)
        sem = asyncio.Semaphore(200)
        for round_ in range(ROUNDS):
            if ROUNDS > 1:
                print(f"round {round_ + 1} of {ROUNDS}:")
            held = []
            await crowd(pid, sem, held, (base, base_parts), round_)
    finally:
        if pid:
            os.kill(pid, signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    if HEAP:
        files = [f for f in os.listdir(tmp) if f.startswith("heap.") and f.endswith((".zst", ".gz"))]
        if not files:
            print("heaptrack wrote nothing")
            return
        out = subprocess.run(["heaptrack_print", "-f", f"{tmp}/{files[0]}", "--print-peaks", "1",
                              "--print-allocators", "0", "--print-temporary", "0", "--print-leaks", "0",
                              "--peak-limit", "8", "--sub-peak-limit", "12"],
                             capture_output=True, encoding="utf-8", errors="replace").stdout
        print_sites(out)


async def crowd(pid, sem, held, before, round_):
    """One crowd of N waiting runs: their RSS while they wait and for AFTER_S after they left."""
    base, base_parts = before

    async def limited(i):
        async with sem:
            await one(f"{round_}-{i}", held)

    t = time.time()
    await asyncio.wait_for(asyncio.gather(*(limited(i) for i in range(N))), TIMEOUT_S)
    # As the capacity benchmark does: the server settles (its allocator's decay) first.
    await asyncio.sleep(SETTLE_S)
    during = rss_mb(pid)
    threads = len(os.listdir(f"/proc/{pid}/task"))
    print(f"{N} runs waiting after {time.time() - t:.1f} s: RSS {base:.0f} -> {during:.0f} MB "
          f"({(during - base) * 1024 / N:.1f} KB each), {threads} threads; "
          f"before {base_parts}, during {parts(pid)}")
    for _, w in held:
        w.close()
    waited = 0
    while waited < AFTER_S:
        step = min(5, AFTER_S - waited)
        await asyncio.sleep(step)
        waited += step
        print(f"{waited} s after they closed: {rss_mb(pid):.0f} MB ({parts(pid)})")
    if os.environ.get("SMAPS") == "1":
        print(f"{AFTER_S} s after they closed:")
        print_smaps(pid)


def print_smaps(pid):
    """What the server's resident memory is made of: the largest mappings by RSS (the binary's
    code, glibc's heap where SQLite allocates, jemalloc's anonymous extents)."""
    maps, cur = [], None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                cur = [" ".join(head[5:]) or "[anonymous]", 0, 0, 0]
                maps.append(cur)
            elif head and head[0] in ("Rss:", "Anonymous:", "Size:") and cur is not None:
                cur[{"Rss:": 1, "Anonymous:": 2, "Size:": 3}[head[0]]] += int(head[1])
    by_name = {}
    for name, rss, anon, _ in maps:
        key = os.path.basename(name) if name.startswith("/") else name
        r = by_name.setdefault(key, [0, 0, 0])
        r[0] += rss
        r[1] += anon
        r[2] += 1
    print("resident memory by mapping (KB rss / KB anonymous / mappings):")
    for name, (rss, anon, k) in sorted(by_name.items(), key=lambda kv: -kv[1][0])[:8]:
        print(f"  {rss:>8} {anon:>8} {k:>5}  {name}")
    anon = sorted((m for m in maps if m[0] == "[anonymous]"), key=lambda m: -m[1])
    print("the largest anonymous mappings (KB rss / KB size):")
    for m in anon[:8]:
        print(f"  {m[1]:>8} {m[3]:>8}")


def print_sites(text):
    """Each allocation site at the peak: bytes, calls, and the first frames of ours and of a
    dependency (heaptrack's own stacks run to dozens of frames)."""
    sites = []
    current = None
    for line in text.split("\n"):
        m = re.match(r"^\s*(\S+) consumed over (\d+) calls from:", line)
        if m:
            current = [m.group(1), int(m.group(2)), []]
            sites.append(current)
        elif current is not None and line.strip().startswith("at "):
            current[2].append(re.sub(r"/root/\.cargo/registry/src/[^/]+/", "", line.strip()[3:]))
    print("allocation sites at the peak (size, calls, where):")
    for size, calls, frames in sites:
        ours = [f for f in frames if f.startswith("src/")][:3]
        deps = [f for f in frames if not f.startswith(("src/", "/rustc/", "library/"))][:1]
        print(f"  {size:>9} {calls:>7}  {' < '.join(deps + ours)}")


if __name__ == "__main__":
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run(main())
