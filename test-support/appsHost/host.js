// A minimal MCP Apps host page, bundled for the browser by appsHost.ts: the official MCP client
// (v2) talks to the server through the page's own origin (/mcp, proxied), and ext-apps' AppBridge
// runs the app found on the first tool with a UI inside a sandbox on another origin.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, getToolUiResourceUri, PostMessageTransport, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';

const query = new URLSearchParams(location.search);
const SANDBOX_URL = query.get('sandbox');
const ERA = query.get('era') ?? 'legacy';
const host = { status: 'loading' };
window.__host = host;
const status = (text) => {
  host.status = text;
  document.getElementById('host-status').textContent = text;
};

/** Loads the sandbox proxy with the resource's CSP, which its server sends as a header. */
function loadSandbox(iframe, csp) {
  const ready = new Promise((resolve) => {
    const onMessage = (event) => {
      if (event.source === iframe.contentWindow && event.data?.method === 'ui/notifications/sandbox-proxy-ready') {
        window.removeEventListener('message', onMessage);
        resolve();
      }
    };
    window.addEventListener('message', onMessage);
  });
  const url = new URL(SANDBOX_URL);
  url.searchParams.set('csp', JSON.stringify(csp ?? {}));
  iframe.src = url.href;
  return ready;
}

async function main() {
  status('connecting');
  const client = new Client(
    { name: 'apps-test-host', version: '1.0.0' },
    {
      capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } },
      ...(ERA === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : { versionNegotiation: { mode: 'legacy' } }),
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
  host.protocolVersion = client.getNegotiatedProtocolVersion?.();

  const { tools } = await client.listTools();
  host.tools = tools.map((tool) => tool.name);
  const tool = tools.find((candidate) => getToolUiResourceUri(candidate));
  if (!tool) throw new Error('no tool has a UI (_meta.ui.resourceUri)');
  const uri = getToolUiResourceUri(tool);
  const read = await client.readResource({ uri });
  const content = read.contents[0];
  if (content.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`Unsupported MIME type: ${content.mimeType}`);
  if (typeof content.text !== 'string') throw new Error('the UI resource has no text (HTML) content');
  const csp = content._meta?.ui?.csp;
  host.resource = { uri, mimeType: content.mimeType, meta: content._meta, bytes: content.text.length };

  const iframe = document.createElement('iframe');
  iframe.id = 'app-frame';
  iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
  iframe.style.cssText = 'width:100%;height:260px;border:1px solid #888';
  document.body.appendChild(iframe);
  await loadSandbox(iframe, csp);
  status('sandbox-ready');

  const capabilities = client.getServerCapabilities();
  const bridge = new AppBridge(
    client,
    { name: 'apps-test-host', version: '1.0.0' },
    { openLinks: {}, serverTools: capabilities?.tools, serverResources: capabilities?.resources, logging: {} },
    { hostContext: { theme: 'light', platform: 'web', displayMode: 'inline', locale: 'en-US', toolInfo: { tool } } },
  );
  const initialized = new Promise((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  await bridge.sendSandboxResourceReady({ html: content.text, csp });
  await initialized;
  status('app-initialized');

  // What a host does when the model calls the tool: run it, then hand the app its input and result.
  host.runTool = async (name, args = {}) => {
    const result = await client.callTool({ name, arguments: args });
    await bridge.sendToolInput({ arguments: args });
    await bridge.sendToolResult(result);
    return result;
  };
  host.callTool = (name, args = {}) => client.callTool({ name, arguments: args });
  await host.runTool(tool.name);
  status('ready');
}

main().catch((error) => {
  host.error = String(error?.stack ?? error);
  status(`error: ${error?.message ?? error}`);
});
