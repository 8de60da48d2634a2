// Real agent frameworks behind the proxy, judged by the official TypeScript client: a LangGraph
// graph served by ag-ui-langgraph (tests/foreign/langgraph_agent.py) and a Pydantic AI agent
// served by its AG-UI adapter (tests/foreign/pydantic_agent.py), both with fake models (no
// network, no key), started here on loopback and stopped by PID. The binary proxies them
// (`--proxy`), and `HttpAgent` from @ag-ui/client runs each conversation through
// `/api/agents/{id}`: a run fails on anything the client complains about (a console.warn /
// console.error, a rejected runAgent, onRunFailed, a RUN_ERROR), and the conversation it builds
// must be the one the framework meant, in order, and the one the thread stores.
//
// Python: .venv/bin/python (scripts/studio.sh setup installs tests/foreign/requirements*.txt),
// or AGUI_TEST_PYTHON.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import { startServer, stopServer } from "./support.mjs";

// The client silences its enforcement warnings when this is set; they are what we look for.
delete process.env.SUPPRESS_TRANSFORMATION_WARNINGS;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const python = process.env.AGUI_TEST_PYTHON ?? path.join(root, ".venv/bin/python");
assert.ok(
  existsSync(python),
  `no Python for the framework agents at ${python}: run scripts/studio.sh setup, or set AGUI_TEST_PYTHON`,
);

/** Start tests/foreign/<script>; resolves to { proc, url } once it printed `PORT n` (30 s at most). */
function startAgent(script) {
  return new Promise((resolve, reject) => {
    const proc = spawn(python, [path.join(root, "tests/foreign", script)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`${script} did not print its port within 30 s:\n${err}`));
    }, 30000);
    proc.stdout.on("data", (chunk) => {
      out += chunk.toString();
      const m = out.match(/^PORT (\d+)\n/);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: `http://127.0.0.1:${m[1]}/agent` });
      }
    });
    proc.stderr.on("data", (chunk) => {
      // Bounded: only the start of what it says is kept for a failure message.
      if (err.length < 20000) err += chunk.toString();
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}:\n${err}`));
    });
  });
}

function stopAgent(agent) {
  if (agent && agent.proc.exitCode === null) {
    agent.proc.removeAllListeners("exit");
    agent.proc.kill("SIGTERM");
  }
}

const agents = {};
after(() => {
  stopServer(agents.server);
  stopAgent(agents.lg);
  stopAgent(agents.pa);
});
agents.lg = await startAgent("langgraph_agent.py");
agents.pa = await startAgent("pydantic_agent.py");
agents.server = await startServer([
  "--proxy",
  `lg=${agents.lg.url}`,
  "--proxy",
  `pa=${agents.pa.url}`,
]);
const base = agents.server.url;

/** The client's own tool, offered in every run (Pydantic AI defers a call of it to the client). */
const CONFIRM_BOOKING = {
  name: "confirm_booking",
  description: "Ask the user to confirm a booking",
  parameters: { type: "object", properties: { flight: { type: "string" } } },
};

function newAgent(id) {
  return new HttpAgent({ url: `${base}/api/agents/${id}`, threadId: `fw-${id}-${randomUUID()}` });
}

const show = (args) =>
  args
    .map((a) => (typeof a === "string" ? a : a instanceof Error ? (a.stack ?? String(a)) : JSON.stringify(a)))
    .join(" ");

/**
 * Add a user message and run once with console.warn / console.error captured; resolves to the
 * events, the RUN_FINISHED outcome and everything the client complained about.
 */
async function say(agent, text, parameters = {}) {
  if (text !== undefined) agent.addMessage({ id: `u-${randomUUID()}`, role: "user", content: text });
  const r = { events: [], finished: undefined, complaints: [] };
  const subscriber = {
    onEvent({ event }) {
      r.events.push(event);
    },
    onRunErrorEvent({ event }) {
      r.complaints.push(`RUN_ERROR ${event.code ?? "(no code)"}: ${event.message}`);
    },
    onRunFailed({ error }) {
      r.complaints.push(`onRunFailed: ${error?.message ?? error}`);
    },
    onRunFinishedEvent(p) {
      r.finished = { outcome: p.outcome, interrupts: p.interrupts, pending: p.pendingToolCallIds };
    },
  };
  const saved = { warn: console.warn, error: console.error };
  console.warn = (...a) => r.complaints.push(`console.warn: ${show(a)}`);
  console.error = (...a) => r.complaints.push(`console.error: ${show(a)}`);
  try {
    await agent.runAgent({ tools: [CONFIRM_BOOKING], ...parameters }, subscriber);
  } catch (e) {
    r.complaints.push(`runAgent rejected: ${e?.stack ?? e}`);
  } finally {
    console.warn = saved.warn;
    console.error = saved.error;
  }
  assert.deepEqual(r.complaints, [], `the official client complained:\n${r.complaints.join("\n")}`);
  assert.equal(r.events[0]?.type, "RUN_STARTED");
  assert.equal(r.events.at(-1)?.type, "RUN_FINISHED", r.events.map((e) => e.type).join(","));
  return r;
}

const textOf = (m) =>
  typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? "").join("");

/** role:text (or role:call name / role:result) of each message, for a readable comparison. */
const shape = (messages) =>
  messages.map((m) =>
    m.role === "assistant" && m.toolCalls?.length
      ? `assistant:call ${m.toolCalls.map((c) => `${c.function.name} ${c.function.arguments}`).join(" ")}`
      : m.role === "tool"
        ? `tool:${JSON.parse(m.content).city}`
        : `${m.role}:${textOf(m)}`,
  );

/** Every tool message answers the call right before it (or a sibling result). */
function assertResultsFollowCalls(messages) {
  messages.forEach((m, i) => {
    if (m.role !== "tool") return;
    let j = i - 1;
    while (j >= 0 && messages[j].role === "tool") j--;
    const ids = (messages[j]?.toolCalls ?? []).map((c) => c.id);
    assert.ok(ids.includes(m.toolCallId), `tool message ${i} follows its call: ${shape(messages)}`);
  });
}

/** The thread as stored equals the client's conversation (activity messages aside). */
async function assertStored(agent) {
  const res = await fetch(`${base}/api/threads/${agent.threadId}`);
  assert.equal(res.status, 200);
  const stored = (await res.json()).messages;
  assert.deepEqual(
    stored.map((m) => [m.id, m.role, textOf(m)]),
    agent.messages.map((m) => [m.id, m.role, textOf(m)]),
  );
}

for (const [id, hello] of [
  ["lg", "Hello from LangGraph! You said: hello there"],
  ["pa", "Hello from Pydantic AI! You said: hello there"],
]) {
  test(`${id}: text, then two backend tool runs in one thread, stored in order`, async () => {
    const agent = newAgent(id);
    await say(agent, "hello there");
    assert.equal(textOf(agent.messages.at(-1)), hello);
    await say(agent, "weather Paris");
    await say(agent, "weather Oslo");
    const city = (c) => `{"temp": 21, "city": "${c}"}`;
    assert.deepEqual(shape(agent.messages), [
      "user:hello there",
      `assistant:${hello}`,
      "user:weather Paris",
      `assistant:call get_weather {"city": "Paris"}`,
      "tool:Paris",
      `assistant:The get_weather tool says: ${city("Paris")}`,
      "user:weather Oslo",
      `assistant:call get_weather {"city": "Oslo"}`,
      "tool:Oslo",
      `assistant:The get_weather tool says: ${city("Oslo")}`,
    ]);
    assertResultsFollowCalls(agent.messages);
    const callIds = agent.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id));
    assert.equal(new Set(callIds).size, callIds.length, `tool-call ids are unique: ${callIds}`);
    await assertStored(agent);
  });
}

test("lg: an interrupt, then the run that resumes it", async () => {
  const agent = newAgent("lg");
  const r1 = await say(agent, "confirm the booking");
  assert.equal(r1.finished?.outcome, "interrupt");
  const [interrupt] = r1.finished.interrupts;
  assert.deepEqual(interrupt.metadata?.langgraph?.raw?.options, ["yes", "no"]);
  assert.deepEqual(
    agent.pendingInterrupts.map((i) => i.id),
    [interrupt.id],
  );
  const r2 = await say(agent, undefined, {
    resume: [{ interruptId: interrupt.id, status: "resolved", payload: "yes" }],
  });
  assert.equal(r2.finished?.outcome, "success");
  assert.deepEqual(agent.pendingInterrupts, []);
  assert.equal(textOf(agent.messages.at(-1)), "Booking answered: yes");
  await assertStored(agent);
});

test("pa: reasoning, and a call of the client's own tool left pending", async () => {
  const agent = newAgent("pa");
  await say(agent, "think hard");
  assert.deepEqual(shape(agent.messages.slice(1)), ["reasoning:Weighing the options…", "assistant:Option B."]);
  const r = await say(agent, "book it");
  assert.equal(r.finished?.outcome, "success");
  assert.deepEqual(r.finished.pending, ["pyd-book-1"]);
  const call = agent.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.id === "pyd-book-1");
  assert.equal(call?.function.name, "confirm_booking");
  await assertStored(agent);
});
