import { Client, InMemoryTransport, McpRequestError } from '@typemcp/client';

/** A server made by hand: it answers initialize, then asks the client `questions` and records the answers. */
async function asking(questions: Array<{ id: string; method: string }>) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const answers: unknown[] = [];
  serverSide.onmessage = (raw) => {
    const message = raw as { id?: string | number; method?: string };
    if (message.method === 'initialize') {
      void serverSide.send({ jsonrpc: '2.0', id: message.id!, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'raw', version: '1' } } });
    } else if (message.method === 'notifications/initialized') {
      for (const question of questions) void serverSide.send({ jsonrpc: '2.0', id: question.id, method: question.method, params: {} });
    } else if (message.method === undefined) answers.push(message);
  };
  await serverSide.start();
  return { clientSide, answers };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('ClientOptions.onOtherRequest', () => {
  it('answers the questions no handler answers, declaring nothing; its errors keep their code', async () => {
    const { clientSide, answers } = await asking([
      { id: 'a', method: 'roots/list' },
      { id: 'b', method: 'acme/custom' },
      { id: 'c', method: 'elicitation/create' },
      { id: 'd', method: 'sampling/createMessage' },
    ]);
    const client = await Client.connect(clientSide, {
      onSample: () => ({ role: 'assistant', content: { type: 'text', text: 'from the handler' }, model: 'm' }),
      onOtherRequest: (method) => {
        if (method === 'acme/custom') return { custom: true };
        if (method === 'roots/list') throw new McpRequestError(method, -32601, 'no roots here');
        throw new Error(`cannot answer ${method}`);
      },
    });
    expect(client.capabilities).toEqual({ sampling: { tools: {} } });
    await settle();
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 'a', error: { code: -32601, message: 'no roots here' } },
      { jsonrpc: '2.0', id: 'b', result: { custom: true } },
      { jsonrpc: '2.0', id: 'c', error: { code: -32603, message: 'cannot answer elicitation/create' } },
      { jsonrpc: '2.0', id: 'd', result: { role: 'assistant', content: { type: 'text', text: 'from the handler' }, model: 'm' } },
    ]);
    await client.close();
  });

  it('without it, such a question is answered with -32601', async () => {
    const { clientSide, answers } = await asking([{ id: 'a', method: 'acme/custom' }]);
    const client = await Client.connect(clientSide);
    await settle();
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 'a', error: { code: -32601, message: 'This client does not answer acme/custom' } }]);
    await client.close();
  });
});

describe('ClientOptions.strictVersion', () => {
  async function answering(version: string) {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    serverSide.onmessage = (raw) => {
      const message = raw as { id?: number; method?: string };
      if (message.method === 'initialize') {
        void serverSide.send({ jsonrpc: '2.0', id: message.id!, result: { protocolVersion: version, capabilities: {}, serverInfo: { name: 'raw', version: '1' } } });
      }
    };
    await serverSide.start();
    return clientSide;
  }

  it('refuses a server that answers initialize with another revision than the one asked for', async () => {
    await expect(Client.connect(await answering('2025-06-18'), { protocolVersion: '2025-11-25', strictVersion: true })).rejects.toThrow(
      'Asked the server for protocol 2025-11-25 but it answered 2025-06-18',
    );
    const lenient = await Client.connect(await answering('2025-06-18'), { protocolVersion: '2025-11-25' });
    expect(lenient.protocolVersion).toBe('2025-06-18');
    await lenient.close();
  });
});

/** A transport whose server is a function: it gets each message the client sends, and `deliver` hands the client a message. */
function scripted(serve: (message: Record<string, any>, deliver: (message: unknown, related?: string | number) => void) => void) {
  const sent: Array<Record<string, any>> = [];
  const transport = {
    onmessage: undefined as ((message: unknown, info?: { relatedRequestId?: string | number }) => void) | undefined,
    async start() {},
    async close() {},
    send(message: Record<string, any>) {
      sent.push(message);
      queueMicrotask(() => serve(message, deliver));
    },
  };
  const deliver = (message: unknown, related?: string | number) => transport.onmessage?.(message, related === undefined ? undefined : { relatedRequestId: related });
  return { transport, sent, deliver };
}

const initialized = (message: Record<string, any>, deliver: (message: unknown) => void): boolean => {
  if (message.method !== 'initialize') return false;
  deliver({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'scripted', version: '1' } } });
  return true;
};

describe('RequestOptions.onId and cancelRequest', () => {
  it('give the id each request is sent with, and cancel a request by it', async () => {
    const { transport, sent } = scripted((message, deliver) => void initialized(message, deliver));
    const client = await Client.connect(transport);
    let id: string | number | undefined;
    const call = client.request('tools/call', { name: 'slow' }, { onId: (given) => void (id = given) });
    expect(sent.at(-1)).toMatchObject({ id, method: 'tools/call' });
    await client.cancelRequest(id!, 'enough');
    await expect(call).rejects.toThrow('tools/call was cancelled: enough');
    expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'enough' } });
    await client.cancelRequest(id!, 'again');
    expect(sent.filter((m) => m.method === 'notifications/cancelled')).toHaveLength(1);
    await client.close();
  });
});

describe('what the handlers of notifications and questions are told', () => {
  it('hands a notification over with the request whose stream carried it', async () => {
    const { transport, deliver } = scripted((message, send) => void initialized(message, send));
    const heard: unknown[] = [];
    const client = await Client.connect(transport, { onNotification: (notification, info) => void heard.push([notification.method, info?.relatedRequestId]) });
    const seen: unknown[] = [];
    client.on('notifications/message', (_notification, info) => void seen.push(info?.relatedRequestId));
    deliver({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }, 7);
    deliver({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'y' } });
    expect(heard).toEqual([
      ['notifications/message', 7],
      ['notifications/message', undefined],
    ]);
    expect(seen).toEqual([7, undefined]);
    await client.close();
  });

  it('answers with the numeric code an error of onOtherRequest carries', async () => {
    const { transport, sent, deliver } = scripted((message, send) => void initialized(message, send));
    const client = await Client.connect(transport, { onOtherRequest: () => Promise.reject(Object.assign(new Error('not while idle'), { code: -32601 })) });
    deliver({ jsonrpc: '2.0', id: 'q', method: 'roots/list' });
    await settle();
    expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', id: 'q', error: { code: -32601, message: 'not while idle' } });
    await client.close();
  });
});

describe('RequestOptions.returnInputRequired (2026-07-28)', () => {
  it('hands an input_required result back as it is; without it the handlers answer and the request goes again', async () => {
    const asked: unknown[] = [];
    const { transport } = scripted((message, deliver) => {
      if (message.method === 'server/discover') {
        return deliver({ jsonrpc: '2.0', id: message.id, result: { supportedVersions: ['2026-07-28'], capabilities: {}, serverInfo: { name: 'modern', version: '1' }, resultType: 'complete' } });
      }
      asked.push(message.params.inputResponses);
      const done = message.params.inputResponses !== undefined;
      deliver({
        jsonrpc: '2.0',
        id: message.id,
        result: done ? { content: [], resultType: 'complete' } : { resultType: 'input_required', inputRequests: { a: { method: 'roots/list', params: {} } }, requestState: 's1' },
      });
    });
    const client = await Client.connect(transport, { protocolVersion: '2026-07-28', onRoots: [{ uri: 'file:///r' }] });
    expect(await client.request('tools/call', { name: 't' }, { returnInputRequired: true })).toMatchObject({ resultType: 'input_required', requestState: 's1' });
    expect(await client.request('tools/call', { name: 't' })).toMatchObject({ resultType: 'complete' });
    expect(asked).toEqual([undefined, undefined, { a: { roots: [{ uri: 'file:///r' }] } }]);
    await client.close();
  });
});

describe('timeouts', () => {
  it('a request with a shorter wait sent after a longer one times out first; the longer one is still answered', async () => {
    const { transport, deliver } = scripted((message, send) => void initialized(message, send));
    const client = await Client.connect(transport);
    let longId: string | number | undefined;
    const long = client.request('tools/call', { name: 'long' }, { timeoutMs: 2000, onId: (id) => void (longId = id) });
    const started = performance.now();
    await expect(client.request('tools/call', { name: 'short' }, { timeoutMs: 30 })).rejects.toThrow('tools/call got no answer within 30 ms');
    expect(performance.now() - started).toBeLessThan(1000);
    deliver({ jsonrpc: '2.0', id: longId, result: { content: [] } });
    expect(await long).toEqual({ content: [] });
    await client.close();
  });
});

describe('2026-07-28 requests as sent', () => {
  function modernServer(withHeaders: boolean) {
    const given: Array<{ message: Record<string, any>; headers?: Record<string, string> }> = [];
    const transport: Record<string, any> = {
      async start() {},
      async close() {},
      send(message: Record<string, any>, options?: { headers?: Record<string, string> }) {
        given.push({ message, headers: options?.headers });
        const result = message.method === 'server/discover' ? { supportedVersions: ['2026-07-28'], capabilities: {}, serverInfo: { name: 'm', version: '1' }, resultType: 'complete' } : { content: [], resultType: 'complete' };
        queueMicrotask(() => transport.onmessage?.({ jsonrpc: '2.0', id: message.id, result }));
      },
    };
    if (withHeaders) transport.setHeaders = () => undefined;
    return { transport, given };
  }

  it.each([
    ['carries headers (setHeaders)', true, { 'mcp-method': 'tools/call', 'mcp-name': 't' }],
    ['carries none (stdio, in memory)', false, undefined],
  ])('over a transport that %s: _meta is the era’s under the caller’s under the meta option; the mirrored headers only where they can go', async (_name, withHeaders, headers) => {
    const { transport, given } = modernServer(withHeaders as boolean);
    const client = await Client.connect(transport as never, { protocolVersion: '2026-07-28', clientInfo: { name: 'c', version: '1' } });
    await client.request('tools/call', { name: 't', _meta: { mine: 1, 'io.modelcontextprotocol/clientInfo': { name: 'caller', version: '2' } } }, { meta: { mine: 2, extra: true } });
    const call = given.at(-1)!;
    expect(call.message.params._meta).toEqual({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'caller', version: '2' },
      mine: 2,
      extra: true,
    });
    expect(call.headers).toEqual(headers);
    await client.close();
  });
});
