import 'reflect-metadata';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@typemcp/core';

describe('listen({ transport: "http" }) on a port that is taken', () => {
  it('rejects with one sentence naming the address, and the system code kept', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const server = new McpServer({ name: 'busy', version: '1' });
    try {
      await expect(server.listen({ transport: 'http', host: '127.0.0.1', port, handleSignals: false })).rejects.toMatchObject({
        code: 'EADDRINUSE',
        message: `Cannot listen on 127.0.0.1:${port}: the port is already in use. Stop the process that listens there, or choose another port.`,
      });
    } finally {
      await server.close();
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
