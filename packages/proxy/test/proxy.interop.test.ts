/**
 * A gateway that mounts three proxies of a real TypeMCP server process (over stdio speaking
 * 2026-07-28, over HTTP speaking the 2025-11-25 handshake, and over HTTP again with the
 * client's Authorization forwarded on purpose), driven by the official SDK clients over real
 * HTTP on 127.0.0.1: v1 in a 2025-11-25 session, v2 pinned to 2026-07-28. Pages across the
 * proxied tools, progress, cancellation, elicitation in both eras, list_changed from the
 * upstream, a tampered or replayed requestState, an upstream killed mid-call and brought
 * back, and which headers reach the upstream. Every server message is checked against the
 * schema of its revision.
 */
import 'reflect-metadata';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { McpServer, Tool } from '@typemcp/core';
import type { ListenAddress } from '@typemcp/core';
import { ProxyServer } from '@typemcp/proxy';
import { RecordingTransport } from '../../../test-support/recordingTransport';
import { connectSdkClient } from '../../../test-support/sdkClient';
import { expectValidServerMessages } from '../../../test-support/specSchema';
import { startHttpUpstream, upstreamCommand } from './upstreams';
import { waitFor } from './waitFor';
import type { HttpUpstreamProcess } from './upstreams';

jest.setTimeout(60_000);

const V2 = '2026-07-28';
const UPSTREAM_TOOLS = 261;

class Own {
  @Tool({ description: "The gateway's own tool" })
  status(): string {
    return 'ok';
  }
}

let upstream: HttpUpstreamProcess;
let gateway: McpServer;
let proxies: ProxyServer[];
let address: ListenAddress;
/** What the proxies told their operator (onError), as `[name] what: message`: the tests that stop an upstream expect it. */
const reports: string[] = [];
const reportAs = (name: string) => (what: string, error: unknown) => void reports.push(`[${name}] ${what}: ${error instanceof Error ? error.message : String(error)}`);

beforeAll(async () => {
  upstream = await startHttpUpstream();
  const local = new ProxyServer({ name: 'local', upstream: upstreamCommand, reconnect: { initialDelayMs: 50, maxDelayMs: 500 }, onError: reportAs('local') });
  const remote = new ProxyServer({ name: 'remote', upstream: { url: upstream.url }, upstreamProtocolVersion: '2025-11-25', reconnect: { initialDelayMs: 50, maxDelayMs: 500 }, onError: reportAs('remote') });
  const trusted = new ProxyServer({
    name: 'trusted',
    upstream: { url: upstream.url, headers: (ctx) => ({ authorization: ctx?.httpRequest?.headers.get('authorization') ?? '' }) },
    reconnect: { initialDelayMs: 50, maxDelayMs: 500 },
    onError: reportAs('trusted'),
  });
  proxies = [local, remote, trusted];
  await Promise.all(proxies.map((proxy) => proxy.start()));
  gateway = new McpServer({ name: 'gateway', version: '1.0.0', providers: [Own] });
  gateway.mount(local, { namespace: 'local' });
  gateway.mount(remote, { namespace: 'remote' });
  gateway.mount(trusted, { namespace: 'trusted' });
  address = await gateway.listen({ transport: 'http', port: 0, handleSignals: false });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all((proxies ?? []).map((proxy) => proxy.close()));
  await upstream?.kill();
});

const text = (result: unknown) => (((result as { content?: Array<{ text?: string }> }).content ?? [])[0]?.text ?? '');

function v1Transport(headers: Record<string, string> = {}) {
  return new V1Transport(new URL(address.url), { requestInit: { headers } });
}

describe('official SDK v1 client, 2025-11-25 session', () => {
  test('pages through every proxied tool; calls, progress and cancellation through each proxy', async () => {
    const { client, recorder } = await connectSdkClient(v1Transport(), { protocolVersion: '2025-11-25' });
    try {
      const names: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        names.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 100);
      expect(cursor).toBeUndefined();
      expect(pages).toBeGreaterThan(1);
      expect(new Set(names).size).toBe(names.length);
      expect(names).toHaveLength(1 + 3 * UPSTREAM_TOOLS);
      for (const ns of ['local', 'remote', 'trusted']) {
        expect(names.filter((name) => name.startsWith(`${ns}_tool_`))).toHaveLength(250);
        expect(text(await client.callTool({ name: `${ns}_tool_042`, arguments: { text: ns } }))).toBe(`tool_042:${ns}`);
      }

      for (const ns of ['local', 'remote']) {
        const progress: number[] = [];
        const done = await client.callTool({ name: `${ns}_slow`, arguments: { steps: 3, stepMs: 20 } }, undefined, { onprogress: (p) => void progress.push(p.progress) });
        expect(text(done)).toBe('counted to 3');
        expect(progress).toEqual([1, 2, 3]);

        const before = Number(text(await client.callTool({ name: `${ns}_cancellations`, arguments: {} })));
        const controller = new AbortController();
        const call = client.callTool({ name: `${ns}_slow`, arguments: { steps: 200, stepMs: 20 } }, undefined, { signal: controller.signal, onprogress: () => controller.abort('enough') });
        await expect(call).rejects.toThrow();
        await waitFor(async () => Number(text(await client.callTool({ name: `${ns}_cancellations`, arguments: {} }))) === before + 1);
      }
    } finally {
      await client.close();
    }
    expectValidServerMessages('2025-11-25', recorder.received);
  });

  test('relays an elicitation through both proxies, and list_changed from the upstream', async () => {
    const { client, recorder } = await connectSdkClient(v1Transport(), { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: request.params.message.startsWith('Your name') ? { name: 'Ada' } : { city: 'Lyon' } };
    });
    try {
      expect(text(await client.callTool({ name: 'local_interview', arguments: {} }))).toBe('Ada from Lyon');
      expect(text(await client.callTool({ name: 'remote_interview', arguments: {} }))).toBe('Ada from Lyon');
      expect(asked).toEqual(['Your name?', 'Hello Ada: your city?', 'Your name?', 'Hello Ada: your city?']);

      const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      expect(text(await client.callTool({ name: 'local_grow', arguments: { name: 'sprout_v1' } }))).toBe('added sprout_v1');
      await changed;
      expect(text(await client.callTool({ name: 'local_sprout_v1', arguments: {} }))).toBe('sprout_v1 works');
    } finally {
      await client.close();
    }
    expectValidServerMessages('2025-11-25', recorder.received);
  });

  test("the client's Authorization reaches the upstream only through the proxy configured to forward it", async () => {
    const { client } = await connectSdkClient(v1Transport({ authorization: 'Bearer client-token' }), { protocolVersion: '2025-11-25' });
    try {
      expect(JSON.parse(text(await client.callTool({ name: 'remote_headers', arguments: {} })))).toEqual({ authorization: null, 'x-api-key': null });
      expect(JSON.parse(text(await client.callTool({ name: 'trusted_headers', arguments: {} })))).toEqual({ authorization: 'Bearer client-token', 'x-api-key': null });
    } finally {
      await client.close();
    }
  });
});

describe('official SDK v2 client, pinned to 2026-07-28', () => {
  test('two elicitation rounds through both proxies, progress, and list_changed on a listen stream', async () => {
    const recorder = new RecordingTransport(new V2Transport(new URL(address.url)) as never);
    const client = new V2Client({ name: 'proxy-v2', version: '1.0.0' }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: V2 } } });
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      const message = (request.params as { message: string }).message;
      asked.push(message);
      const content: Record<string, string> = message.startsWith('Your name') ? { name: 'Vee' } : { city: 'Oslo' };
      return { action: 'accept', content };
    });
    await client.connect(recorder as never);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(V2);
      for (const ns of ['local', 'remote']) expect(text(await client.callTool({ name: `${ns}_interview`, arguments: {} }))).toBe('Vee from Oslo');
      expect(asked.filter((m) => m === 'Your name?').length).toBeGreaterThanOrEqual(2);

      const progress: number[] = [];
      await client.callTool({ name: 'local_slow', arguments: { steps: 2, stepMs: 20 } }, { onprogress: (p: { progress: number }) => void progress.push(p.progress) });
      expect(progress).toEqual([1, 2]);

      const changed = new Promise<void>((resolve) => client.setNotificationHandler('notifications/tools/list_changed', () => resolve()));
      const subscription = await client.listen({ toolsListChanged: true });
      expect(text(await client.callTool({ name: 'remote_grow', arguments: { name: 'sprout_v2' } }))).toBe('added sprout_v2');
      await changed;
      expect(text(await client.callTool({ name: 'remote_sprout_v2', arguments: {} }))).toBe('sprout_v2 works');
      await subscription.close();
    } finally {
      await client.close();
    }
    expectValidServerMessages(V2, recorder.received);
  });

  test('a tampered state and a state replayed on another request are refused; the state as issued completes the call', async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': V2, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' } };
    const post = async (params: Record<string, unknown>) => {
      const response = await fetch(address.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V2, 'mcp-method': 'tools/call', 'mcp-name': String(params.name) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, _meta: meta } }),
      });
      const body = await response.text();
      const json = body.startsWith('{') ? body : /data: (.*)/.exec(body)![1];
      return JSON.parse(json) as { result?: { resultType?: string; requestState?: string; inputRequests?: Record<string, unknown>; content?: unknown }; error?: { code: number; message: string } };
    };
    const first = await post({ name: 'remote_interview', arguments: {} });
    expect(first.result?.resultType).toBe('input_required');
    const [key] = Object.keys(first.result!.inputRequests!);
    const second = await post({ name: 'remote_interview', arguments: {}, inputResponses: { [key]: { action: 'accept', content: { name: 'Eve' } } }, requestState: first.result!.requestState });
    expect(second.result?.resultType).toBe('input_required');
    const state = second.result!.requestState!;

    const [body, signature] = state.split('.');
    const tampered = `${body.slice(0, -2)}${body.endsWith('A') ? 'B' : 'A'}${body.slice(-1)}.${signature}`;
    const refusedTampered = await post({ name: 'remote_interview', arguments: {}, requestState: tampered });
    expect(refusedTampered.error).toMatchObject({ code: -32602, message: expect.stringMatching(/requestState/) });

    const replayed = await post({ name: 'local_interview', arguments: {}, requestState: state });
    expect(replayed.error).toMatchObject({ code: -32602, message: expect.stringMatching(/another request/) });

    const [key2] = Object.keys(second.result!.inputRequests!);
    const done = await post({ name: 'remote_interview', arguments: {}, inputResponses: { [key2]: { action: 'accept', content: { city: 'Rome' } } }, requestState: state });
    expect(text(done.result as { content: unknown })).toBe('Eve from Rome');
  });
});

describe('an upstream that goes away', () => {
  test('over stdio: a call in flight fails within a second, the rest serves on, and the process is started again', async () => {
    const { client } = await connectSdkClient(v1Transport(), { protocolVersion: '2025-11-25' });
    try {
      reports.length = 0;
      const pid = Number(text(await client.callTool({ name: 'local_pid', arguments: {} })));
      const started = Date.now();
      const call = client.callTool({ name: 'local_slow', arguments: { steps: 500, stepMs: 20 } }, undefined, { onprogress: () => process.kill(pid, 'SIGKILL') });
      const failed = await call;
      const waited = Date.now() - started;
      expect(failed.isError).toBe(true);
      expect(text(failed)).toMatch(/upstream/i);
      expect(waited).toBeLessThan(1000 + 20 * 2);
      expect(text(await client.callTool({ name: 'remote_tool_001', arguments: { text: 'still' } }))).toBe('tool_001:still');
      expect(text(await client.callTool({ name: 'status', arguments: {} }))).toBe('ok');
      await waitFor(async () => text(await client.callTool({ name: 'local_tool_001', arguments: { text: 'back' } })) === 'tool_001:back', 10_000);
      expect(Number(text(await client.callTool({ name: 'local_pid', arguments: {} })))).not.toBe(pid);
      expect(reports).toContainEqual(expect.stringMatching(/^\[local\] plugin "typemcp:proxy": the upstream went away; reconnecting: /));
    } finally {
      await client.close();
    }
  });

  test('over HTTP: a call in flight fails within a second; the server started again on its port is served again', async () => {
    const { client } = await connectSdkClient(v1Transport(), { protocolVersion: '2025-11-25' });
    try {
      reports.length = 0;
      let killed: Promise<void> | undefined;
      const started = Date.now();
      const failed = await client.callTool({ name: 'remote_slow', arguments: { steps: 500, stepMs: 20 } }, undefined, { onprogress: () => void (killed ??= upstream.kill()) });
      expect(failed.isError).toBe(true);
      expect(Date.now() - started).toBeLessThan(1000 + 20 * 2);
      await killed;
      expect(text(await client.callTool({ name: 'local_tool_002', arguments: { text: 'on' } }))).toBe('tool_002:on');
      const down = await client.callTool({ name: 'remote_tool_002', arguments: {} });
      expect(down.isError).toBe(true);
      upstream = await startHttpUpstream(upstream.port);
      await waitFor(async () => text(await client.callTool({ name: 'remote_tool_002', arguments: { text: 'again' } })) === 'tool_002:again', 15_000);
      await waitFor(async () => text(await client.callTool({ name: 'trusted_tool_002', arguments: { text: 'again' } })) === 'tool_002:again', 15_000);
      // While it was down, the proxy that called it told the operator, and nobody else, that it could not be reached.
      const unreachable = (name: string) => new RegExp(`^\\[${name}\\] plugin "typemcp:proxy": the upstream (went away; reconnecting|could not be reached): the upstream at http://127\\.0\\.0\\.1:\\d+ cannot be reached: ECONNREFUSED$`);
      expect(reports).toContainEqual(expect.stringMatching(unreachable('remote')));
      // The 2026-07-28 proxy, idle meanwhile, notices only when its listen stream tries again, which may be after the upstream is back: if it said anything, it said that.
      for (const report of reports.filter((r) => r.startsWith('[trusted]'))) {
        expect(report).toMatch(/^\[trusted\] plugin "typemcp:proxy": .*the upstream at http:\/\/127\.0\.0\.1:\d+ cannot be reached: ECONNREFUSED$/);
      }
    } finally {
      await client.close();
    }
  });
});
