// Drive an MCP server with the official TypeScript SDK client over streamable HTTP and print a
// JSON report (the SDK speaks MCP 2025-11-25: `initialize`, a session, and `elicitation/create`
// requests to the client, answered by the handler below).
//
// Usage: node ts_client.mjs SDK_DIR URL
//   SDK_DIR: the directory holding node_modules/@modelcontextprotocol/sdk.
import { createRequire } from "node:module";
import path from "node:path";

const [sdkDir, url] = process.argv.slice(2);
const require = createRequire(path.join(sdkDir, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

const text = (result) =>
  result.content.filter((block) => block.type === "text").map((block) => block.text).join("\n");

const asked = [];
const client = new Client(
  { name: "ts-conformance-peer", version: "1.0.0" },
  { capabilities: { elicitation: {} } },
);
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push(request.params.message);
  const content = {};
  for (const [name, field] of Object.entries(request.params.requestedSchema?.properties ?? {})) {
    content[name] = field.type === "boolean" ? true : `Grace-${name}`;
  }
  return { action: "accept", content };
});
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const report = { version: client.transport.protocolVersion ?? null };
const tools = await client.listTools();
report.tool_count = tools.tools.length;
report.simple = text(await client.callTool({ name: "test_simple_text", arguments: {} }));
const once = await client.callTool({ name: "test_input_required_result_elicitation", arguments: {} });
report.asked_once = { is_error: Boolean(once.isError), text: text(once) };
const twice = await client.callTool({ name: "test_input_required_result_multi_round", arguments: {} });
report.asked_twice = { is_error: Boolean(twice.isError), text: text(twice) };
report.questions = asked;
await client.close();
console.log(JSON.stringify(report));
