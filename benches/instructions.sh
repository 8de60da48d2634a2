#!/usr/bin/env bash
# Instructions the whole server executes per event of one stream, under valgrind's callgrind
# (`apt-get install valgrind`): a count that does not move with the machine's load, unlike
# events per second. Starts BIN on a loopback port (`--demo-delay-ms 0`, a temporary SQLite
# file, or DB=:memory:), warms it with a `long 2000`, zeroes the counters, drains one `long N`
# with curl, and prints the instructions counted in between divided by N; stops the server it
# started. Keep N below the live window (16,384 events): valgrind runs one thread at a time,
# and a reader that falls behind the window would read from the database.
#   benches/instructions.sh target/release/agui-studio 10000
set -euo pipefail
BIN=$1; N=${2:-10000}
PORT=$((20000 + RANDOM % 10000))
DIR=$(mktemp -d)
valgrind --tool=callgrind --callgrind-out-file="$DIR/cg.%p" "$BIN" --addr 127.0.0.1:$PORT \
  --demo-delay-ms 0 --log error --db "${DB:-$DIR/db.sqlite}" >/dev/null 2>"$DIR/valgrind.log" &
SERVER=$!
trap 'kill -INT $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DIR"' EXIT
for _ in $(seq 1 600); do curl -s -o /dev/null "http://127.0.0.1:$PORT/api/agents" && break; sleep 0.2; done
drain() {
  curl -s -N --max-time 900 -X POST "http://127.0.0.1:$PORT/api/agents/demo" -H 'content-type: application/json' \
    -d "{\"threadId\":\"t-$1\",\"runId\":\"r-$1\",\"state\":{},\"tools\":[],\"context\":[],\"forwardedProps\":{},\"messages\":[{\"id\":\"u\",\"role\":\"user\",\"content\":\"long $2\"}]}" >/dev/null
}
drain warm 2000
sleep 1
callgrind_control -z $SERVER >/dev/null 2>&1
drain run "$N"
sleep 1
callgrind_control -d $SERVER >/dev/null 2>&1
sleep 1
total=$(awk '/^(summary|totals):/ {print $2; exit}' "$DIR"/cg.$SERVER.1)
echo "$(basename "$BIN") long $N: $total instructions, $((total / N)) per event"
