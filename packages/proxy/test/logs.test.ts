/**
 * Whose an upstream's log line is. Over stdio nothing names the request a line is about (a
 * `notifications/message` carries no request id there): such a line goes to the operator
 * (`onError`), never to a client, unless the author opts in to `upstreamLogs: 'broadcast'`.
 * Over HTTP a line on a request's own response stream is that request's client's.
 */
import 'reflect-metadata';
import { ProxyServer } from '@typemcp/proxy';
import type { ProxyOptions } from '@typemcp/proxy';
import { createTestClient } from '@typemcp/testing';
import type { TestClient } from '@typemcp/testing';
import { fixtureCommand, startHttpUpstream } from './upstreams';
import { waitFor } from './waitFor';

jest.setTimeout(30_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const logsCommand = fixtureCommand('logs.ts');

interface Setup {
  proxy: ProxyServer;
  a: TestClient;
  b: TestClient;
  /** The log lines (their data) each client received. */
  heard: { a: unknown[]; b: unknown[] };
  /** What reached the operator: onError's what, and the line's data. */
  reports: Array<{ what: string; data: unknown }>;
  close(): Promise<void>;
}

async function setup(options: Omit<ProxyOptions, 'onError'>): Promise<Setup> {
  const reports: Setup['reports'] = [];
  const proxy = new ProxyServer({ ...options, onError: (what, data) => void reports.push({ what, data }) });
  await proxy.start();
  const a = await createTestClient(proxy, { protocolVersion: '2025-11-25' });
  const b = await createTestClient(proxy, { protocolVersion: '2025-11-25' });
  const heard: Setup['heard'] = { a: [], b: [] };
  for (const [name, client] of [['a', a], ['b', b]] as const) {
    await client.setLogLevel('debug');
    client.onNotification('notifications/message', (params) => void heard[name].push(params?.data));
  }
  return {
    proxy,
    a,
    b,
    heard,
    reports,
    close: async () => {
      await a.close();
      await b.close();
      await proxy.close();
    },
  };
}

describe.each(['2025-11-25', 'auto'])('a stdio upstream, spoken to at %s', (era) => {
  test("client B never receives a log line caused by client A's call, in flight or between requests; the operator does", async () => {
    const { a, b, heard, reports, close } = await setup({ upstream: logsCommand, upstreamProtocolVersion: era });
    try {
      // A's line comes after A was answered, while B's call is the one request in flight.
      const waiting = b.callTool('wait', { ms: 600 });
      await sleep(50);
      expect(await a.callTool('later', { text: "A's line, while B waits", delayMs: 100 })).toMatchObject({ content: [{ text: 'answered' }] });
      expect(await waiting).toMatchObject({ content: [{ text: 'waited' }] });
      // A's line comes when no request is in flight.
      expect(await a.callTool('later', { text: "A's line, between requests", delayMs: 50 })).toMatchObject({ content: [{ text: 'answered' }] });
      await sleep(300);
      // B's own call, and a line written during it: over stdio, nothing says whose it is.
      expect(await b.callTool('during', { text: "B's line, during its call", ms: 50 })).toMatchObject({ content: [{ text: 'done' }] });
      await sleep(100);

      expect(heard.b).toEqual([]);
      expect(heard.a).toEqual([]);
      await waitFor(() => reports.length >= 3);
      expect(reports.map((report) => report.data)).toEqual(["A's line, while B waits", "A's line, between requests", "B's line, during its call"]);
      expect(reports[0].what).toMatch(/upstream.*log.*info/i);
    } finally {
      await close();
    }
  });
});

test("upstreamLogs: 'broadcast' gives a line no request names to every session, as the author chose; the operator does not get it too", async () => {
  const { a, heard, reports, close } = await setup({ upstream: logsCommand, upstreamProtocolVersion: '2025-11-25', upstreamLogs: 'broadcast' });
  try {
    await a.callTool('later', { text: 'for everyone', delayMs: 20 });
    await waitFor(() => heard.a.length > 0 && heard.b.length > 0);
    expect(heard).toEqual({ a: ['for everyone'], b: ['for everyone'] });
    expect(reports).toEqual([]);
  } finally {
    await close();
  }
});

test('upstreamLogs must be operator or broadcast', () => {
  expect(() => new ProxyServer({ upstream: logsCommand, upstreamLogs: 'everyone' as never })).toThrow(/upstreamLogs/);
});

describe.each(['2025-11-25', 'auto'])('an HTTP upstream, spoken to at %s', (era) => {
  test("a line on a request's own stream reaches that request's client only; a line after the answer reaches no client", async () => {
    const upstream = await startHttpUpstream(0, 'logs.ts');
    const { a, b, heard, close } = await setup({ upstream: { url: upstream.url }, upstreamProtocolVersion: era });
    try {
      const calls = [a.callTool('during', { text: "A's line", ms: 200 }), b.callTool('during', { text: "B's line", ms: 200 })];
      for (const call of await Promise.all(calls)) expect(call).toMatchObject({ content: [{ text: 'done' }] });
      await waitFor(() => heard.a.length > 0 && heard.b.length > 0);
      const waiting = b.callTool('wait', { ms: 400 });
      await sleep(50);
      await a.callTool('later', { text: "A's late line", delayMs: 50 });
      await waiting;
      await sleep(100);
      expect(heard).toEqual({ a: ["A's line"], b: ["B's line"] });
    } finally {
      await close();
      await upstream.kill();
    }
  });
});

test("a line reported to the operator has its control characters escaped: an upstream cannot drive the operator's terminal", async () => {
  const { a, heard, reports, close } = await setup({ upstream: logsCommand, upstreamProtocolVersion: '2025-11-25' });
  try {
    await a.callTool('later', { text: '\u001b]0;owned\u0007\u001b[2Jred\u009b31m', delayMs: 10 });
    await waitFor(() => reports.length > 0);
    expect(reports[0].data).toBe('\\u001b]0;owned\\u0007\\u001b[2Jred\\u009b31m');
    expect(heard).toEqual({ a: [], b: [] });
  } finally {
    await close();
  }
});
