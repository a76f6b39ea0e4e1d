/**
 * What the official conformance suite checks (SCENARIOS.md), asked in memory with the SDK
 * client, so that `npm test` notices a broken fixture without Node 22 or the suite itself.
 * scripts/conformance.sh runs the real suite over HTTP.
 */
import { InMemoryTransport } from '@typemcp/core';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectSdkClient } from '../../../test-support/sdkClient';
import type { RecordingTransport } from '../../../test-support/recordingTransport';
import { expectValidServerMessages } from '../../../test-support/specSchema';
import { createConformanceServer } from '../src/server';

const VERSION = '2025-11-25';

describe('the conformance server', () => {
  let client: Client;
  let recorder: RecordingTransport;
  const elicitations: Array<Record<string, any>> = [];
  const samplings: Array<Record<string, any>> = [];

  beforeAll(async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createConformanceServer().connect(serverSide);
    ({ client, recorder } = await connectSdkClient(clientSide as unknown as SdkTransport, {
      protocolVersion: VERSION,
      capabilities: { sampling: {}, elicitation: {}, roots: {} },
    }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///test/root', name: 'Test Root' }] }));
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      samplings.push(request.params);
      return { role: 'assistant', content: { type: 'text', text: 'This is a test response from the client' }, model: 'test-model', stopReason: 'endTurn' };
    });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request.params);
      const answers: Record<string, Record<string, unknown>> = {
        'Please provide your information': { username: 'testuser', email: 'test@example.com' },
        'Please review and update the form fields with defaults': { name: 'Jane Smith', age: 25, score: 88.0, status: 'inactive', verified: false },
        'Please select options from the enum fields': {
          untitledSingle: 'option1', titledSingle: 'value1', legacyEnum: 'opt1', untitledMulti: ['option1', 'option2'], titledMulti: ['value1', 'value2'],
        },
        'What is your name?': { name: 'Alice' },
        'Step 1: What is your name?': { name: 'Alice' },
        'Step 2: What is your favorite color?': { color: 'blue' },
        'Please confirm': { ok: true },
        'Please confirm to continue': { ok: true },
        'What context should the prompt use?': { context: 'test context' },
      };
      return { action: 'accept', content: answers[request.params.message] };
    });
  });

  afterAll(async () => {
    await client.close();
    expectValidServerMessages(VERSION, recorder.received);
  });

  it('lists what the scenarios call, each with a description', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'confirm_delete', 'failing_job', 'greet', 'json_schema_2020_12_tool', 'multi_input', 'protocol_error_job', 'slow_compute', 'test_audio_content', 'test_custom_headers', 'test_elicitation', 'test_elicitation_sep1034_defaults',
      'test_elicitation_sep1330_enums', 'test_embedded_resource', 'test_error_handling', 'test_image_content',
      'test_input_required_result_capabilities', 'test_input_required_result_elicitation', 'test_input_required_result_list_roots',
      'test_input_required_result_multi_round', 'test_input_required_result_multiple_inputs', 'test_input_required_result_request_state',
      'test_input_required_result_sampling', 'test_input_required_result_tampered_state', 'test_logging_tool', 'test_missing_capability',
      'test_multiple_content_types', 'test_reconnection', 'test_sampling', 'test_simple_text', 'test_streaming_elicitation',
      'test_toggled_tool', 'test_tool_with_logging', 'test_tool_with_progress', 'test_tool_with_task', 'test_trigger_prompt_change', 'test_trigger_tool_change',
    ]);
    for (const tool of tools) expect(tool.description).toBeTruthy();
    // http-header-validation calls the first listed tool with no arguments.
    expect(tools[0].name).toBe('test_simple_text');
    // http-custom-header-server-validation looks for a string property with "x-mcp-header".
    expect(tools.find((t) => t.name === 'test_custom_headers')?.inputSchema.properties).toMatchObject({
      region: { type: 'string', 'x-mcp-header': 'Region' },
    });

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual([
      'test_input_required_result_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image',
      'test_simple_prompt', 'test_toggled_prompt',
    ]);
    for (const prompt of prompts) expect(prompt.description).toBeTruthy();

    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['test://static-text', 'test://static-binary', 'test://watched-resource', 'skill://pdf-processing/SKILL.md']);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['test://template/{id}/data']);
  });

  it('returns each content type', async () => {
    expect((await client.callTool({ name: 'test_simple_text' })).content).toEqual([
      { type: 'text', text: 'This is a simple text response for testing.' },
    ]);
    expect((await client.callTool({ name: 'test_image_content', arguments: {} })).content).toEqual([
      { type: 'image', data: expect.any(String), mimeType: 'image/png' },
    ]);
    expect((await client.callTool({ name: 'test_audio_content', arguments: {} })).content).toEqual([
      { type: 'audio', data: expect.any(String), mimeType: 'audio/wav' },
    ]);
    expect((await client.callTool({ name: 'test_embedded_resource', arguments: {} })).content).toEqual([
      { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } },
    ]);
    const mixed = (await client.callTool({ name: 'test_multiple_content_types', arguments: {} })).content as Array<{ type: string }>;
    expect(mixed.map((c) => c.type)).toEqual(['text', 'image', 'resource']);
    expect(await client.callTool({ name: 'test_error_handling', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
      isError: true,
    });
  });

  it('logs three messages and reports increasing progress', async () => {
    const logs: unknown[] = [];
    client.fallbackNotificationHandler = async (n) => void (n.method === 'notifications/message' && logs.push(n.params?.data));
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(logs).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);

    const progress: number[] = [];
    await client.request(
      { method: 'tools/call', params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'progress-test-1' } } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(progress).toEqual([0, 50, 100]);
  });

  it('asks the client for sampling and elicitation', async () => {
    const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Test prompt for sampling' } });
    expect(sampled.content).toEqual([{ type: 'text', text: 'LLM response: This is a test response from the client' }]);
    expect(samplings.at(-1)).toMatchObject({ messages: [{ role: 'user', content: { type: 'text', text: 'Test prompt for sampling' } }], maxTokens: 100 });

    const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Please provide your information' } });
    expect((elicited.content as Array<{ text: string }>)[0].text).toContain('testuser');
    expect(elicitations.at(-1)?.requestedSchema).toMatchObject({
      properties: { username: { type: 'string' }, email: { type: 'string' } },
      required: ['username', 'email'],
    });

    await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
    expect(elicitations.at(-1)?.requestedSchema.properties).toEqual({
      name: { type: 'string', default: 'John Doe' },
      age: { type: 'integer', default: 30 },
      score: { type: 'number', default: 95.5 },
      status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean', default: true },
    });

    const enums = await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
    expect(enums.isError).toBeUndefined();
    const properties = elicitations.at(-1)?.requestedSchema.properties;
    expect(properties.untitledSingle).toMatchObject({ type: 'string', enum: ['option1', 'option2', 'option3'] });
    expect(properties.titledSingle.oneOf).toEqual([
      { const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' },
    ]);
    expect(properties.untitledMulti).toMatchObject({ type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } });
    expect(properties.titledMulti.items.anyOf).toHaveLength(3);
  });

  it('serves the resources, prompts and completion', async () => {
    expect((await client.readResource({ uri: 'test://static-text' })).contents).toEqual([
      { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
    ]);
    expect((await client.readResource({ uri: 'test://static-binary' })).contents).toEqual([
      { uri: 'test://static-binary', mimeType: 'image/png', blob: expect.any(String) },
    ]);
    expect((await client.readResource({ uri: 'test://template/123/data' })).contents).toEqual([
      { uri: 'test://template/123/data', mimeType: 'application/json', text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}' },
    ]);
    expect(await client.subscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    expect(await client.unsubscribeResource({ uri: 'test://watched-resource' })).toEqual({});

    expect((await client.getPrompt({ name: 'test_simple_prompt' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ]);
    expect((await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'testValue1', arg2: 'testValue2' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'" } },
    ]);
    const embedded = await client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://example-resource' } });
    expect(embedded.messages[0].content).toMatchObject({ type: 'resource', resource: { uri: 'test://example-resource' } });
    const image = await client.getPrompt({ name: 'test_prompt_with_image' });
    expect(image.messages[0].content).toMatchObject({ type: 'image', mimeType: 'image/png' });

    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } });
    expect(completion.completion).toEqual({ values: ['paris', 'park', 'party'], total: 3, hasMore: false });
    expect(await client.ping()).toEqual({});
  });

  // Over the handshake the input_required fixtures ask the client directly; the same code
  // answers 2026-07-28 requests with input_required results (scripts/conformance.sh).
  it('serves the input_required fixtures to a 2025-11-25 client by asking it', async () => {
    const text = async (name: string) => ((await client.callTool({ name, arguments: {} })).content as Array<{ text: string }>)[0].text;
    expect(await text('test_input_required_result_elicitation')).toBe('Hello, Alice!');
    expect(await text('test_input_required_result_sampling')).toBe('LLM response: This is a test response from the client');
    expect(samplings.at(-1)).toMatchObject({ messages: [{ content: { text: 'What is the capital of France?' } }], maxTokens: 100 });
    expect(await text('test_input_required_result_list_roots')).toBe('Client roots: file:///test/root (Test Root)');
    expect(await text('test_input_required_result_request_state')).toContain('state-ok');
    expect(await text('test_input_required_result_multiple_inputs')).toBe(
      'Name: Alice\nGreeting: This is a test response from the client\nRoots: file:///test/root (Test Root)',
    );
    expect(await text('test_input_required_result_multi_round')).toBe('Name: Alice; favorite color: blue');
    expect(await text('test_input_required_result_tampered_state')).toBe('Confirmed: true');
    expect(await text('test_input_required_result_capabilities')).toBe('LLM response: This is a test response from the client\nName: Alice');
    expect(await text('test_streaming_elicitation')).toBe('Confirmed: true');
    expect(await text('test_missing_capability')).toBe('LLM response: This is a test response from the client');
    expect(await text('test_custom_headers')).toBeDefined();

    const prompt = await client.getPrompt({ name: 'test_input_required_result_prompt' });
    expect(prompt.messages[0].content).toEqual({ type: 'text', text: 'Context: test context' });
  });

  it('changes its tool and prompt lists on request', async () => {
    const toolNames = async () => (await client.listTools()).tools.map((t) => t.name);
    const promptNames = async () => (await client.listPrompts()).prompts.map((p) => p.name);
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
    expect(await toolNames()).not.toContain('test_toggled_tool');
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
    expect(await toolNames()).toContain('test_toggled_tool');
    await client.callTool({ name: 'test_trigger_prompt_change', arguments: {} });
    expect(await promptNames()).not.toContain('test_toggled_prompt');
    await client.callTool({ name: 'test_trigger_prompt_change', arguments: {} });
    expect(await promptNames()).toContain('test_toggled_prompt');
  });
});
