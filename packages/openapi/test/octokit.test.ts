import 'reflect-metadata';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { fromOpenApi } from '@typemcp/openapi';
import type { OpenApiWarning } from '@typemcp/openapi';
import { createTestClient } from '@typemcp/testing';

/** GitHub's REST API: 13 MB of OpenAPI 3.0, about 1,200 operations, 900 schemas. */
const document = path.resolve(__dirname, '../../../node_modules/@octokit/openapi/generated/api.github.com.json');

const ANNOTATIONS = new Set(['title', 'description', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly']);

/** The schema without annotation keywords (property names stay, even when they are `title` or `default`). */
function withoutAnnotations(schema: unknown, names = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => withoutAnnotations(item));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (names) out[key] = withoutAnnotations(value);
    else if (key === 'enum' || key === 'const') out[key] = value;
    else if (!ANNOTATIONS.has(key)) out[key] = withoutAnnotations(value, ['properties', 'patternProperties', '$defs', 'dependentSchemas'].includes(key));
  }
  return out;
}

describe("GitHub's REST API document", () => {
  it('serves every operation as a tool whose schemas compile, and answers with the API', async () => {
    const warnings: OpenApiWarning[] = [];
    const calls: string[] = [];
    const fetch = (async (url: string) => {
      calls.push(url);
      return new Response(JSON.stringify({ login: 'octocat', id: 1 }), { headers: { 'content-type': 'application/json; charset=utf-8' } });
    }) as unknown as typeof globalThis.fetch;
    const server = await fromOpenApi({ spec: document, fetch, onWarning: (w) => warnings.push(w) });
    const client = await createTestClient(server);
    const tools = await client.listTools();
    expect(tools.length).toBeGreaterThan(1000);
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    expect(warnings.filter((w) => w.code !== 'OUTPUT_SCHEMA_LEFT_OUT')).toEqual([]);

    // Annotations never change whether a schema compiles: without them, the ~2,400 schemas are
    // ~1,100 distinct ones. Every input schema is compiled (checked against the 2020-12
    // meta-schema first), and every 8th output schema: the large ones take seconds together.
    const ajv = new Ajv2020({ strict: false, logger: false, code: { optimize: false } });
    addFormats(ajv);
    const failures: string[] = [];
    const compiled = new Set<string>();
    let outputs = 0;
    for (const tool of tools) {
      for (const schema of [tool.inputSchema, tool.outputSchema]) {
        if (!schema) continue;
        const key = JSON.stringify(withoutAnnotations(schema));
        if (compiled.has(key) || (schema === tool.outputSchema && outputs++ % 8 !== 0)) continue;
        compiled.add(key);
        try {
          ajv.compile(JSON.parse(key));
        } catch (error) {
          failures.push(`${tool.name}: ${(error as Error).message}`);
        }
      }
    }
    expect(failures).toEqual([]);

    const user = await client.callTool('users_get-by-username', { username: 'octocat' });
    expect(calls).toEqual(['https://api.github.com/users/octocat']);
    expect(user.isError).toBe(true); // the fake's answer lacks most of what GitHub documents
    expect((await client.callTool('users_get-by-username', {})).content).toEqual([{ type: 'text', text: 'Invalid arguments for tool "users_get-by-username":\n- missing required property "username"' }]);
    await client.close();
    await server.close();
  }, 60_000);

  it('keeps the first maxTools tools in document order and reports the rest', async () => {
    const warnings: OpenApiWarning[] = [];
    const server = await fromOpenApi({ spec: document, maxTools: 50, outputSchemas: false, onWarning: (w) => warnings.push(w) });
    const client = await createTestClient(server);
    const tools = await client.listTools();
    expect(tools).toHaveLength(50);
    expect(tools[0].name).toBe('meta_root');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ code: 'TOO_MANY_TOOLS', message: expect.stringMatching(/^maxTools is 50: \d{4} more tools are left out \(/) });
    await client.close();
    await server.close();
  }, 60_000);
});
