// A small MCP Apps host page, built on the host side of
// @modelcontextprotocol/ext-apps (AppBridge, PostMessageTransport and its
// helpers) and the SDK's Client over Streamable HTTP. It knows nothing of
// the server it talks to but the URL of its endpoint and which tool to call
// (query parameters), and does what a chat host does with a tool that has a
// view: list the tools, find the tool's `ui://` resource, read it, render it
// in a sandbox proxy on another origin, and hand it the tool's input and
// result; the view's calls back to the server go through the bridge.
//
// Query parameters:
//   tool     the tool to call (required)
//   args     its arguments, as JSON (default {})
//   mcp      the server's Streamable HTTP endpoint (default /mcp, same origin)
//   sandbox  the sandbox proxy page, on an origin other than this page's
//
// What it did is kept in `window.__host` for whoever drives the page
// (tests/browser/run.mjs): its state, the tool's result, the view's resource
// metadata and every request the view sent through the bridge, with the
// answer it got.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  PostMessageTransport,
  RESOURCE_MIME_TYPE,
  buildAllowAttribute,
  getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";

type Json = any;

/** A request of the view's that went through the bridge, and its answer. */
interface ViewCall {
  method: string;
  params: Json;
  result?: Json;
  error?: Json;
}

interface HostRecord {
  state: "starting" | "ready" | "failed";
  error?: string;
  tool?: Json;
  resourceUri?: string;
  viewMeta?: Json;
  toolInput?: Json;
  toolResult?: Json;
  calls: ViewCall[];
  sizes: Json[];
  logs: Json[];
}

const record: HostRecord = { state: "starting", calls: [], sizes: [], logs: [] };
(window as Json).__host = record;

const EXTENSION = "io.modelcontextprotocol/ui";

function status(text: string) {
  document.getElementById("status")!.textContent = text;
}

function fail(error: unknown) {
  const message = error instanceof Error ? error.message : String(error);
  record.state = "failed";
  record.error = message;
  status(`failed: ${message}`);
  console.error(`host: ${message}`);
}

/** Whether `tool` may be called by a view: its visibility includes "app". */
function appMayCall(tool: Json): boolean {
  const visibility = tool?._meta?.ui?.visibility;
  return !Array.isArray(visibility) || visibility.includes("app");
}

async function main() {
  const query = new URLSearchParams(location.search);
  const toolName = query.get("tool");
  const sandboxUrl = query.get("sandbox");
  if (!toolName) throw new Error("no tool named: give ?tool=NAME");
  if (!sandboxUrl) throw new Error("no sandbox proxy: give ?sandbox=URL");
  if (new URL(sandboxUrl, location.href).origin === location.origin) {
    throw new Error("the sandbox proxy must be on another origin than the host page");
  }
  const args = JSON.parse(query.get("args") ?? "{}");
  const endpoint = new URL(query.get("mcp") ?? "/mcp", location.href);

  status(`connecting to ${endpoint}`);
  const client = new Client(
    { name: "mcp-browser-test-host", version: "1.0.0" },
    { capabilities: { extensions: { [EXTENSION]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } as Json },
  );
  await client.connect(new StreamableHTTPClientTransport(endpoint));

  const tools: Json[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  const tool = tools.find((candidate) => candidate.name === toolName);
  if (!tool) throw new Error(`the server has no tool ${toolName}`);
  record.tool = tool;
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`the tool ${toolName} links no view (no _meta.ui.resourceUri)`);
  record.resourceUri = uri;

  // The view: its HTML from resources/read, its metadata from the content
  // item, else from the resources/list entry (the spec's order).
  const read = await client.readResource({ uri });
  const content: Json = read.contents.find((item: Json) => item.uri === uri) ?? read.contents[0];
  if (!content) throw new Error(`resources/read of ${uri} gave no content`);
  if (content.mimeType !== RESOURCE_MIME_TYPE) {
    throw new Error(`${uri} is ${content.mimeType}, not ${RESOURCE_MIME_TYPE}`);
  }
  const html: string =
    typeof content.text === "string"
      ? content.text
      : new TextDecoder().decode(Uint8Array.from(atob(content.blob ?? ""), (c) => c.charCodeAt(0)));
  let meta: Json = content._meta?.ui;
  if (meta === undefined) {
    const listed = await client.listResources();
    meta = listed.resources.find((resource: Json) => resource.uri === uri)?._meta?.ui;
  }
  meta = meta ?? {};
  record.viewMeta = meta;

  // The sandbox proxy's frame; the proxy loads the view in a frame of its own.
  const frame = document.createElement("iframe");
  frame.id = "sandbox";
  frame.title = `${toolName} view`;
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  const allow = buildAllowAttribute(meta.permissions);
  if (allow) frame.setAttribute("allow", allow);
  if (meta.prefersBorder === true) frame.classList.add("bordered");
  document.getElementById("views")!.append(frame);

  const bridge = new AppBridge(
    client,
    { name: "mcp-browser-test-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} },
    {
      hostContext: {
        theme: "light",
        displayMode: "inline",
        availableDisplayModes: ["inline"],
        platform: "web",
        locale: "en-US",
        containerDimensions: { maxWidth: 720 },
        toolInfo: { tool },
      },
    },
  );
  bridge.onsizechange = ({ width, height }) => {
    record.sizes.push({ width, height });
    if (height != null) frame.style.height = `${height}px`;
    if (width != null) frame.style.width = `${Math.min(width, 720)}px`;
  };
  bridge.onloggingmessage = (params) => {
    record.logs.push(params);
  };
  bridge.onsandboxready = () => {
    bridge
      .sendSandboxResourceReady({ html, csp: meta.csp, permissions: meta.permissions })
      .catch(fail);
  };
  bridge.oninitialized = () => {
    (async () => {
      record.toolInput = args;
      await bridge.sendToolInput({ arguments: args });
      status(`calling ${toolName}`);
      const result = await client.callTool({ name: toolName, arguments: args });
      record.toolResult = result;
      await bridge.sendToolResult(result as Json);
      record.state = "ready";
      status(`showing ${toolName}`);
    })().catch(fail);
  };

  const transport = new PostMessageTransport(frame.contentWindow!, frame.contentWindow!);
  await bridge.connect(transport);
  watch(transport, tools);
  status("loading the view");
  frame.src = new URL(sandboxUrl, location.href).href;
}

// Keeps every request the view sends (and the answer the bridge gives it),
// and refuses a view's tools/call of a tool that is not for views
// (visibility without "app"), as the spec asks of hosts.
function watch(transport: PostMessageTransport, tools: Json[]) {
  const open = new Map<unknown, ViewCall>();
  const deliver = transport.onmessage!;
  transport.onmessage = (message: Json, extra?: Json) => {
    if (message.method !== undefined && message.id !== undefined) {
      const call: ViewCall = { method: message.method, params: message.params };
      record.calls.push(call);
      open.set(message.id, call);
      if (message.method === "tools/call") {
        const tool = tools.find((candidate) => candidate.name === message.params?.name);
        if (tool && !appMayCall(tool)) {
          const error = { code: -32602, message: `the tool ${tool.name} is not for views` };
          void transport.send({ jsonrpc: "2.0", id: message.id, error } as Json);
          call.error = error;
          open.delete(message.id);
          return;
        }
      }
    }
    deliver(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (message: Json, options?: Json) => {
    const call = message.method === undefined ? open.get(message.id) : undefined;
    if (call) {
      open.delete(message.id);
      if (message.error !== undefined) call.error = message.error;
      else call.result = message.result;
    }
    return send(message, options);
  };
}

main().catch(fail);
