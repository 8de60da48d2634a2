// The views the first paint does not show are WASM chunks of their own (the release is built
// with `cargo leptos build --split`): render hints, the schema form, A2UI surfaces, open
// generative UI, MCP Apps, the shared-state panel and the event inspector stay out of the first
// load. A hint or a form fetches its chunk the first time one appears, and a reloaded thread
// that shows one fetches the chunk before it hydrates, without a hydration error. A reloaded
// thread's sandboxed frames run their documents again: each frame loads only once the page
// listens to it. A run's code and the messages' views come after hydration, while the page is
// idle; an action before they have come waits for them, showing the run at once, and a chunk
// that cannot be fetched is said in the banner and fetched again by the next try. An approval's
// card is a chunk fetched with them; one that cannot be fetched leaves a note.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
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
  "split_hint_body", "split_editor_body", "split_a2ui_card_view", "split_inspector_view",
  "split_ogui_view", "split_mcp_app_view", "split_state_panel_view",
  // A stored thread's parse (a page that starts with one fetches it before hydrating) and the
  // request of "Load agents" (a CopilotKit runtime's agents, fetched on the first click).
  "split_thread_parse", "split_runtime_info",
  // Renaming, deleting, listing and searching threads (the requests and what follows their
  // answers), and reading attached files: on first use.
  "split_thread_edits", "split_attachments",
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

/** A fresh page, hydrated, whose fetches of the chunk `name` fail; `errors` collects its page errors. */
async function openRefusing(name) {
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.route(`**/${name}*.wasm`, (route) => route.abort());
  await page.goto(server.url);
  await page.waitForSelector(hydrated, { timeout: 20000 });
  return { page, errors };
}

/**
 * The next run of a page whose chunk was refused still draws its text, and the page had no error
 * but the refused fetch itself (reported by the split loader's script: no panic); then closes it.
 */
async function answersAndCloses(page, errors) {
  await send(page, "backend_tool 6 * 7");
  await idle(page);
  await log(page).getByText("6 * 7 = 42").first().waitFor();
  assert.deepEqual(errors.filter((e) => !/Failed to fetch/.test(e)), []);
  await page.close();
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
  assert.ok(fetched("split_hint_body"), wasm.join(" "));
  assert.ok(!fetched("split_editor_body"), "no form shown yet");

  await send(page, "hitl");
  await idle(page);
  const card = page.getByRole("group", { name: "Approval: generate_task_steps" });
  await card.getByRole("button", { name: "Edit arguments" }).click();
  await card.getByRole("checkbox").first().waitFor();
  assert.ok(fetched("split_editor_body"), wasm.join(" "));

  // The shared-state panel's code comes when it first opens.
  assert.ok(!fetched("split_state_panel_view"), wasm.join(" "));
  await page.getByRole("button", { name: "State", exact: true }).click();
  await page.locator('aside[aria-label="Shared state"]').waitFor();
  assert.ok(fetched("split_state_panel_view"), wasm.join(" "));

  // Reloaded: the thread's hints are in the server's HTML, so their chunk loads before hydration
  // and the page hydrates without a mismatch; the form is closed again, so its chunk waits.
  const mark = wasm.length;
  await page.reload();
  await page.waitForSelector(hydrated, { timeout: 20000 });
  assert.ok(fetched("split_hint_body", mark), wasm.slice(mark).join(" "));
  assert.ok(!fetched("split_editor_body", mark), wasm.slice(mark).join(" "));
  await log(page).locator("figure.render-hint table").first().waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

// What a browser fetches before the page is interactive, as the server sends it gzipped, held to
// the capacity issue's goal of 400 KB (KiB, as the benchmarks count): 409,134 B on 2026-12-04,
// the release site built by the pinned nightly (scripts/studio.sh); a site built on stable
// (AGUI_SITE_STABLE=1) carries some 46 KB more and fails here.
const FIRST_LOAD_BUDGET = 400 * 1024;

/** The bytes of `url` as the server sends them to a client that accepts gzip. */
function gzipped(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { "Accept-Encoding": "gzip" } }, (res) => {
      let bytes = 0;
      res.on("data", (c) => (bytes += c.length));
      res.on("end", () => resolve({ bytes, encoding: res.headers["content-encoding"] }));
      res.on("error", reject);
    });
    req.setTimeout(10000, () => req.destroy(new Error(`timeout: ${url}`)));
    req.on("error", reject);
  });
}

test("the first load stays within its budget, gzipped as served", async () => {
  const page = await browser.context.newPage();
  // The moment the page says it is hydrated, in the page's own clock.
  await page.addInitScript(() => {
    new MutationObserver(() => {
      const el = document.getElementById("hydration-status");
      if (el?.dataset.hydrated === "true" && window.__hydratedAt === undefined) {
        window.__hydratedAt = performance.now();
      }
    }).observe(document, { subtree: true, childList: true, attributes: true });
  });
  await page.goto(server.url);
  await page.waitForSelector(hydrated, { timeout: 20000 });
  const paths = await page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .filter((e) => e.startTime < window.__hydratedAt)
      .map((e) => new URL(e.name).pathname)
      .filter((p) => /\.(wasm|js|css)$/.test(p)),
  );
  await page.close();
  assert.ok(paths.some((p) => p.endsWith("/agui-studio.wasm")), paths.join(" "));
  let total = 0;
  const sizes = [];
  for (const path of new Set(paths)) {
    const { bytes, encoding } = await gzipped(server.url + path);
    assert.equal(encoding, "gzip", path);
    total += bytes;
    sizes.push(`${path} ${bytes}`);
  }
  assert.ok(total <= FIRST_LOAD_BUDGET, `${total} B before hydration: ${sizes.join(", ")}`);
});

test("a reloaded thread's sandboxed frames load their chunks, then their documents", async () => {
  const { page, problems, wasm, fetched } = await openRecording();
  assert.ok(!fetched("split_ogui_view") && !fetched("split_mcp_app_view"), wasm.join(" "));

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
  assert.ok(fetched("split_ogui_view") && fetched("split_mcp_app_view"), wasm.join(" "));

  // After a reload the frames' documents come only once the page listens: both run again.
  const mark = wasm.length;
  await page.reload();
  await page.waitForSelector(hydrated, { timeout: 20000 });
  assert.ok(fetched("split_ogui_view", mark), wasm.slice(mark).join(" "));
  await shown();
  assert.deepEqual(problems, []);
  await page.close();
});

// A run's code (the pipeline, starting and answering runs), the messages' views and the
// approvals' cards are chunks too: a page without messages hydrates without them, and fetches
// them while idle after hydration, ahead of the first message. A reloaded thread with messages
// fetches the messages' chunk before it hydrates.
const AFTER = ["split_run_engine", "split_message_view", "split_approval_view", "split_warm_rehearsal"];

test("a run's code and the messages' views come after hydration, while the page is idle", async () => {
  const { page, problems, wasm, fetched } = await openRecording();
  const atHydration = wasm.slice();
  for (const chunk of AFTER) {
    assert.ok(!atHydration.some((f) => f.startsWith(chunk)), `${chunk} before hydration: ${atHydration.join(" ")}`);
  }
  // Fetched while idle, without any action of the user's.
  for (let i = 0; i < 100 && !AFTER.every((c) => fetched(c)); i++) await page.waitForTimeout(100);
  for (const chunk of AFTER) assert.ok(fetched(chunk), `${chunk} not fetched while idle: ${wasm.join(" ")}`);

  await send(page, "backend_tool 6 * 7");
  await idle(page);
  await log(page).getByText("6 * 7 = 42").first().waitFor();

  // Reloaded with messages: their chunk before hydration, then a page that hydrated cleanly.
  const mark = wasm.length;
  await page.reload();
  await page.waitForSelector(hydrated, { timeout: 20000 });
  const beforeHydration = wasm.slice(mark);
  assert.ok(beforeHydration.some((f) => f.startsWith("split_message_view")), beforeHydration.join(" "));
  assert.ok(beforeHydration.some((f) => f.startsWith("split_thread_parse")), beforeHydration.join(" "));
  assert.ok(!beforeHydration.some((f) => f.startsWith("split_run_engine")), beforeHydration.join(" "));
  await log(page).getByText("6 * 7 = 42").first().waitFor();
  // The hydrated transcript answers: copy a message.
  const answer = log(page).locator(".msg-assistant").last();
  await answer.getByRole("button", { name: "Copy message" }).click();
  await answer.getByRole("status").getByText("Copied").waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test("a message sent before a run's code has come shows the run at once and then runs", async () => {
  const page = await browser.context.newPage();
  const problems = watchProblems(page);
  let release;
  const held = new Promise((r) => (release = r));
  await page.route("**/split_run_engine*.wasm", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(server.url);
  await page.waitForSelector(hydrated, { timeout: 20000 });
  await send(page, "backend_tool 6 * 7");
  // Running (the composer offers Stop) while the chunk is held back.
  await page.getByRole("button", { name: "Stop", exact: true }).waitFor({ timeout: 5000 });
  assert.equal(await log(page).getByText("6 * 7 = 42").count(), 0);
  release();
  await idle(page);
  await log(page).getByText("6 * 7 = 42").first().waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test("a run's code that cannot be fetched is said in the banner, and the next try fetches it", async () => {
  const page = await browser.context.newPage();
  let refuse = true;
  await page.route("**/split_run_engine*.wasm", (route) => (refuse ? route.abort() : route.continue()));
  await page.goto(server.url);
  await page.waitForSelector(hydrated, { timeout: 20000 });
  await send(page, "backend_tool 6 * 7");
  await page.getByText(/The run could not start: the page's code for it could not be fetched/).waitFor({ timeout: 10000 });
  await idle(page);
  assert.equal(await log(page).locator(".turn").count(), 0, "nothing of the message was sent");
  assert.equal(await page.getByRole("textbox", { name: "Message" }).inputValue(), "backend_tool 6 * 7", "the text is back");
  refuse = false;
  await send(page, "backend_tool 6 * 7");
  await idle(page);
  await log(page).getByText("6 * 7 = 42").first().waitFor();
  await page.close();
});

test("a view waiting for its chunk leaves the rest of the page in place: the focus stays", async () => {
  const { page, problems } = await openRecording();
  // A run's code and the messages' views first (fetched while idle).
  await send(page, "hello");
  await idle(page);
  let release;
  const held = new Promise((r) => (release = r));
  await page.route("**/split_hint_body*.wasm", async (route) => {
    await held;
    await route.continue();
  });
  await send(page, "render_hints");
  // The page stays while the hint's chunk is held back: the hint's frame is shown, and the
  // message box keeps the focus and what is typed into it.
  await log(page).locator("figure.render-hint").first().waitFor({ timeout: 10000 });
  assert.equal(await log(page).locator("figure.render-hint svg").count(), 0, "the chunk is held");
  const box = page.getByRole("textbox", { name: "Message" });
  await box.focus();
  await box.pressSequentially("draft");
  await box.evaluate((el) => (el.__before = true));
  release();
  await log(page).locator("figure.render-hint svg").first().waitFor();
  assert.ok(await box.evaluate((el) => el.__before === true && el === document.activeElement), "the same box, focused");
  assert.equal(await box.inputValue(), "draft");
  await idle(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a message whose chunk cannot be fetched leaves a note in its place, and the page goes on", async () => {
  const { page, errors } = await openRefusing("split_message_view");
  await send(page, "backend_tool 6 * 7");
  await idle(page);
  const notes = log(page).getByRole("note").filter({ hasText: "could not be fetched" });
  await notes.first().waitFor({ timeout: 10000 });
  assert.ok((await notes.count()) >= 2, "the question and the answer");
  // The page still answers: the inspector opens, a new thread starts.
  await page.getByRole("button", { name: /events/i }).first().click();
  await page.locator('aside[aria-label="Event inspector"]').waitFor();
  await page.getByRole("button", { name: /new thread/i }).first().click();
  await log(page).getByRole("heading", { name: "Talk to an AG-UI agent" }).waitFor();
  // The refused fetch itself is reported by the split loader's script; nothing else (no panic).
  assert.deepEqual(errors.filter((e) => !/Failed to fetch/.test(e)), []);
  await page.close();
});

test("a component whose chunk cannot be fetched leaves a note in its place, and the page goes on", async () => {
  const { page, errors } = await openRefusing("split_hint_body");
  await send(page, "render_hints");
  await idle(page);
  await log(page).getByRole("note").filter({ hasText: "This component cannot be shown" }).first().waitFor({ timeout: 10000 });
  assert.equal(await log(page).locator("figure.render-hint svg").count(), 0);
  // The page still answers: the next run's text arrives.
  await answersAndCloses(page, errors);
});

test("an approval whose chunk cannot be fetched leaves a note in its place, and the page goes on", async () => {
  const { page, errors } = await openRefusing("split_approval_view");
  await send(page, "hitl");
  await page.getByRole("note").filter({ hasText: "This approval cannot be shown" }).first().waitFor({ timeout: 10000 });
  assert.equal(await page.getByRole("group", { name: /^Approval:/ }).count(), 0);
  // The page still answers: a new thread starts, and its run's text arrives.
  await page.getByRole("button", { name: /new thread/i }).first().click();
  await log(page).getByRole("heading", { name: "Talk to an AG-UI agent" }).waitFor();
  await answersAndCloses(page, errors);
});

test("a reloaded thread whose run waits on an approval shows the card again, and it answers", async () => {
  const { page, problems, wasm } = await openRecording();
  await send(page, "approval");
  const card = page.getByRole("group", { name: /^Approval:/ });
  await card.waitFor({ timeout: 10000 });
  const mark = wasm.length;
  await page.reload();
  await page.waitForSelector(hydrated, { timeout: 20000 });
  // The page follows the run, which waits on the approval: the card comes back with its chunk.
  await card.waitFor({ timeout: 10000 });
  assert.ok(wasm.slice(mark).some((f) => f.startsWith("split_approval_view")), wasm.slice(mark).join(" "));
  await card.getByRole("button", { name: "Approve" }).click();
  await card.waitFor({ state: "detached", timeout: 10000 });
  await idle(page);
  assert.deepEqual(problems, []);
  await page.close();
});
