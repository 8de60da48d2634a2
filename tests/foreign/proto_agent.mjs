// A foreign AG-UI agent for tests/proto_proxy.rs that answers in the protobuf binding when asked:
// its events are encoded by the official `@ag-ui/encoder` (`EventEncoder` with the request's
// `Accept`: `encodeBinary` gives 4-byte big-endian length + `@ag-ui/proto` frames, or SSE). The
// "model" is a fixed script covering text, a tool call with its result, state, reasoning,
// activities, steps, custom and raw events, and usage. The last user message picks a variant:
//   "sse only"  - answers SSE whatever the Accept says (a server without protobuf);
//   "huge"      - after RUN_STARTED, a frame header announcing 0xFFFFFFFF bytes;
//   "cut"       - after RUN_STARTED, half a frame, then the connection ends;
//   "garbage"   - after RUN_STARTED, a frame whose bytes are not an AG-UI event.
//
// Usage: node proto_agent.mjs [PORT]   (or PORT in the environment; default: a free port)
// Binds 127.0.0.1 and prints `PORT <n>` first. `POST /` runs; `GET /seen/<runId>` tells a test
// the Content-Type that run was answered with. Packages come from end2end/node_modules
// (AGUI_NODE_MODULES_FROM may name another directory holding a package.json and node_modules).

import { createServer } from "node:http";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import path from "node:path";

const from = process.env.AGUI_NODE_MODULES_FROM
  ? path.resolve(process.env.AGUI_NODE_MODULES_FROM, "package.json")
  : new URL("../../end2end/package.json", import.meta.url);
const require = createRequire(from instanceof URL ? from : pathToFileURL(from));
const { EventEncoder } = require("@ag-ui/encoder");

const MAX_BODY = 1024 * 1024;
const MAX_SEEN = 100;
const seen = new Map();

/** The scripted run: every event as the producer means it. */
export function script(input) {
  const { threadId, runId } = input;
  const m = `${runId}-m`;
  const r = `${runId}-r`;
  const act = `${runId}-act`;
  return [
    { type: "RUN_STARTED", threadId, runId, protocolVersion: "1.0" },
    { type: "STEP_STARTED", stepName: "plan" },
    { type: "STATE_SNAPSHOT", snapshot: { plan: ["look", "answer"], cursor: null, n: 0 } },
    { type: "REASONING_START", messageId: r },
    { type: "REASONING_MESSAGE_START", messageId: r, role: "reasoning" },
    { type: "REASONING_MESSAGE_CONTENT", messageId: r, delta: "Thinking about it." },
    { type: "REASONING_MESSAGE_END", messageId: r },
    { type: "REASONING_END", messageId: r },
    { type: "TEXT_MESSAGE_START", messageId: m, role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: m, delta: "Héllo from " },
    { type: "TEXT_MESSAGE_CONTENT", messageId: m, delta: "protobuf ✓" },
    { type: "TEXT_MESSAGE_END", messageId: m },
    { type: "TOOL_CALL_START", toolCallId: `${runId}-tc`, toolCallName: "lookup", parentMessageId: m },
    { type: "TOOL_CALL_ARGS", toolCallId: `${runId}-tc`, delta: '{"q":' },
    { type: "TOOL_CALL_ARGS", toolCallId: `${runId}-tc`, delta: '"ag-ui"}' },
    { type: "TOOL_CALL_END", toolCallId: `${runId}-tc` },
    { type: "TOOL_CALL_RESULT", messageId: `${runId}-tool`, toolCallId: `${runId}-tc`, content: "3 hits", role: "tool" },
    { type: "STATE_DELTA", delta: [{ op: "replace", path: "/n", value: 3 }, { op: "add", path: "/done", value: true }] },
    { type: "ACTIVITY_SNAPSHOT", messageId: act, activityType: "PROGRESS", content: { pct: 50 } },
    { type: "ACTIVITY_DELTA", messageId: act, activityType: "PROGRESS", patch: [{ op: "replace", path: "/pct", value: 100 }] },
    { type: "CUSTOM", name: "note", value: { nested: [1, null, { x: "y" }] } },
    { type: "RAW", event: { provider: "scripted" }, source: "proto_agent" },
    { type: "STEP_FINISHED", stepName: "plan" },
    {
      type: "RUN_FINISHED", threadId, runId, result: { answer: 42 },
      outcome: { type: "success" },
      usage: [{ provider: "scripted", model: "fixed-1", inputTokens: 5, outputTokens: 7, totalTokens: 12 }],
    },
  ];
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error("body too large"));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function lastUserText(input) {
  const users = (input.messages ?? []).filter((x) => x.role === "user");
  const c = users[users.length - 1]?.content;
  return typeof c === "string" ? c.trim() : "";
}

const server = createServer(async (req, res) => {
  const seenMatch = req.method === "GET" && /^\/seen\/([^/]+)$/.exec(req.url ?? "");
  if (seenMatch) {
    const s = seen.get(decodeURIComponent(seenMatch[1]));
    res.writeHead(s ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(s ?? { error: "unknown run" }));
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST" }).end();
    return;
  }
  let input;
  try {
    input = JSON.parse(await readBody(req));
  } catch (e) {
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: String(e.message ?? e) }));
    return;
  }
  const variant = lastUserText(input);
  const encoder = new EventEncoder({ accept: variant === "sse only" ? "text/event-stream" : req.headers.accept });
  const contentType = encoder.getContentType();
  if (seen.size >= MAX_SEEN) seen.delete(seen.keys().next().value);
  seen.set(input.runId, { contentType, accept: req.headers.accept ?? null });
  res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache" });
  const events = script(input);
  if (["huge", "cut", "garbage"].includes(variant)) {
    res.write(encoder.encodeBinary(events[0]));
    const frame = encoder.encodeBinary(events[1]);
    if (variant === "huge") res.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3]));
    if (variant === "cut") res.write(frame.subarray(0, Math.floor(frame.length / 2)));
    if (variant === "garbage") res.write(Buffer.from([0, 0, 0, 4, 0xff, 0xff, 0xff, 0xff]));
    res.end();
    return;
  }
  for (const event of events) res.write(encoder.encodeBinary(event));
  res.end();
});

const port = Number(process.argv[2] ?? process.env.PORT ?? 0);
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`PORT ${server.address().port}\n`);
});
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => process.exit(0)));
