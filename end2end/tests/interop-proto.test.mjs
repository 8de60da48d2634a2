// The interoperability suite of interop.test.mjs over the protobuf binding: every demo scenario is
// run by the official HttpAgent asking for application/vnd.ag-ui.event+proto, so its events reach
// the client as length-prefixed frames decoded by @ag-ui/proto, and must pass its enforcement,
// verification and reducer without a warning, exactly as over SSE.
globalThis.AGUI_INTEROP_TRANSPORT = "proto";
await import("./interop.test.mjs");
