import fs from 'node:fs';
import path from 'node:path';
import { ALL_SPEC_VERSIONS, expectValidServerMessages, MODERN_SPEC_VERSION, schemaFile, SUPPORTED_SPEC_VERSIONS, validateServerMessage } from '@typemcp/testing';

const packageRoot = path.resolve(__dirname, '..');
const toolsList = (tools: unknown[]) => ({ jsonrpc: '2.0', id: 1, result: { tools } });

describe('schema files', () => {
  it('ships the official schema of every revision inside the package', () => {
    expect(ALL_SPEC_VERSIONS).toEqual([...SUPPORTED_SPEC_VERSIONS, MODERN_SPEC_VERSION]);
    for (const version of ALL_SPEC_VERSIONS) {
      const file = schemaFile(version);
      expect(path.relative(packageRoot, file)).toBe(path.join('schemas', version, 'schema.json'));
      expect(fs.existsSync(file)).toBe(true);
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { files: string[] };
    expect(manifest.files).toContain('schemas');
  });

  it.each([
    ['2024-11-05', 'draft-07'],
    ['2025-06-18', 'draft-07'],
    ['2025-11-25', '2020-12'],
    ['2026-07-28', '2020-12'],
  ])('%s is a %s schema, and is compiled with the matching dialect', (version, dialect) => {
    const schema = JSON.parse(fs.readFileSync(schemaFile(version), 'utf8')) as { $schema: string };
    expect(schema.$schema).toContain(dialect);
    expect(validateServerMessage(version, toolsList([{ name: 'x' }]), { requestMethod: 'tools/list' })).toContain(
      "/result/tools/0 must have required property 'inputSchema' (ListToolsResult)",
    );
  });
});

describe('validateServerMessage', () => {
  it('names the path, the problem and the definition of each violation', () => {
    expect(validateServerMessage('2025-11-25', toolsList([{ name: 'x' }]), { requestMethod: 'tools/list' })).toEqual([
      "/result/tools/0 must have required property 'inputSchema' (ListToolsResult)",
    ]);
  });

  it('narrows a content union to the member the block names', () => {
    const result = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 7 }] } };
    expect(validateServerMessage('2025-11-25', result, { requestMethod: 'tools/call' })).toEqual(['/result/content/0/text must be string (TextContent)']);
    const unknown = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'video' }] } };
    expect(validateServerMessage('2025-11-25', unknown, { requestMethod: 'tools/call' })[0]).toMatch(/^\/result\/content\/0\/type "video" is none of TextContent \("text"\)/);
  });

  it('refuses a result for a method that is not a client request', () => {
    expect(validateServerMessage('2025-11-25', toolsList([]), { requestMethod: 'sampling/createMessage' })).toEqual([
      "/result answers 'sampling/createMessage', which is not a client request in 2025-11-25; expected an error response",
    ]);
  });

  it('names the versions it knows when asked for another', () => {
    expect(() => validateServerMessage('2030-01-01', toolsList([]))).toThrow(`No MCP schema for version '2030-01-01'`);
    expect(() => validateServerMessage('2030-01-01', toolsList([]))).toThrow(`known: ${ALL_SPEC_VERSIONS.join(', ')}`);
  });
});

describe('expectValidServerMessages', () => {
  it('passes valid conversations and reports every invalid message with its index', () => {
    expect(() => expectValidServerMessages('2025-06-18', [{ message: toolsList([]), requestMethod: 'tools/list' }])).not.toThrow();
    const check = () =>
      expectValidServerMessages('2025-06-18', [
        { message: toolsList([]), requestMethod: 'tools/list' },
        { message: toolsList([{ name: 'x' }]), requestMethod: 'tools/list' },
        { message: { jsonrpc: '2.0', method: 'notifications/nope' } },
      ]);
    expect(check).toThrow('2 of 3 server messages do not match the 2025-06-18 schema');
    expect(check).toThrow("#1 (response to tools/list)");
    expect(check).toThrow("/result/tools/0 must have required property 'inputSchema' (ListToolsResult)");
    expect(check).toThrow("#2 {\"jsonrpc\":\"2.0\",\"method\":\"notifications/nope\"}");
  });
});
