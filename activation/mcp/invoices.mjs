// A scripted MCP server for Stage C's examples and tests: newline-delimited JSON-RPC 2.0
// over stdio (initialize, tools/list, tools/call, ping), no dependency, run by the Node
// that runs the agent CLI. Its tools answer fixed data, so a grader can tell that the agent
// called one and a test that the answer reached the model.
import { createInterface } from "node:readline";

const INVOICES = {
  "INV-1042": { customer: "Ada Lovelace", amount: "EUR 1,234.50", status: "overdue", due: "2026-03-31" },
  "INV-1043": { customer: "Grace Hopper", amount: "USD 980.00", status: "paid", due: "2026-04-15" },
};

const TOOLS = [
  {
    name: "lookup_invoice",
    description: "Look up one invoice by its id (such as INV-1042): its customer, amount, status and due date.",
    inputSchema: {
      type: "object",
      properties: { invoice_id: { type: "string", description: "The invoice's id, such as INV-1042" } },
      required: ["invoice_id"],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: "list_invoices",
    description: "List the ids of every invoice on file.",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: true },
  },
];

function called(name, args) {
  if (name === "list_invoices") return { text: Object.keys(INVOICES).join("\n") };
  if (name === "lookup_invoice") {
    const id = String((args || {}).invoice_id || "");
    const invoice = INVOICES[id];
    if (!invoice) return { text: `No invoice ${id} on file.`, error: true };
    return { text: `${id}: ${invoice.customer}, ${invoice.amount}, ${invoice.status}, due ${invoice.due}` };
  }
  return null;
}

function answer(request) {
  const params = request.params || {};
  switch (request.method) {
    case "initialize":
      return {
        protocolVersion: params.protocolVersion || "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "invoices", version: "1.0.0" },
      };
    case "ping":
      return {};
    case "tools/list":
      return { tools: TOOLS };
    case "tools/call": {
      const result = called(params.name, params.arguments);
      if (result === null) throw { code: -32602, message: `Unknown tool: ${params.name}` };
      return { content: [{ type: "text", text: result.text }], isError: Boolean(result.error) };
    }
    default:
      throw { code: -32601, message: `Method not found: ${request.method}` };
  }
}

function send(message) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
}

createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    send({ id: null, error: { code: -32700, message: "Parse error" } });
    return;
  }
  if (request.id === undefined || request.id === null) return; // a notification
  try {
    send({ id: request.id, result: answer(request) });
  } catch (error) {
    send({ id: request.id, error: { code: error.code || -32603, message: String(error.message || error) } });
  }
});
