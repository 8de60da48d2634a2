// Drives the built-in MCP App (src/server/agents/demo/genui/mcp_app.html) the way a host does,
// without a browser: its inline script runs in a node `vm` context whose `window.parent` records
// what the view posts and whose `document` is a stub, so the bridge's messages can be checked
// one by one (SEP-1865 method names and params, JSON-RPC ids, answers to host requests).
//
// Usage: node mcp_app_view.mjs <path of mcp_app.html>   — exits 0 and prints `OK` when every
// check passes; a failed check throws (exit code 1) with what differed. Run by
// tests/mcp_app_view.rs.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";

const html = readFileSync(process.argv[2], "utf8");
const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
assert.equal(scripts.length, 1, "one inline script");
assert.ok(!/<script[^>]+src=/.test(html), "no external script");

const sent = [];
const listeners = {};
const elements = {};
function element(id) {
  elements[id] ??= {
    // `disabled` as the markup sets it.
    id, text: "", className: "", children: [], handlers: {},
    // Setting textContent replaces the children, as in the DOM.
    get textContent() { return this.text; },
    set textContent(v) { this.text = String(v); this.children = []; },
    disabled: new RegExp(`id="${id}"[^>]*\\sdisabled[\\s>]`).test(html),
    addEventListener(type, f) { this.handlers[type] = f; },
    appendChild(child) { this.children.push(child); },
  };
  return elements[id];
}
let fresh = 0;
const host = { postMessage: (message, origin) => sent.push({ message: structuredClone(message), origin }) };
const root = {
  attributes: {}, properties: {},
  getBoundingClientRect: () => ({ height: 321.4 }),
  scrollWidth: 400,
  setAttribute(k, v) { this.attributes[k] = v; },
  style: { setProperty(k, v) { root.properties[k] = v; } },
};
const context = {
  window: { parent: host, addEventListener: (type, f) => { listeners[type] = f; } },
  document: { getElementById: element, createElement: () => element(`new-${fresh++}`), documentElement: root },
  setTimeout, clearTimeout, Promise, JSON, Object, Array, String, Math, Error,
};
vm.runInNewContext(scripts[0], context);
const fromHost = (data) => listeners.message({ source: host, data });
const settle = () => new Promise((r) => setTimeout(r, 5));
const last = () => sent[sent.length - 1].message;

// 1. The handshake: ui/initialize first, nothing else before the host answers.
assert.equal(sent.length, 1);
assert.equal(sent[0].origin, "*");
assert.deepEqual(sent[0].message, {
  jsonrpc: "2.0", id: 1, method: "ui/initialize",
  params: { appInfo: { name: "agui-studio-dice", version: "1.0.0" }, appCapabilities: { availableDisplayModes: ["inline"] }, protocolVersion: "2026-01-26" },
});
assert.ok(element("reroll").disabled, "buttons wait for the handshake");
fromHost({ jsonrpc: "2.0", id: 1, result: {
  protocolVersion: "2026-01-26", hostInfo: { name: "agui-studio" }, hostCapabilities: {},
  hostContext: { theme: "dark", styles: { variables: { "--color-text-primary": "#fff", "not-a-var": "x" } } },
} });
await settle();
assert.deepEqual(sent[1].message, { jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
assert.deepEqual(sent[2].message, { jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { width: 400, height: 322 } });
assert.equal(root.attributes["data-theme"], "dark");
assert.deepEqual(root.properties, { "--color-text-primary": "#fff" }, "only CSS variables are applied");
assert.equal(element("status").textContent, "Connected to agui-studio.");
assert.ok(!element("reroll").disabled);

// 2. Tool input and result are shown as text.
fromHost({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: { sides: 20, count: 3 } } });
fromHost({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: {
  content: [{ type: "text", text: "<b>Rolled</b> 3d20" }], structuredContent: { rolls: [4, 17, 9] } } });
assert.deepEqual(JSON.parse(element("input").textContent), { sides: 20, count: 3 });
assert.match(element("result").textContent, /<b>Rolled<\/b> 3d20/);
assert.deepEqual(element("dice").children.map((d) => d.textContent), ["4", "17", "9"]);

// 3. Messages from anywhere but the host are ignored; host requests get answers.
const before = sent.length;
listeners.message({ source: {}, data: { jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: { evil: true } } } });
assert.equal(JSON.parse(element("input").textContent).evil, undefined);
fromHost({ jsonrpc: "2.0", id: 70, method: "ui/resource-teardown", params: {} });
assert.deepEqual(last(), { jsonrpc: "2.0", id: 70, result: {} });
fromHost({ jsonrpc: "2.0", id: 71, method: "tools/list" });
assert.deepEqual(last(), { jsonrpc: "2.0", id: 71, error: { code: -32601, message: "Method not found" } });
assert.equal(sent.length, before + 2);

// 4. The buttons: tools/call (its answer redraws the dice), ui/message, ui/open-link.
element("reroll").handlers.click();
assert.deepEqual(last(), { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "roll_dice", arguments: { sides: 20, count: 3 } } });
fromHost({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "Rolled 3d20: 1, 2, 3 (total 6)" }], structuredContent: { rolls: [1, 2, 3] } } });
await settle();
assert.deepEqual(element("dice").children.map((d) => d.textContent), ["1", "2", "3"]);
element("say").handlers.click();
assert.deepEqual(last(), { jsonrpc: "2.0", id: 3, method: "ui/message",
  params: { role: "user", content: [{ type: "text", text: "My dice: Rolled 3d20: 1, 2, 3 (total 6)" }] } });
fromHost({ jsonrpc: "2.0", id: 3, result: {} });
element("link").handlers.click();
assert.deepEqual(last(), { jsonrpc: "2.0", id: 4, method: "ui/open-link", params: { url: "https://github.com/modelcontextprotocol/ext-apps" } });
fromHost({ jsonrpc: "2.0", id: 4, result: { isError: true } });
await settle();
assert.equal(element("log").textContent, "The host refused to open the link.");

console.log("OK");
process.exit(0);
