// The studio as a user sees it, in Chromium: every demo scenario through the real UI, located by
// role and accessible name. Screenshots of the main views land in end2end/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { startServer, stopServer, launchBrowser, openPage, send, idle, shoot, inputIds, withIds } from "./support.mjs";

let server;
let browser;

before(async () => {
  server = await startServer(["--demo-delay-ms", "3", "--approval-timeout", "30"]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  stopServer(server);
});

/** A fresh hydrated page. */
const open = () => openPage(browser, server.url);

const log = (page) => page.getByRole("log", { name: "Conversation" });


test("home: the empty studio with the scenario chips", async () => {
  const { page, problems } = await open();
  await page.getByRole("textbox", { name: "Message" }).waitFor();
  await shoot(page, "home");
  assert.deepEqual(problems, []);
  await page.close();
});

test("chat: streamed markdown appears progressively and ends as view nodes", async () => {
  const { page, problems } = await open();
  await send(page, "chat");
  await page.getByRole("button", { name: "Stop" }).waitFor({ timeout: 10000 });
  // Progressive: the answer grows while the run streams.
  await log(page).getByText("Hello from agui-studio").waitFor({ timeout: 10000 });
  const early = (await log(page).innerText()).length;
  await idle(page);
  const late = (await log(page).innerText()).length;
  assert.ok(late > early, `text grew while streaming (${early} → ${late})`);
  await log(page).locator("table th", { hasText: "event" }).first().waitFor();
  await log(page).getByRole("button", { name: "Copy code" }).first().waitFor();
  await shoot(page, "chat");
  assert.deepEqual(problems, []);
  await page.close();
});

test("backend_tool: a tool card with its arguments and result", async () => {
  const { page, problems } = await open();
  await send(page, "backend_tool 12 * 7");
  await idle(page);
  const card = page.getByRole("group", { name: "Tool call: calculate" });
  await card.waitFor();
  assert.match(await card.innerText(), /84/);
  assert.match(await log(page).innerText(), /12 \* 7 = 84/);
  await page.getByRole("button", { name: "Events", exact: true }).click();
  const inspector = page.getByRole("complementary", { name: "Event inspector" });
  await inspector.getByText("TOOL_CALL_RESULT").first().waitFor();
  await shoot(page, "inspector");
  assert.deepEqual(problems, []);
  await page.close();
});

for (const [choice, expected] of [
  ["Approve", /deploying|live/i],
  ["Reject", /Rejected/],
]) {
  test(`approval (in-stream): ${choice} lets the agent continue accordingly`, async () => {
    const { page, problems } = await open();
    await send(page, "approval");
    const button = page.getByRole("button", { name: choice, exact: true });
    await button.waitFor({ timeout: 15000 });
    if (choice === "Approve") await shoot(page, "approval");
    await button.click();
    await log(page).getByText(expected).first().waitFor({ timeout: 15000 });
    await idle(page);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test("interrupt: Approve resumes the run with the answer", async () => {
  const { page, problems } = await open();
  await send(page, "interrupt");
  await idle(page);
  await page.getByRole("button", { name: "Approve", exact: true }).first().click();
  await log(page).getByText(/Done/).first().waitFor({ timeout: 15000 });
  await idle(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("hitl: Reject answers the frontend tool and the agent continues", async () => {
  const { page, problems } = await open();
  await send(page, "hitl");
  await idle(page);
  await page.getByRole("button", { name: "Reject", exact: true }).first().click();
  await page.getByRole("button", { name: "Stop" }).waitFor({ timeout: 10000 }).catch(() => {});
  await idle(page);
  assert.equal(await page.getByRole("button", { name: "Reject", exact: true }).count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test("reasoning: the panel collapses when it ends and says how long it took", async () => {
  const { page, problems } = await open();
  await send(page, "reasoning");
  await idle(page);
  const summary = log(page).locator("details summary", { hasText: /Thought for/ });
  await summary.first().waitFor();
  const isOpen = await log(page).locator("details.reasoning").first().getAttribute("open");
  assert.equal(isOpen, null, "collapsed after the reasoning ended");
  // The agent declares reasoning (encrypted in part): the header's toggle hides and shows it,
  // and the pick survives a reload.
  const toggle = page.getByRole("button", { name: "Reasoning", exact: true });
  assert.equal(await toggle.getAttribute("aria-pressed"), "true");
  assert.match(await toggle.getAttribute("title"), /encrypts/);
  await toggle.click();
  await log(page).locator("details.reasoning").first().waitFor({ state: "hidden" });
  assert.equal(await toggle.getAttribute("aria-pressed"), "false");
  await page.reload();
  await page.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 20000 });
  await page.waitForFunction(() =>
    document.querySelector(".studio")?.classList.contains("hide-reasoning"),
  );
  assert.equal(await log(page).locator("details.reasoning").first().isVisible(), false);
  await toggle.click();
  await log(page).locator("details.reasoning").first().waitFor({ state: "visible" });
  assert.deepEqual(problems, []);
  await page.close();
});

test("render_hints: a chart and a table render from hints", async () => {
  const { page, problems } = await open();
  await send(page, "render_hints");
  await idle(page);
  await log(page).locator("figure.render-hint svg").first().waitFor();
  await log(page).locator("figure.render-hint table").first().waitFor();
  await shoot(page, "render-hints");
  assert.deepEqual(problems, []);
  await page.close();
});

test("agentic_ui: the state panel follows the deltas", async () => {
  const { page, problems } = await open();
  const stateToggle = page.getByRole("button", { name: "State", exact: true });
  if ((await stateToggle.getAttribute("aria-pressed")) !== "true") await stateToggle.click();
  await send(page, "agentic_ui");
  await idle(page);
  const panel = page.getByRole("complementary", { name: "Shared state" });
  await panel.waitFor();
  await shoot(page, "state");
  await panel.getByRole("button", { name: "Edit", exact: true }).click();
  const json = JSON.parse(await panel.getByRole("textbox", { name: "State (JSON)" }).inputValue());
  assert.deepEqual(json.plan.steps.map((s) => s.status), Array(5).fill("completed"));
  assert.deepEqual(problems, []);
  await page.close();
});

test("Stop ends a long run", async () => {
  const { page, problems } = await open();
  await send(page, "long 1000000");
  const stop = page.getByRole("button", { name: "Stop" });
  await stop.waitFor({ timeout: 10000 });
  await page.waitForTimeout(500);
  await stop.click();
  await idle(page, 10000);
  await shoot(page, "stopped");
  assert.deepEqual(problems.filter((p) => !/abort/i.test(p)), []);
  await page.close();
});

test("error: the banner appears with Retry and clears when the next run starts", async () => {
  const { page, problems } = await open();
  await send(page, "error");
  const alert = page.getByRole("alert");
  await alert.first().waitFor({ timeout: 15000 });
  assert.match(await alert.first().innerText(), /UPSTREAM_UNAVAILABLE|unavailable/);
  await page.getByRole("button", { name: "Retry" }).waitFor();
  await idle(page);
  await shoot(page, "error");
  // Retry runs the same input again (and fails again): the new attempt replaces the failed one,
  // on the page and in the stored thread.
  const thread = new URL(page.url()).searchParams.get("thread");
  const view = async () =>
    (await fetch(`${server.url}/api/threads/${encodeURIComponent(thread)}`)).json();
  await page.getByRole("button", { name: "Retry" }).click();
  for (let waited = 0; ; waited += 50) {
    const runs = (await view()).runs;
    if (runs.length === 2 && runs[1].status === "error") break;
    assert.ok(waited < 15000, `the retried run ends: ${JSON.stringify(runs)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await page.getByRole("button", { name: "Retry" }).waitFor();
  assert.deepEqual(
    (await view()).messages.map((m) => m.role),
    ["user", "assistant"],
  );
  assert.equal(await page.locator(".msg-assistant").count(), 1);
  await send(page, "chat");
  await page.getByRole("button", { name: "Stop" }).waitFor({ timeout: 10000 }).catch(() => {});
  await idle(page);
  assert.equal(await page.getByRole("alert").count(), 0, "the banner cleared");
  assert.deepEqual(problems, []);
  await page.close();
});

test("security: script and HTML in a foreign agent's stream render as text and run nothing", async () => {
  const payload = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`;
  const events = [
    { type: "RUN_STARTED", threadId: "t", runId: "r" },
    { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: `${payload} [click](javascript:window.__pwned=3)` },
    { type: "TEXT_MESSAGE_END", messageId: "m" },
    { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: "lookup", parentMessageId: "m" },
    { type: "TOOL_CALL_ARGS", toolCallId: "c", delta: JSON.stringify({ q: payload }) },
    { type: "TOOL_CALL_END", toolCallId: "c" },
    { type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c", content: payload },
    { type: "CUSTOM", name: "ui_render_hint", value: { component: "card", props: { title: payload, body: payload } } },
    { type: "RUN_FINISHED", threadId: "t", runId: "r" },
  ];
  const foreign = http.createServer(async (req, res) => {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "access-control-allow-origin": "*",
      "access-control-allow-headers": "*",
    });
    if (req.method === "OPTIONS") return res.end();
    const ids = await inputIds(req);
    for (const e of events) res.write(`data: ${JSON.stringify(withIds(e, ids))}\n\n`);
    res.end();
  });
  await new Promise((r) => foreign.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${foreign.address().port}/agent`;
  try {
    const { page } = await open();
    let dialogs = 0;
    page.on("dialog", (d) => {
      dialogs += 1;
      d.dismiss();
    });
    const agentUrl = page.getByRole("textbox", { name: "Agent URL" });
    await agentUrl.fill(url);
    await agentUrl.press("Enter");
    await send(page, "hello");
    await log(page).getByText("<script>window.__pwned=1</script>", { exact: false }).first().waitFor({ timeout: 15000 });
    await idle(page);
    const pwned = await page.evaluate(() => window.__pwned ?? null);
    assert.equal(pwned, null, "no agent-provided script ran");
    assert.equal(dialogs, 0);
    assert.equal(await log(page).locator("script").count(), 0);
    assert.equal(await log(page).locator("img[onerror]").count(), 0);
    assert.equal(await page.locator('a[href^="javascript:"]').count(), 0);
    await page.close();
  } finally {
    foreign.close();
  }
});

test("interrupt with a response schema: the generated form answers it", async () => {
  const { page, problems } = await open();
  await send(page, "interrupt date");
  await idle(page);
  const field = page.getByLabel("Report date");
  await field.waitFor({ timeout: 15000 });
  await field.fill("2026-12-01");
  await shoot(page, "interrupt-form");
  await page.getByRole("button", { name: "Submit", exact: true }).click();
  await log(page).getByText(/2026-12-01/).last().waitFor({ timeout: 15000 });
  await idle(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("activities: live progress reaches 100%", async () => {
  const { page, problems } = await open();
  await send(page, "activities");
  await idle(page);
  const card = page.getByRole("group", { name: "Activity: BACKGROUND_TASK" });
  await card.waitFor();
  const bar = card.getByRole("progressbar").first();
  assert.equal(await bar.getAttribute("value"), "100");
  assert.deepEqual(problems, []);
  await page.close();
});

test("subagents: their work is shown under each subagent", async () => {
  const { page, problems } = await open();
  await send(page, "subagents");
  await idle(page);
  assert.equal(await log(page).locator(".subagent-head").count(), 2);
  assert.ok((await log(page).locator(".turn.in-subagent").count()) >= 2);
  assert.deepEqual(problems, []);
  await page.close();
});

test("Connection: the header for an Agent URL and the transport (protobuf by default) in one popup", async () => {
  const { page, problems } = await open();
  await page.getByText("Connection", { exact: true }).click();
  const transport = page.getByRole("combobox", { name: "Transport" });
  assert.equal(await transport.inputValue(), "protobuf");
  await page.getByRole("textbox", { name: "Header for this Agent URL" }).waitFor();
  // A run over the default transport comes back as protobuf and renders as over SSE.
  const types = [];
  page.on("response", (r) => {
    if (r.request().method() === "POST" && new URL(r.url()).pathname === "/api/agents/demo") {
      types.push(r.headers()["content-type"]);
    }
  });
  await shoot(page, "connection-popup", { fullPage: false });
  await page.getByText("Connection", { exact: true }).click();
  await send(page, "backend_tool 3 * 5");
  await idle(page);
  assert.match(await log(page).innerText(), /15/);
  assert.deepEqual(types, ["application/vnd.ag-ui.event+proto"]);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByText("Connection", { exact: true }).click();
  await transport.waitFor();
  await shoot(page, "connection-popup-phone", { fullPage: false });
  assert.deepEqual(problems, []);
  await page.close();
});

test("phone-sized screen: the studio stays usable", async () => {
  const { page, problems } = await open();
  await page.setViewportSize({ width: 390, height: 844 });
  await send(page, "backend_tool 3 * 5");
  await idle(page);
  await page.getByRole("button", { name: "Send" }).waitFor();
  assert.match(await log(page).innerText(), /15/);
  await shoot(page, "phone", { fullPage: false });
  assert.deepEqual(problems, []);
  await page.close();
});

test("approval: Edit arguments, as JSON, changes them before approving and the agent uses them", async () => {
  const { page, problems } = await open();
  await send(page, "approval");
  const card = page.getByRole("group", { name: "Approval: request_approval" });
  await card.getByRole("button", { name: "Edit arguments" }).click({ timeout: 15000 });
  await card.getByRole("button", { name: "Advanced: edit as JSON" }).click();
  const editor = card.getByRole("textbox", { name: "Arguments (JSON)" });
  const args = JSON.parse(await editor.inputValue());
  assert.equal(args.action, "Deploy build 1.4.2 to production");
  args.action = "Deploy build 1.4.3 to staging";
  await editor.fill(JSON.stringify(args, null, 2));
  await shoot(page, "approval-edit");
  await card.getByRole("button", { name: "Approve with edits" }).click();
  await log(page)
    .getByText("Approved with your edits — Deploy build 1.4.3 to staging")
    .waitFor({ timeout: 15000 });
  await idle(page);
  // The tool card shows the result the agent recorded: approved, with the edited arguments.
  const result = await page.getByRole("group", { name: "Tool call: request_approval" }).innerText();
  assert.match(result, /"editedArgs":\{"action":"Deploy build 1\.4\.3/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("approval: invalid JSON in the editor is refused with a message", async () => {
  const { page, problems } = await open();
  await send(page, "approval");
  const card = page.getByRole("group", { name: "Approval: request_approval" });
  await card.getByRole("button", { name: "Edit arguments" }).click({ timeout: 15000 });
  await card.getByRole("button", { name: "Advanced: edit as JSON" }).click();
  await card.getByRole("textbox", { name: "Arguments (JSON)" }).fill("{ not json");
  await card.getByRole("button", { name: "Approve with edits" }).click();
  assert.match(await card.getByRole("alert").innerText(), /Not valid JSON/);
  await card.getByRole("button", { name: "Reject", exact: true }).click();
  await log(page).getByText(/Rejected/).first().waitFor({ timeout: 15000 });
  await idle(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("composer: attached files are sent as 1.1 content parts and described by multimodal", async () => {
  const { page, problems } = await open();
  // A 1×1 PNG and a small text file.
  const png = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
    "base64",
  );
  const notes = Buffer.from("meeting notes: ship 1.4.3 on Friday\n");
  await page.getByLabel("Attach files").first().setInputFiles([
    { name: "pixel.png", mimeType: "image/png", buffer: png },
    { name: "notes.txt", mimeType: "text/plain", buffer: notes },
  ]);
  const chips = page.getByRole("list", { name: "Attachments" }).first();
  await chips.getByText("pixel.png").waitFor();
  await chips.getByText("notes.txt").waitFor();
  const request = page.waitForRequest((r) => r.url().includes("/api/agents/") && r.method() === "POST");
  await send(page, "multimodal");
  const body = JSON.parse((await request).postData());
  const user = body.messages.filter((m) => m.role === "user").at(-1);
  assert.ok(Array.isArray(user.content), "the user message has content parts");
  const [text, image, doc] = user.content;
  assert.deepEqual(text, { type: "text", text: "multimodal" });
  assert.equal(image.type, "image");
  assert.deepEqual(image.source, { type: "data", value: png.toString("base64"), mimeType: "image/png" });
  assert.equal(doc.type, "document");
  assert.equal(doc.source.mimeType, "text/plain");
  assert.equal(Buffer.from(doc.source.value, "base64").toString(), notes.toString());
  await idle(page);
  // The agent's answer: a table row per part, with the sizes it decoded from the base64.
  const answer = await log(page).locator(".msg-assistant").last().innerText();
  assert.match(answer, /3 parts/);
  assert.match(answer, /image\s+data\s+image\/png\s+70 bytes/);
  assert.match(answer, new RegExp(`document\\s+data\\s+text/plain\\s+${notes.length} bytes`));
  // The sent message shows its attachments (a thumbnail for the image), and the composer is
  // empty again.
  const sent = log(page).locator(".msg-user").last();
  await sent.getByRole("img", { name: "pixel.png" }).waitFor();
  assert.match(await sent.innerText(), /notes\.txt/);
  assert.equal(await page.getByRole("list", { name: "Attachments" }).count(), 1);
  await shoot(page, "attachments");
  assert.deepEqual(problems, []);
  await page.close();
});
