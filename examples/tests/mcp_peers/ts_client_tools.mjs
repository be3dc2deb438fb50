// Call tools with the official TypeScript SDK client (npm @modelcontextprotocol/sdk 1.32.2,
// MCP 2025-11-25: `initialize`, then a session whose id every request carries) over
// streamable HTTP, one call after another, and print a JSON report. Through nginx in front of
// tool-host replicas (examples/tests/fleet.rs) the requests of the one session reach several
// replicas. At the end the client ends its session.
//
// Usage: node ts_client_tools.mjs SDK_DIR URL CALLS_JSON
//   CALLS_JSON: [{"name": ..., "arguments": {...}}, ...]
import { createRequire } from "node:module";
import path from "node:path";

const [sdkDir, url, callsJson] = process.argv.slice(2);
const require = createRequire(path.join(sdkDir, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

const text = (result) =>
  result.content.filter((block) => block.type === "text").map((block) => block.text).join("\n");

const client = new Client({ name: "ts-fleet-peer", version: "1.0.0" }, { capabilities: {} });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
const report = { version: transport.protocolVersion ?? null, session: transport.sessionId ?? null };
report.tool_count = (await client.listTools()).tools.length;
report.results = [];
for (const call of JSON.parse(callsJson)) {
  const result = await client.callTool(call);
  report.results.push({ is_error: Boolean(result.isError), text: text(result) });
}
// Ends the session as the SDK does it (`DELETE` with the session id).
await transport.terminateSession();
await client.close();
console.log(JSON.stringify(report));
