// What the transcript shows comes from the session's one conversation, not from the event
// inspector's log (which keeps only the newest 5,000 events): a tool call whose arguments ended
// early in a long run is not shown "streaming arguments" again after 20,000 later events. (No
// result is sent: a result would make the card "done" whatever the arguments' state.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { startServer, stopServer, launchBrowser, openPage, send, idle, inputIds, withIds } from "./support.mjs";

let server;
let browser;

before(async () => {
  server = await startServer(["--demo-delay-ms", "0"]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  stopServer(server);
});

test("a tool call whose arguments ended early stays ended after 20,000 later events", async () => {
  const head = [
    { type: "RUN_STARTED", threadId: "t", runId: "r" },
    { type: "TOOL_CALL_START", toolCallId: "tc-early", toolCallName: "lookup" },
    { type: "TOOL_CALL_ARGS", toolCallId: "tc-early", delta: '{"q":"weather"}' },
    { type: "TOOL_CALL_END", toolCallId: "tc-early" },
    { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
  ];
  // The stream stays open after the 20,000 deltas until the test has looked at the card.
  let release;
  const released = new Promise((r) => (release = r));
  const foreign = http.createServer(async (req, res) => {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "access-control-allow-origin": "*",
      "access-control-allow-headers": "*",
    });
    if (req.method === "OPTIONS") return res.end();
    const ids = await inputIds(req);
    let body = head.map((e) => `data: ${JSON.stringify(withIds(e, ids))}\n\n`).join("");
    for (let i = 0; i < 20000; i++) {
      body += `data: ${JSON.stringify({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "x" })}\n\n`;
    }
    body += `data: ${JSON.stringify({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: " all-deltas-sent" })}\n\n`;
    res.write(body);
    await released;
    for (const e of [
      { type: "TEXT_MESSAGE_END", messageId: "m" },
      { type: "RUN_FINISHED", threadId: "t", runId: "r" },
    ]) {
      res.write(`data: ${JSON.stringify(withIds(e, ids))}\n\n`);
    }
    res.end();
  });
  await new Promise((r) => foreign.listen(0, "127.0.0.1", r));
  try {
    const { page } = await openPage(browser, server.url);
    const agentUrl = page.getByRole("textbox", { name: "Agent URL" });
    await agentUrl.fill(`http://127.0.0.1:${foreign.address().port}/agent`);
    await agentUrl.press("Enter");
    await send(page, "what is the weather");
    await page.getByText("all-deltas-sent").first().waitFor({ timeout: 60000 });
    // The run is still going (Stop is offered): the call runs, its arguments are not streaming.
    await page.getByRole("button", { name: "Stop" }).waitFor({ timeout: 5000 });
    const card = page.getByRole("group", { name: "Tool call: lookup" });
    assert.equal(await card.getAttribute("data-status"), "running");
    release();
    await idle(page, 30000);
    assert.equal(await card.getAttribute("data-status"), "no-result");
    await page.close();
  } finally {
    release();
    foreign.close();
  }
});
