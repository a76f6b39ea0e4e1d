import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectSdkClient } from '../../../../test-support/sdkClient';
import { runTsPath, stdioServerParams } from '../../../../test-support/spawnServer';
import { SUPPORTED_SPEC_VERSIONS, expectValidServerMessages } from '../../../../test-support/specSchema';

const run = promisify(execFile);
const fixtures = path.join(__dirname, 'fixtures');
const repoRoot = path.resolve(__dirname, '../../../..');

describe('runTs.js', () => {
  it('runs a TypeScript file with decorators and decorator metadata, with source-mapped stacks', async () => {
    const entry = path.join(fixtures, 'decorated.ts');
    const { stdout } = await run(process.execPath, ['-r', runTsPath, entry, 'one', '--two']);
    const errorLine = fs.readFileSync(entry, 'utf8').split('\n').findIndex((l) => l.includes("new Error('where')")) + 1;
    expect(JSON.parse(stdout)).toEqual({
      applied: ['field:query', 'field:limit', 'tool:search'],
      paramTypes: ['SearchInput', 'Number'],
      returnType: 'Promise',
      queryType: 'String',
      argv: ['one', '--two'],
      stackLine: expect.stringContaining(`decorated.ts:${errorLine}:`),
    });
  });

  it('maps @typemcp/<name> onto packages/<name>/src/index.ts', async () => {
    const script = "for (const r of ['@typemcp/core', '@typemcp/no-such-package']) { try { console.log(require.resolve(r)) } catch (e) { console.log(e.message.split('\\n')[0]) } }";
    const { stdout } = await run(process.execPath, ['-r', runTsPath, '-e', script]);
    const [core, missing] = stdout.trim().split('\n');
    expect(core).toContain(path.join(repoRoot, 'packages/core/src/index.ts'));
    expect(missing).toContain(path.join(repoRoot, 'packages/no-such-package/src/index.ts'));
  });
});

describe('stdioServerParams', () => {
  it('builds the node command line around runTs.js', () => {
    expect(stdioServerParams('packages/core/test/support/fixtures/stdioServer.ts', ['--port', '0'])).toEqual({
      command: process.execPath,
      args: ['-r', runTsPath, path.resolve('packages/core/test/support/fixtures/stdioServer.ts'), '--port', '0'],
      stderr: 'pipe',
    });
  });

  it.each(SUPPORTED_SPEC_VERSIONS)('lets the SDK client talk %s to a TypeScript server over stdio', async (version) => {
    const transport = new StdioClientTransport(stdioServerParams(path.join(fixtures, 'stdioServer.ts')));
    const { client, recorder } = await connectSdkClient(transport, { protocolVersion: version });
    try {
      const result = await client.callTool({ name: 'paramtypes', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'SearchInput,Number' }]);
      expect(client.getServerVersion()?.name).toBe('stdio-fixture');
      expectValidServerMessages(version, recorder.received);
    } finally {
      await client.close();
    }
  });
});
