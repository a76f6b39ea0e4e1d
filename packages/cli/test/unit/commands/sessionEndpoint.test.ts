import { SessionEndpoint } from '../../../src/commands/sessionEndpoint';

/** The session's side, played by the test: reads the client's lines, writes the server's. */
function sessionSide(endpoint: SessionEndpoint) {
  const lines: string[] = [];
  endpoint.input.setEncoding('utf8');
  endpoint.input.on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
  return { lines, send: (message: object) => endpoint.output.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`) };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });

describe('SessionEndpoint', () => {
  let endpoint: SessionEndpoint;
  beforeEach(async () => {
    endpoint = await SessionEndpoint.listen();
  });
  afterEach(() => endpoint.close());

  it('answers a POSTed request with its response, takes notifications with 202, and names the client that connects', async () => {
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const connected: string[] = [];
    endpoint.onConnect = (client) => connected.push(client);
    const session = sessionSide(endpoint);
    const answer = post(endpoint.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'probe', version: '3' } } });
    for (let i = 0; i < 100 && session.lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(JSON.parse(session.lines[0])).toMatchObject({ id: 1, method: 'initialize' });
    session.send({ id: 1, result: { protocolVersion: '2025-11-25' } });
    const response = await answer;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } });
    expect(connected).toEqual(['probe 3']);

    expect((await post(endpoint.url, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    expect(JSON.parse(session.lines[1])).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
  });

  it('sends what the server says on its own on the GET stream, holding it until the stream opens', async () => {
    const session = sessionSide(endpoint);
    session.send({ method: 'notifications/tools/list_changed' });
    const controller = new AbortController();
    const stream = await fetch(endpoint.url, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const reader = stream.body!.getReader();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) text += new TextDecoder().decode((await reader.read()).value);
    };
    await readUntil('list_changed');
    session.send({ method: 'notifications/prompts/list_changed' });
    await readUntil('prompts/list_changed');
    expect(text).toBe('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}\n\n');
    controller.abort();
  });

  it('refuses pages of other origins, other paths and bodies that are not JSON-RPC', async () => {
    expect((await post(endpoint.url, { jsonrpc: '2.0', method: 'ping', id: 1 }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(endpoint.url.replace('/mcp', '/other'), {})).status).toBe(404);
    const notJson = await fetch(endpoint.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect((await post(endpoint.url, [])).status).toBe(400);
    expect((await fetch(endpoint.url, { method: 'PUT' })).status).toBe(405);
  });
});
