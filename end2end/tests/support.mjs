// Shared helpers for the browser tests: start the agui-studio binary on a free loopback port and
// launch Debian's Chromium through playwright-core. Everything started here is stopped by `stop`.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const binary =
  path.resolve(process.env.AGUI_BINARY ?? path.resolve(here, "../../target/release/agui-studio"));

/**
 * Start the server on 127.0.0.1 with an OS-chosen port and a fresh SQLite database in a temporary
 * directory (unless `args` names a `--db`); resolves to { url, proc, logs, dbDir }. `stopServer`
 * removes the database.
 */
export function startServer(args = [], env = {}) {
  const dbDir = args.includes("--db") ? null : mkdtempSync(path.join(tmpdir(), "agui-db-"));
  const dbArgs = dbDir ? ["--db", path.join(dbDir, "studio.db")] : [];
  const removeDb = () => dbDir && rmSync(dbDir, { recursive: true, force: true });
  return new Promise((resolve, reject) => {
    const proc = spawn(binary, ["--addr", "127.0.0.1:0", ...dbArgs, ...args], {
      cwd: path.dirname(binary),
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let logs = "";
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${logs}`)), 20000);
    const onData = (chunk) => {
      logs += chunk.toString();
      const m = logs.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], proc, logs: () => logs, dbDir });
      }
    };
    proc.stdout.on("data", onData);
    proc.stderr.on("data", onData);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      removeDb();
      reject(new Error(`server exited with ${code}:\n${logs}`));
    });
    // Whenever it ends (stopServer, or a crash), its database goes.
    proc.once("close", removeDb);
  });
}

/**
 * Launch headless Chromium with a fresh profile; resolves to { context, close }. `options` go to
 * the context (e.g. `{ javaScriptEnabled: false }`).
 */
export async function launchBrowser(options = {}) {
  const profile = mkdtempSync(path.join(tmpdir(), "agui-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    ...options,
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Collect console errors, page errors and failed responses of a page. */
export function watchProblems(page) {
  const problems = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("response", (resp) => {
    if (resp.status() >= 400) problems.push(`HTTP ${resp.status()} ${resp.url()}`);
  });
  return problems;
}

export function stopServer(server) {
  if (server && server.proc.exitCode === null) {
    server.proc.removeAllListeners("exit");
    server.proc.kill("SIGTERM");
  }
}

/** A fresh page of `url` in `browser`, once hydrated; `problems` collects console errors. */
export async function openPage(browser, url) {
  const page = await browser.context.newPage();
  const problems = watchProblems(page);
  await page.goto(url);
  await page.waitForSelector('#hydration-status[data-hydrated="true"]', { timeout: 20000 });
  return { page, problems };
}

/**
 * Waits until `locator`'s box stays put for 100 ms (at most `timeout` ms). A frame resizes
 * itself right after it shows a result, and the transcript follows it down: Playwright checks a
 * button inside a frame for stability within that frame only, so a click sent while the frame
 * itself still moves in the page can land beside the button.
 */
export async function settled(page, locator, timeout = 5000) {
  const box = async () => JSON.stringify(await locator.boundingBox());
  let prev = await box();
  for (const end = Date.now() + timeout; Date.now() < end; ) {
    await page.waitForTimeout(100);
    const now = await box();
    if (now === prev) return;
    prev = now;
  }
}

/** Type `text` in the composer and send it with Enter, as a user does. */
export async function send(page, text) {
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  await box.press("Enter");
}

/** Wait until no run is active (the composer shows "Send" again). */
export async function idle(page, timeout = 20000) {
  // The composer's button (an agent's surface may have a "Send" button of its own).
  await page.getByRole("button", { name: "Send", exact: true }).and(page.locator(".send-btn")).waitFor({ timeout });
}

/** Where the tests' screenshots go. */
export const shots = path.resolve(here, "../screenshots");

/**
 * Screenshots `${name}-light.png` and `${name}-dark.png` in `shots`, with animations finished;
 * leaves the page in the light theme.
 */
export async function shoot(page, name, { fullPage = true } = {}) {
  mkdirSync(shots, { recursive: true });
  const toggle = page.getByRole("button", { name: "Toggle theme" });
  const theme = async (dark) => {
    if ((await toggle.getAttribute("aria-pressed")) !== String(dark)) {
      await toggle.click();
      // After the colour transition.
      await page.waitForTimeout(600);
    }
  };
  await theme(false);
  await page.screenshot({ path: path.join(shots, `${name}-light.png`), fullPage, animations: "disabled" });
  await theme(true);
  await page.screenshot({ path: path.join(shots, `${name}-dark.png`), fullPage, animations: "disabled" });
  await theme(false);
}

/**
 * The input's `threadId` and `runId` from a foreign test agent's request: AG-UI 1.1 requires
 * the run's boundary events to carry them, and the studio's pipeline fails a run that does not.
 */
export async function inputIds(req) {
  let raw = "";
  for await (const chunk of req) raw += chunk;
  try {
    const input = JSON.parse(raw);
    return { threadId: String(input.threadId), runId: String(input.runId) };
  } catch {
    return { threadId: "t", runId: "r" };
  }
}

/** `event` with the input's ids when it is a run's boundary event. */
export function withIds(event, ids) {
  return ["RUN_STARTED", "RUN_FINISHED", "RUN_ERROR"].includes(event.type) && ids
    ? { ...event, threadId: ids.threadId, runId: ids.runId }
    : event;
}
