// A foreign AG-UI agent for tests/a2ui_proxy.rs, built on the official TypeScript packages:
// an `AbstractAgent` (from `@ag-ui/client`) whose "model" is a fixed script — no network, no
// randomness — wrapped with the official A2UI middleware (`@ag-ui/a2ui-middleware`), its events
// encoded as SSE by `@ag-ui/encoder`. What reaches the client is therefore the middleware's real
// output: the script calls the `render_a2ui` tool the middleware injects, and the middleware turns
// the streamed call into `a2ui-surface` activities; a later run carrying
// `forwardedProps.a2uiAction.userAction` is turned by the middleware into a synthetic
// `log_a2ui_event` tool call and result, which the script answers by quoting.
//
// Usage: node a2ui_agent.mjs [PORT]   (or PORT in the environment; default: a free port)
// Binds 127.0.0.1 and prints `PORT <n>` first. `POST /` runs; `GET /seen/<runId>` tells a test
// what the script saw of that run (the tools it was offered, the last messages' roles and tool
// names). The packages are read from end2end/node_modules (AGUI_NODE_MODULES_FROM may name
// another directory holding a package.json and its node_modules).

import { createServer } from "node:http";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import path from "node:path";

const from = process.env.AGUI_NODE_MODULES_FROM
  ? path.resolve(process.env.AGUI_NODE_MODULES_FROM, "package.json")
  : new URL("../../end2end/package.json", import.meta.url);
// One module system (CommonJS) for every package, so the middleware and this agent share one
// copy of @ag-ui/client.
const require = createRequire(from instanceof URL ? from : pathToFileURL(from));
const { AbstractAgent, EventType } = require("@ag-ui/client");
const { A2UIMiddleware, RENDER_A2UI_TOOL_NAME, LOG_A2UI_EVENT_TOOL_NAME } = require("@ag-ui/a2ui-middleware");
const { EventEncoder } = require("@ag-ui/encoder");
const { Observable } = require("rxjs");

const BASIC_CATALOG_ID = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json";
const MAX_BODY = 1024 * 1024;
const MAX_SEEN = 100;

/** The surface the script renders: a small contact form in the v0.9 basic catalog. */
export const SURFACE = {
  surfaceId: "contact-form",
  components: [
    { id: "root", component: "Card", child: "col" },
    { id: "col", component: "Column", children: ["title", "name", "email", "subscribe", "submit"] },
    { id: "title", component: "Text", text: "Contact us", variant: "h2" },
    { id: "name", component: "TextField", label: "Name", value: { path: "/form/name" } },
    { id: "email", component: "TextField", label: "Email", value: { path: "/form/email" } },
    { id: "subscribe", component: "CheckBox", label: "Subscribe", value: { path: "/form/subscribe" } },
    {
      id: "submit", component: "Button", child: "submit_label", variant: "primary",
      action: { event: { name: "submit_form", context: {
        name: { path: "/form/name" }, email: { path: "/form/email" }, subscribe: { path: "/form/subscribe" },
      } } },
    },
    { id: "submit_label", component: "Text", text: "Send" },
  ],
  data: { form: { name: "", email: "", subscribe: true } },
};

const seen = new Map();

/** What a model streams: `s` in pieces of `n` characters. */
function pieces(s, n) {
  const out = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
}

function text(messageId, s) {
  return [
    { type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" },
    ...pieces(s, 16).map((delta) => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta })),
    { type: EventType.TEXT_MESSAGE_END, messageId },
  ];
}

/** The scripted model: the events of one run, from what the middleware passed in. */
function script(input) {
  const messages = input.messages ?? [];
  const last = messages[messages.length - 1];
  const before = messages[messages.length - 2];
  const toolNames = (input.tools ?? []).map((t) => t.name);
  seen.set(input.runId, {
    tools: toolNames,
    lastRoles: messages.slice(-2).map((m) => m.role),
    lastToolCalls: (before?.toolCalls ?? []).map((c) => c.function.name),
  });
  while (seen.size > MAX_SEEN) seen.delete(seen.keys().next().value);
  const id = (n) => `${input.runId}-${n}`;
  const events = [{ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId }];
  const answeringAction = last?.role === "tool"
    && (before?.toolCalls ?? []).some((c) => c.function.name === LOG_A2UI_EVENT_TOOL_NAME && c.id === last.toolCallId);
  if (answeringAction) {
    events.push(...text(id("answer"), `Thanks, I got it. ${last.content}`));
  } else if (toolNames.includes(RENDER_A2UI_TOOL_NAME)) {
    events.push(...text(id("intro"), "Here is a contact form."));
    const call = id("render");
    events.push({ type: EventType.TOOL_CALL_START, toolCallId: call, toolCallName: RENDER_A2UI_TOOL_NAME, parentMessageId: id("intro") });
    for (const delta of pieces(JSON.stringify(SURFACE), 40)) {
      events.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: call, delta });
    }
    events.push({ type: EventType.TOOL_CALL_END, toolCallId: call });
  } else {
    events.push(...text(id("none"), `No ${RENDER_A2UI_TOOL_NAME} tool was offered.`));
  }
  events.push({ type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId });
  return events;
}

class ScriptedAgent extends AbstractAgent {
  run(input) {
    return new Observable((subscriber) => {
      for (const e of script(input)) subscriber.next(e);
      subscriber.complete();
    });
  }
}

const agent = new ScriptedAgent();
const a2ui = new A2UIMiddleware({ injectA2UITool: true, defaultCatalogId: BASIC_CATALOG_ID });

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
  const encoder = new EventEncoder({ accept: req.headers.accept });
  res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" });
  const subscription = a2ui.run(input, agent).subscribe({
    next: (event) => res.write(encoder.encode(event)),
    error: (e) => {
      res.write(encoder.encode({ type: EventType.RUN_ERROR, message: String(e?.message ?? e) }));
      res.end();
    },
    complete: () => res.end(),
  });
  res.on("close", () => subscription.unsubscribe());
});

const port = Number(process.argv[2] ?? process.env.PORT ?? 0);
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`PORT ${server.address().port}\n`);
});
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.close(() => process.exit(0)));
