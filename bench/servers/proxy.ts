/**
 * The bench's proxy: a ProxyServer in front of the bench server (`bench/dist/typemcp.js`,
 * started as its stdio upstream), served on stdio. Its `echo` is the upstream's, relayed.
 *
 *   node bench/dist/proxy.js
 */
import path from 'node:path';
import { ProxyServer } from '@typemcp/proxy';

const proxy = new ProxyServer({
  name: 'typemcp-bench-proxy',
  version: '1.0.0',
  upstream: { command: process.execPath, args: [path.join(__dirname, 'typemcp.js')], stderr: 'ignore' },
  // The upstream's own handshake, as most stdio servers in the field speak it; BENCH_PROXY_UPSTREAM picks another.
  upstreamProtocolVersion: process.env.BENCH_PROXY_UPSTREAM ?? '2025-11-25',
});

void proxy.start().then(() => proxy.listen({ transport: 'stdio' }));
