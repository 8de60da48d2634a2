// The views the first paint does not show are WASM chunks of their own (the release is built
// with `cargo leptos build --split`): render hints, the schema form, A2UI surfaces, open
// generative UI, MCP Apps, the shared-state panel and the event inspector stay out of the first
// load. A hint or a form fetches its chunk the first time one appears, and a reloaded thread
// that shows one fetches the chunk before it hydrates, without a hydration error. A reloaded
// thread's sandboxed frames run their documents again: each frame loads only once the page
// listens to it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, stopServer, launchBrowser, watchProblems, send, idle } from "./support.mjs";

let server;
let browser;

before(async () => {
  server = await startServer(["--demo-delay-ms", "2", "--approval-timeout", "30"]);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  stopServer(server);
});

const log = (page) => page.getByRole("log", { name: "Conversation" });
const hydrated = '#hydration-status[data-hydrated="true"]';
const LAZY = [
  "split_hint_body_", "split_editor_body_", "split_a_2_ui_card_view_", "split_inspector_view_",
  "split_ogui_view_", "split_mcp_app_view_", "split_state_panel_view_",
];

/**
 * A fresh page of the studio, once hydrated, recording the `.wasm` files it fetches: `fetched(prefix,
 * from)` says whether one named `prefix…` came after the `from`-th.
 */
async function openRecording() {
  const page = await browser.context.newPage();
  const problems = watchProblems(page);
  const wasm = [];
  page.on("request", (r) => {
    const file = new URL(r.url()).pathname.split("/").pop();
    if (file.endsWith(".wasm")) wasm.push(file);
  });
  const fetched = (prefix, from = 0) => wasm.slice(from).some((f) => f.startsWith(prefix));
  await page.goto(server.url);
  await page.waitForSelector(hydrated, { timeout: 20000 });
  return { page, problems, wasm, fetched };
}

test("render hints and forms load their code the first time they appear", async () => {
  const manifest = await fetch(`${server.url}/pkg/__wasm_split_manifest.json`);
  assert.equal(manifest.status, 200, "the release site is a split build");

  const { page, problems, wasm, fetched } = await openRecording();
  assert.ok(fetched("agui-studio.wasm"), wasm.join(" "));
  for (const view of LAZY) assert.ok(!fetched(view), `${view} in the first load: ${wasm.join(" ")}`);

  await send(page, "render_hints");
  await idle(page);
  await log(page).locator("figure.render-hint svg").first().waitFor();
  assert.ok(fetched("split_hint_body_"), wasm.join(" "));
  assert.ok(!fetched("split_editor_body_"), "no form shown yet");

  await send(page, "hitl");
  await idle(page);
  const card = page.getByRole("group", { name: "Approval: generate_task_steps" });
  await card.getByRole("button", { name: "Edit arguments" }).click();
  await card.getByRole("checkbox").first().waitFor();
  assert.ok(fetched("split_editor_body_"), wasm.join(" "));

  // The shared-state panel's code comes when it first opens.
  assert.ok(!fetched("split_state_panel_view_"), wasm.join(" "));
  await page.getByRole("button", { name: "State", exact: true }).click();
  await page.locator('aside[aria-label="Shared state"]').waitFor();
  assert.ok(fetched("split_state_panel_view_"), wasm.join(" "));

  // Reloaded: the thread's hints are in the server's HTML, so their chunk loads before hydration
  // and the page hydrates without a mismatch; the form is closed again, so its chunk waits.
  const mark = wasm.length;
  await page.reload();
  await page.waitForSelector(hydrated, { timeout: 20000 });
  assert.ok(fetched("split_hint_body_", mark), wasm.slice(mark).join(" "));
  assert.ok(!fetched("split_editor_body_", mark), wasm.slice(mark).join(" "));
  await log(page).locator("figure.render-hint table").first().waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test("a reloaded thread's sandboxed frames load their chunks, then their documents", async () => {
  const { page, problems, wasm, fetched } = await openRecording();
  assert.ok(!fetched("split_ogui_view_") && !fetched("split_mcp_app_view_"), wasm.join(" "));

  await send(page, "ogui");
  await idle(page);
  await send(page, "mcp_app");
  await idle(page);
  const ogui = page.frameLocator("iframe[title='Generated UI']");
  const app = page.frameLocator("iframe[title^='MCP App']");
  const shown = async () => {
    await page.locator("iframe[title='Generated UI']").scrollIntoViewIfNeeded();
    await ogui.locator("#count").filter({ hasText: "1,280" }).waitFor({ timeout: 15000 });
    await page.locator("iframe[title^='MCP App']").scrollIntoViewIfNeeded();
    await app.locator("#status").filter({ hasText: /^Connected to agui-studio/ }).waitFor({ timeout: 15000 });
  };
  await shown();
  assert.ok(fetched("split_ogui_view_") && fetched("split_mcp_app_view_"), wasm.join(" "));

  // After a reload the frames' documents come only once the page listens: both run again.
  const mark = wasm.length;
  await page.reload();
  await page.waitForSelector(hydrated, { timeout: 20000 });
  assert.ok(fetched("split_ogui_view_", mark), wasm.slice(mark).join(" "));
  await shown();
  assert.deepEqual(problems, []);
  await page.close();
});
