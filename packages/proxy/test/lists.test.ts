/** An upstream whose pages never end: the proxy stops, says why, and serves on. */
import 'reflect-metadata';
import path from 'node:path';
import { ProxyServer } from '@typemcp/proxy';
import { createTestClient } from '@typemcp/testing';

test('a cursor handed back twice, or more pages than maxPages, ends the list with a report instead of a loop', async () => {
  const reports: string[] = [];
  const proxy = new ProxyServer({
    upstream: { command: process.execPath, args: [path.join(__dirname, 'fixtures/endlessPages.js')] },
    maxPages: 25,
    onError: (what, error) => reports.push(`${what}: ${(error as Error).message}`),
  });
  await proxy.start();
  expect(reports).toHaveLength(2);
  expect(reports).toEqual(
    expect.arrayContaining([
      expect.stringContaining('tools/list: the upstream returned the cursor "same" twice; its pages would never end'),
      expect.stringContaining("prompts/list: the upstream's list did not end within 25 pages"),
    ]),
  );
  const client = await createTestClient(proxy);
  expect(await client.listTools()).toEqual([]);
  expect(await client.listPrompts()).toEqual([]);
  await client.close();
  await proxy.close();
});
