// CopilotKit's own core client (@copilotkitnext/core, pinned in package.json) against the real
// binary's CopilotKit runtime routes (/api/copilotkit): it discovers our agents, runs a demo
// scenario (text and a server-side tool call), connects a fresh client instance to the same
// thread after a "reload" (finished, and while a run streams), and stops a long run.
//
// The core client loads its runtime's agents only when `window` exists (it is written for
// browsers); an empty object is all it reads of it, so the tests define one. Everything else
// (fetch, streams) is Node's own. A run fails on a console.warn / console.error from the client
// (its verifier and reducer report problems that way) and on any error it reports.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startServer, stopServer } from "./support.mjs";

globalThis.window ??= {};
const { CopilotKitCore } = await import("@copilotkitnext/core");

const server = await startServer(["--demo-delay-ms", "5"]);
after(() => stopServer(server));
const runtimeUrl = `${server.url}/api/copilotkit`;

/** Console warnings and errors printed while `fn` runs. */
async function watchingConsole(fn) {
  const printed = [];
  const { warn, error } = console;
  console.warn = (...args) => printed.push(["warn", ...args].join(" "));
  console.error = (...args) => printed.push(["error", ...args].join(" "));
  try {
    return { result: await fn(), printed };
  } finally {
    console.warn = warn;
    console.error = error;
  }
}

/** A connected client ("a page load"): resolves once it has loaded the runtime's agents. */
async function client(transport = "rest") {
  const core = new CopilotKitCore({ runtimeUrl, runtimeTransport: transport });
  const errors = [];
  core.subscribe({ onError: ({ error, code }) => errors.push(`${code}: ${error?.message}`) });
  for (let i = 0; i < 200 && core.runtimeConnectionStatus !== "connected"; i++) {
    assert.notEqual(core.runtimeConnectionStatus, "error", "the runtime info request failed");
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.equal(core.runtimeConnectionStatus, "connected");
  return { core, errors };
}

function assistantText(agent) {
  return agent.messages
    .filter((m) => m.role === "assistant" && typeof m.content === "string")
    .map((m) => m.content)
    .join("");
}

async function threadOf(id) {
  const r = await fetch(`${server.url}/api/threads/${id}`);
  assert.equal(r.status, 200);
  return r.json();
}

/** Run `text` as a new user message of `agent`'s thread to the end. */
async function run(core, agent, text) {
  agent.addMessage({ id: randomUUID(), role: "user", content: text });
  return core.runAgent({ agent });
}

test("discovery: the client lists our agents, over both transports", async () => {
  for (const transport of ["rest", "single"]) {
    const { core } = await client(transport);
    const demo = core.getAgent("demo");
    assert.ok(demo, `${transport}: demo is listed`);
    assert.match(demo.description, /demo/);
    assert.equal(core.runtimeMode, "sse");
  }
});

test("run: a scenario's text and a server-side tool call arrive", async () => {
  const { core, errors } = await client();
  const agent = core.getAgent("demo");
  agent.threadId = `ck-run-${randomUUID()}`;
  const { printed } = await watchingConsole(async () => {
    await run(core, agent, "chat");
    await run(core, agent, "backend_tool 12 * 7");
  });
  assert.deepEqual(printed, []);
  assert.deepEqual(errors, []);
  assert.ok(assistantText(agent).length > 100, assistantText(agent));
  const call = agent.messages.flatMap((m) => m.toolCalls ?? [])[0];
  assert.ok(call, "a tool call arrived");
  const result = agent.messages.find((m) => m.role === "tool" && m.toolCallId === call.id);
  assert.match(result?.content ?? "", /84/);
  const stored = await threadOf(agent.threadId);
  assert.equal(stored.messages.length, agent.messages.length);
});

test("single route: a run goes through POST {base}", async () => {
  const { core, errors } = await client("single");
  const agent = core.getAgent("demo");
  agent.threadId = `ck-single-${randomUUID()}`;
  const { printed } = await watchingConsole(() => run(core, agent, "chat"));
  assert.deepEqual(printed, []);
  assert.deepEqual(errors, []);
  assert.ok(assistantText(agent).length > 100);
});

test("connect after a reload: a new client gets the thread's messages", async () => {
  const first = await client();
  const agent = first.core.getAgent("demo");
  agent.threadId = `ck-connect-${randomUUID()}`;
  await run(first.core, agent, "chat");
  // The page reloads: a new client, the same thread.
  const second = await client();
  const again = second.core.getAgent("demo");
  again.threadId = agent.threadId;
  const { printed } = await watchingConsole(() => second.core.connectAgent({ agent: again }));
  assert.deepEqual(printed, []);
  assert.deepEqual(second.errors, []);
  const brief = (a) => a.messages.map((m) => [m.id, m.role, m.content]);
  assert.deepEqual(brief(again), brief(agent));
});

test("attachments: binary parts go in, and a reloaded client gets them back as binary parts", async () => {
  const first = await client();
  const agent = first.core.getAgent("demo");
  agent.threadId = `ck-parts-${randomUUID()}`;
  const content = [
    { type: "text", text: "multimodal" },
    { type: "binary", mimeType: "image/png", data: "iVBORw0KGgo=" },
    { type: "binary", mimeType: "application/pdf", url: "https://example.com/a.pdf", filename: "a.pdf" },
  ];
  const sent = await watchingConsole(async () => {
    agent.addMessage({ id: randomUUID(), role: "user", content });
    await first.core.runAgent({ agent });
  });
  assert.deepEqual(sent.printed, []);
  assert.deepEqual(first.errors, []);
  assert.match(assistantText(agent), /image/i);
  // The thread keeps them as 1.1 parts; the 0.0.48 client gets back the kind it sent.
  const second = await client();
  const again = second.core.getAgent("demo");
  again.threadId = agent.threadId;
  const { printed } = await watchingConsole(() => second.core.connectAgent({ agent: again }));
  assert.deepEqual(printed, []);
  assert.deepEqual(second.errors, []);
  assert.deepEqual(again.messages[0].content, content);
});

test("connect during a run: the new client follows it to the same text", async () => {
  const first = await client();
  const agent = first.core.getAgent("demo");
  agent.threadId = `ck-live-${randomUUID()}`;
  const running = run(first.core, agent, "long 3000");
  for (let i = 0; i < 400 && assistantText(agent).length < 500; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(assistantText(agent).length >= 500, "the run is streaming");
  const second = await client();
  const joined = second.core.getAgent("demo");
  joined.threadId = agent.threadId;
  const { printed } = await watchingConsole(() => second.core.connectAgent({ agent: joined }));
  await running;
  assert.deepEqual(printed, []);
  assert.deepEqual(second.errors, []);
  const expected = Array.from({ length: 3000 }, (_, i) => `${i} `).join("");
  assert.equal(assistantText(agent), expected);
  assert.equal(assistantText(joined), expected);
});

test("stop: a long run stops, its stream ends, the thread shows it cancelled", async () => {
  const { core, errors } = await client();
  const agent = core.getAgent("demo");
  agent.threadId = `ck-stop-${randomUUID()}`;
  const running = run(core, agent, "long 20000");
  for (let i = 0; i < 400 && assistantText(agent).length < 200; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(assistantText(agent).length >= 200, "the run is streaming");
  const started = Date.now();
  core.stopAgent({ agent });
  // The client only sends the stop; the run's stream ending is what ends runAgent.
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error("the run's stream did not end")), 10000);
  });
  await Promise.race([running, timeout]).finally(() => clearTimeout(timer));
  assert.ok(Date.now() - started < 10000);
  assert.deepEqual(errors, []);
  assert.equal(agent.isRunning, false);
  const text = assistantText(agent);
  assert.ok(text.length < Array.from({ length: 20000 }, (_, i) => `${i} `).join("").length);
  let status;
  for (let i = 0; i < 100; i++) {
    status = (await threadOf(agent.threadId)).runs[0].status;
    if (status === "cancelled") break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(status, "cancelled");
});
