// An MCP App from a real MCP server in Chromium: the LLM agent (a scripted OpenAI-compatible model
// on loopback) calls `mcp__py__counter` of tests/foreign/mcp_server.py (official Python SDK, over
// stdio); the studio renders the `mcp-apps` activity, fetches the view's HTML through the agent,
// and the view's "+1" button calls the app-only tool `bump` on the Python server through the
// agent. Needs the venv `scripts/studio.sh setup` creates (or AGUI_TEST_PYTHON).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, stopServer, launchBrowser, openPage, send, idle, shoot, settled } from "./support.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const python = process.env.AGUI_TEST_PYTHON ?? path.join(root, ".venv/bin/python");
const script = path.join(root, "tests/foreign/mcp_server.py");

const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "scripted",
    choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

// The model: a tool call of the counter first; once the thread has its result, a sentence.
// Request bodies are read up to 4 MB.
function modelServer() {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
      if (body.length > 4 << 20) req.destroy();
    });
    req.on("end", () => {
      let messages = [];
      try {
        messages = JSON.parse(body).messages ?? [];
      } catch {}
      const answered = messages.at(-1)?.role === "tool";
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (answered) {
        res.write(chunk({ role: "assistant", content: "Here is the counter." }));
        res.write(chunk({}, "stop"));
      } else {
        res.write(chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_counter", type: "function",
          function: { name: "mcp__py__counter", arguments: JSON.stringify({ start: 5 }) } }] }));
        res.write(chunk({}, "tool_calls"));
      }
      res.end("data: [DONE]\n\n");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

let model;
let server;
let browser;
before(async () => {
  assert.ok(existsSync(python), `no Python at ${python}: run scripts/studio.sh setup or set AGUI_TEST_PYTHON`);
  model = await modelServer();
  server = await startServer([
    "--llm", `gpt=${model.url}/v1,model=scripted,tools=none`,
    "--mcp", `py=stdio:${python} ${script} --stdio`,
  ]);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  stopServer(server);
  model?.server.close();
});

test("an MCP App of a Python SDK server renders and calls its own server's tool", async () => {
  const { page, problems } = await openPage(browser, server.url);
  await page.getByRole("combobox", { name: "Agent" }).selectOption({ label: "LLM (scripted)" });
  await send(page, "Show me a counter");
  await idle(page);
  const card = page.getByRole("group", { name: "MCP App: ui://py/counter" });
  await card.waitFor();
  await card.getByRole("status").filter({ hasText: "Runs in a sandboxed frame" }).waitFor({ timeout: 15000 });
  const iframe = page.locator("iframe[title^='MCP App']");
  assert.ok(!(await iframe.getAttribute("sandbox")).includes("allow-same-origin"));
  const app = page.frameLocator("iframe[title^='MCP App']");
  // The tool's input reached the view after its handshake.
  await app.locator("#n").filter({ hasText: /^5$/ }).waitFor({ timeout: 10000 });
  await settled(page, iframe);
  // tools/call of the app-only tool: through the agent to the Python server and back.
  await app.getByRole("button", { name: "+1" }).click();
  await app.locator("#n").filter({ hasText: /^6$/ }).waitFor({ timeout: 15000 });
  await app.getByRole("button", { name: "+1" }).click();
  await app.locator("#n").filter({ hasText: /^7$/ }).waitFor({ timeout: 15000 });
  await page.getByRole("log", { name: "Conversation" }).getByText("Here is the counter.").waitFor();
  await card.scrollIntoViewIfNeeded();
  await shoot(page, "mcp-apps-python-counter");
  assert.deepEqual(problems, []);
  await page.close();
});
