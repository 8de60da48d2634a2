#!/usr/bin/env bash
# One stream drained by curl: starts BIN on a loopback port (`--demo-delay-ms 0`, a temporary
# SQLite file, or DB=:memory:), runs a warm-up `long 200`, then REPS runs of the demo's `long N`
# drained by curl, and prints each run's events per second; stops the server it started.
#   benches/drain.sh target/release/agui-studio 1000000 2
# (runs of 1,000,000 or more end at the default --max-run-events with RUN_ERROR: use 999000)
set -euo pipefail
BIN=$1; N=$2; REPS=${3:-3}
PORT=$((20000 + RANDOM % 10000))
DIR=$(mktemp -d)
"$BIN" --addr 127.0.0.1:$PORT --demo-delay-ms 0 --log error --db "${DB:-$DIR/db.sqlite}" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/api/agents" && break; sleep 0.1; done
drain() {
  curl -s -N --max-time 600 -X POST "http://127.0.0.1:$PORT/api/agents/demo" -H 'content-type: application/json' \
    -d "{\"threadId\":\"t-$1\",\"runId\":\"r-$1\",\"state\":{},\"tools\":[],\"context\":[],\"forwardedProps\":{},\"messages\":[{\"id\":\"u\",\"role\":\"user\",\"content\":\"long $2\"}]}" >/dev/null
}
drain warm 200
out=""
for r in $(seq 1 "$REPS"); do
  start=$(date +%s%N)
  drain "$r" "$N"
  end=$(date +%s%N)
  out="$out $(( N * 1000000 / ((end - start) / 1000) ))"
done
echo "$(basename "$BIN") long $N:$out events/s"
