import fs from 'node:fs';
import path from 'node:path';
import {
  ALL_SPEC_VERSIONS,
  MODERN_SPEC_VERSION,
  SPEC_DIR,
  schemaFile,
  SUPPORTED_SPEC_VERSIONS,
  expectValidServerMessages,
  validateServerMessage,
} from '../../../../test-support/specSchema';

const response = (result: unknown, id: string | number = 1) => ({ jsonrpc: '2.0', id, result });
const initializeResult = (protocolVersion: string) => ({
  protocolVersion,
  capabilities: { tools: { listChanged: true }, logging: {} },
  serverInfo: { name: 'fixture', version: '1.0.0' },
});
const echoTool = { name: 'echo', description: 'Echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };

describe('validateServerMessage', () => {
  it('throws for a version without a schema', () => {
    expect(() => validateServerMessage('1999-01-01', {})).toThrow(/No MCP schema for version '1999-01-01'/);
  });

  describe.each(SUPPORTED_SPEC_VERSIONS)('%s (handshake era)', (version) => {
    it('accepts a valid InitializeResult response', () => {
      expect(validateServerMessage(version, response(initializeResult(version)), { requestMethod: 'initialize' })).toEqual([]);
    });

    it('rejects an InitializeResult without serverInfo', () => {
      const { serverInfo: _omitted, ...result } = initializeResult(version);
      const errors = validateServerMessage(version, response(result), { requestMethod: 'initialize' });
      expect(errors).toEqual([expect.stringMatching(/^\/result must have required property 'serverInfo' \(InitializeResult\)$/)]);
    });

    it('checks only the envelope when the request method is unknown', () => {
      const { serverInfo: _omitted, ...result } = initializeResult(version);
      expect(validateServerMessage(version, response(result))).toEqual([]);
    });

    it('rejects a tools/list result with a tool missing inputSchema', () => {
      const errors = validateServerMessage(version, response({ tools: [{ name: 'echo' }] }), { requestMethod: 'tools/list' });
      expect(errors).toContainEqual(expect.stringContaining("/result/tools/0 must have required property 'inputSchema'"));
    });

    it('accepts ping answered with an empty result, and a logging notification', () => {
      expect(validateServerMessage(version, response({}), { requestMethod: 'ping' })).toEqual([]);
      const log = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } };
      expect(validateServerMessage(version, log)).toEqual([]);
    });

    it('rejects a log notification with an unknown level', () => {
      const log = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'verbose', data: 'hi' } };
      expect(validateServerMessage(version, log)).toContainEqual(expect.stringContaining('/params/level must be equal to one of the allowed values'));
    });

    it('accepts a sampling request and rejects an unknown server request', () => {
      const sampling = {
        jsonrpc: '2.0',
        id: 7,
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 },
      };
      expect(validateServerMessage(version, sampling)).toEqual([]);
      expect(validateServerMessage(version, { jsonrpc: '2.0', id: 8, method: 'tools/list' })).toEqual([
        expect.stringMatching(/^\/method 'tools\/list' is not a ServerRequest in /),
      ]);
    });

    it('rejects a result for a method the version does not have', () => {
      expect(validateServerMessage(version, response({}), { requestMethod: 'server/discover' })).toEqual([
        expect.stringContaining("answers 'server/discover', which is not a client request"),
      ]);
    });

    it('reports only the content block a malformed block claims to be', () => {
      const result = { content: [{ type: 'text' }, { type: 'image', data: 'not base64!' }, { type: 'video' }] };
      const errors = validateServerMessage(version, response(result), { requestMethod: 'tools/call' });
      expect(errors).toEqual([
        "/result/content/0 must have required property 'text' (TextContent)",
        "/result/content/1 must have required property 'mimeType' (ImageContent)",
        '/result/content/1/data must match format "byte" (ImageContent)',
        expect.stringMatching(/^\/result\/content\/2\/type "video" is none of TextContent \("text"\), ImageContent \("image"\), .* \(CallToolResult\)$/),
      ]);
    });

    it('rejects an error response with a null id', () => {
      const error = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
      expect(validateServerMessage(version, error)).toContainEqual(expect.stringContaining('/id must be string,integer'));
    });
  });

  it('follows the version: structuredContent must be an object from 2025-06-18 on, any value before it', () => {
    const result = { content: [{ type: 'text', text: '"x"' }], structuredContent: 'x' };
    const verdicts = Object.fromEntries(
      SUPPORTED_SPEC_VERSIONS.map((v) => [v, validateServerMessage(v, response(result), { requestMethod: 'tools/call' }).length === 0]),
    );
    expect(verdicts).toEqual({ '2024-11-05': true, '2025-03-26': true, '2025-06-18': false, '2025-11-25': false });
  });

  it('follows the version: elicitation/create is a server request from 2025-06-18 on', () => {
    const elicit = {
      jsonrpc: '2.0',
      id: 3,
      method: 'elicitation/create',
      params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
    };
    expect(validateServerMessage('2025-03-26', elicit)).toEqual([expect.stringContaining("'elicitation/create' is not a ServerRequest")]);
    expect(validateServerMessage('2025-06-18', elicit)).toEqual([]);
  });

  it('holds an id-less error to 2025-11-25, the first revision that can express it', () => {
    const error = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } };
    for (const version of ['2024-11-05', '2025-06-18', '2025-11-25']) expect(validateServerMessage(version, error)).toEqual([]);
    const broken = { jsonrpc: '2.0', error: { code: 'x', message: 'Parse error' } };
    expect(validateServerMessage('2025-06-18', broken)).toEqual([expect.stringContaining('/error/code must be integer')]);
    expect(validateServerMessage('2025-06-18', { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } })).not.toEqual([]);
  });

  it('accepts a batch of responses in 2025-03-26 only', () => {
    const batch = [response({}, 1), response({ tools: [] }, 2)];
    expect(validateServerMessage('2025-03-26', batch)).toEqual([]);
    expect(validateServerMessage('2025-06-18', batch).length).toBeGreaterThan(0);
  });

  it('rejects something that is not JSON-RPC at all', () => {
    expect(validateServerMessage('2025-06-18', { hello: 'world' }).length).toBeGreaterThan(0);
    expect(validateServerMessage('2025-06-18', 'text').length).toBeGreaterThan(0);
    expect(validateServerMessage('2025-06-18', { jsonrpc: '1.0', id: 1, result: {} })).toEqual([
      expect.stringContaining('/jsonrpc must be equal to constant "2.0"'),
    ]);
  });

  it('rejects a response that carries both result and error', () => {
    const both = { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } };
    expect(validateServerMessage('2025-06-18', both)).toEqual([expect.stringContaining('both result and error')]);
  });

  it('knows a result definition for every client request of every version', () => {
    for (const version of ALL_SPEC_VERSIONS) {
      const schema = JSON.parse(fs.readFileSync(schemaFile(version), 'utf8'));
      const defs = schema.definitions ?? schema.$defs;
      const methods = defs.ClientRequest.anyOf.map((m: { $ref: string }) => defs[m.$ref.split('/').pop()!].properties.method.const);
      for (const method of methods) {
        const errors = validateServerMessage(version, response({}), { requestMethod: method });
        expect({ version, method, errors: errors.filter((e) => e.includes('no result definition')) }).toEqual({ version, method, errors: [] });
      }
    }
  });
});

describe(`validateServerMessage ${MODERN_SPEC_VERSION} (session-less era)`, () => {
  const version = MODERN_SPEC_VERSION;
  const examples = path.join(SPEC_DIR, version, 'examples');
  const readExamples = (definition: string) =>
    fs.readdirSync(path.join(examples, definition)).map((file) => ({
      file: `${definition}/${file}`,
      json: JSON.parse(fs.readFileSync(path.join(examples, definition, file), 'utf8')),
    }));
  const schema = JSON.parse(fs.readFileSync(schemaFile(version), 'utf8'));

  // This official example omits ttlMs and cacheScope, which ReadResourceResult requires; the
  // schema's own ReadResourceResultResponse lets it through only because its anyOf also offers
  // InputRequiredResult, which requires nothing but a resultType string.
  const inconsistentExample = 'ReadResourceResultResponse/read-resource-result-response.json';

  it('accepts every official example response, with the result checked for its method', () => {
    const dirs = fs.readdirSync(examples).filter((d) => d.endsWith('ResultResponse'));
    expect(dirs.length).toBeGreaterThanOrEqual(10);
    for (const dir of dirs) {
      const method = schema.$defs[dir.replace(/ResultResponse$/, 'Request')].properties.method.const;
      for (const { file, json } of readExamples(dir)) {
        if (file === inconsistentExample) continue;
        expect({ file, errors: validateServerMessage(version, json, { requestMethod: method }) }).toEqual({ file, errors: [] });
      }
    }
  });

  it('holds a complete ReadResourceResult to its required fields, unlike one official example', () => {
    const [{ json }] = readExamples('ReadResourceResultResponse').filter((e) => e.file === inconsistentExample);
    expect(validateServerMessage(version, json, { requestMethod: 'resources/read' })).toEqual([
      "/result must have required property 'cacheScope' (ReadResourceResult)",
      "/result must have required property 'ttlMs' (ReadResourceResult)",
    ]);
    expect(validateServerMessage(version, json)).toEqual([]);
  });

  it('accepts every official example of a server notification and of an error', () => {
    const notifications = fs.readdirSync(examples).filter((d) => d.endsWith('Notification'));
    const errorDirs = fs.readdirSync(examples).filter((d) => d.endsWith('Error'));
    for (const dir of notifications) {
      for (const { file, json } of readExamples(dir)) {
        expect({ file, errors: validateServerMessage(version, json) }).toEqual({ file, errors: [] });
      }
    }
    for (const dir of errorDirs) {
      for (const { file, json } of readExamples(dir)) {
        const message = json.jsonrpc ? json : { jsonrpc: '2.0', id: 1, error: json };
        expect({ file, errors: validateServerMessage(version, message) }).toEqual({ file, errors: [] });
      }
    }
  });

  it('accepts the official CallToolResult and InputRequiredResult examples as tools/call answers', () => {
    for (const { file, json } of [...readExamples('CallToolResult'), ...readExamples('InputRequiredResult')]) {
      expect({ file, errors: validateServerMessage(version, response(json), { requestMethod: 'tools/call' }) }).toEqual({ file, errors: [] });
    }
  });

  it('requires resultType, which the handshake versions do not know', () => {
    const result = { content: [{ type: 'text', text: 'ok' }] };
    expect(validateServerMessage(version, response(result), { requestMethod: 'tools/call' })).toEqual([
      "/result must have required property 'resultType' (CallToolResult)",
    ]);
    expect(validateServerMessage(version, response({ ...result, resultType: 'complete' }), { requestMethod: 'tools/call' })).toEqual([]);
    expect(validateServerMessage('2025-06-18', response(result), { requestMethod: 'tools/call' })).toEqual([]);
  });

  it('requires ttlMs and cacheScope on list results', () => {
    const errors = validateServerMessage(version, response({ resultType: 'complete', tools: [echoTool] }), { requestMethod: 'tools/list' });
    expect(errors).toEqual(
      expect.arrayContaining([expect.stringContaining("'ttlMs'"), expect.stringContaining("'cacheScope'")]),
    );
  });

  it('allows input_required only where the schema allows an InputRequiredResult', () => {
    const inputRequired = response({ resultType: 'input_required', requestState: 'abc' });
    expect(validateServerMessage(version, inputRequired, { requestMethod: 'tools/call' })).toEqual([]);
    expect(validateServerMessage(version, inputRequired, { requestMethod: 'prompts/get' })).toEqual([]);
    expect(validateServerMessage(version, inputRequired, { requestMethod: 'tools/list' })).toEqual([
      expect.stringContaining("'input_required' is not allowed for 'tools/list'"),
    ]);
  });

  it('rejects any server-to-client request and the handshake', () => {
    expect(validateServerMessage(version, { jsonrpc: '2.0', id: 1, method: 'ping' })).toEqual([
      expect.stringContaining('has no ServerRequest'),
    ]);
    expect(validateServerMessage(version, response(initializeResult(version)), { requestMethod: 'initialize' })).toEqual([
      expect.stringContaining("'initialize', which is not a client request"),
    ]);
  });
});

describe('expectValidServerMessages', () => {
  it('passes a valid conversation', () => {
    expect(() =>
      expectValidServerMessages('2025-06-18', [
        { message: response(initializeResult('2025-06-18'), 0), requestMethod: 'initialize' },
        { message: response({ tools: [echoTool] }, 1), requestMethod: 'tools/list' },
        { message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } },
      ]),
    ).not.toThrow();
  });

  it('reports every invalid message with its index, method and errors', () => {
    let report = '';
    try {
      expectValidServerMessages('2025-06-18', [
        { message: response(initializeResult('2025-06-18'), 0), requestMethod: 'initialize' },
        { message: response({ tools: [{ name: 'echo' }] }, 1), requestMethod: 'tools/list' },
        { message: { jsonrpc: '2.0', method: 'notifications/unknown' } },
      ]);
    } catch (error) {
      report = (error as Error).message;
    }
    expect(report).toContain('2 of 3 server messages do not match the 2025-06-18 schema');
    expect(report).toContain('#1 (response to tools/list)');
    expect(report).toContain("/result/tools/0 must have required property 'inputSchema' (ListToolsResult)");
    expect(report).toContain("#2 {\"jsonrpc\":\"2.0\",\"method\":\"notifications/unknown\"}");
    expect(report).not.toContain('#0');
  });
});

describe('validateServerMessage: results of the skills extension (SEP-2640)', () => {
  const digest = `sha256:${'ab'.repeat(32)}`;
  const skill = { uri: 'skill://git-workflow/SKILL.md', frontmatter: { name: 'git-workflow', description: 'Git' }, resources: [{ uri: 'skill://git-workflow/SKILL.md', digest, size: 10 }] };
  const modern = { resultType: 'complete', ttlMs: 0, cacheScope: 'public' };
  const check = (version: string, method: string, result: unknown) => validateServerMessage(version, response(result), { requestMethod: method });

  it('accepts the extension specification examples, in both eras', () => {
    expect(check(MODERN_SPEC_VERSION, 'skills/list', { ...modern, skills: [skill, { ...skill, uri: 'skill://reports/daily/SKILL.md', resources: 'dynamic' }] })).toEqual([]);
    expect(check(MODERN_SPEC_VERSION, 'skills/get', { ...modern, skill })).toEqual([]);
    expect(check(MODERN_SPEC_VERSION, 'resources/directory/read', { resultType: 'complete', resources: [{ uri: 'skill://a/b', name: 'b', mimeType: 'inode/directory' }] })).toEqual([]);
    expect(check('2025-11-25', 'skills/list', { skills: [skill], nextCursor: 'abc' })).toEqual([]);
    expect(check('2025-11-25', 'skills/get', { skill })).toEqual([]);
  });

  it('refuses what the extension rules out', () => {
    expect(check(MODERN_SPEC_VERSION, 'skills/list', { resultType: 'complete', skills: [skill] }).join('\n')).toMatch(/ttlMs/);
    expect(check(MODERN_SPEC_VERSION, 'skills/get', { ...modern, skill, nextCursor: 'x' }).join('\n')).toMatch(/must NOT be valid/);
    expect(check('2025-11-25', 'skills/list', { skills: [{ ...skill, resources: [{ uri: skill.uri, digest: 'sha256:ABC', size: 1 }] }] }).join('\n')).toMatch(/digest must match pattern/);
    expect(check('2025-11-25', 'skills/list', { skills: [{ ...skill, resources: 'static' }] })).not.toEqual([]);
    expect(check('2025-11-25', 'skills/get', { skill: { uri: skill.uri, frontmatter: { name: 'x' }, resources: 'dynamic' } }).join('\n')).toMatch(/description/);
    expect(check(MODERN_SPEC_VERSION, 'resources/directory/read', { resultType: 'complete', resources: [{ uri: 'skill://a/b' }] }).join('\n')).toMatch(/name/);
  });
});
