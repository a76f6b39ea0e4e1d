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
