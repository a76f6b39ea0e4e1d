import { MODERN_VERSIONS } from '@typemcp/core';
import { McpRequestError } from '../../errors';
import type { CallToolOptions, CallToolResult, JsonObject, ListenFilter, LoggingLevel, RequestId, ServerDescription, Subscription, TaskStatus } from '../../types';
import { capabilitiesFor, isObject } from '../capabilities';
import type { ClientEra, Link, SendOptions } from '../ClientEra';
import { waitForTask } from '../tasks';
import { mirroredHeaders, paramHeadersOf } from './headers';
import type { ParamHeaders } from './headers';

const META = {
  version: 'io.modelcontextprotocol/protocolVersion',
  capabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const DEFAULT_MAX_ROUNDS = 10;

/**
 * 2026-07-28: no handshake. `server/discover` tells what the server serves; every request
 * names the version, the client's capabilities and info (and the log level once set) in its
 * `_meta`, and over HTTP mirrors its method and target in `Mcp-Method`, `Mcp-Name` and a
 * tool's `Mcp-Param-*` headers. Resolves with `undefined` when `fallback` is set and the
 * server does not serve `version`.
 */
export async function discover(link: Link, version: string, { fallback, retried = false }: { fallback: boolean; retried?: boolean }): Promise<ClientEra | undefined> {
  link.transport.setHeaders?.({ 'mcp-protocol-version': version });
  const era = new ModernEra(link, version);
  let found: JsonObject;
  try {
    found = await era.request('server/discover', undefined);
  } catch (error) {
    // -32022: the server names the versions it serves; once, the newest of them this client speaks is asked for.
    const offered = error instanceof McpRequestError && error.code === -32022 && isObject(error.data) && Array.isArray(error.data.supported) ? (error.data.supported as unknown[]) : [];
    const retry = [...MODERN_VERSIONS].reverse().find((known) => offered.includes(known));
    if (retried || retry === undefined || link.options.strictVersion) throw error;
    return discover(link, retry, { fallback, retried: true });
  }
  const supported = Array.isArray(found.supportedVersions) ? (found.supportedVersions as string[]) : [];
  if (!supported.includes(version)) {
    if (fallback) return undefined;
    throw new Error(`Asked the server for protocol ${version} but it serves ${supported.join(', ') || 'none it names'}`);
  }
  const meta = isObject(found._meta) ? found._meta : {};
  era.server = {
    protocolVersion: version,
    serverInfo: (isObject(found.serverInfo) ? found.serverInfo : (meta[META.serverInfo] as ServerDescription['serverInfo'] | undefined)) ?? { name: '', version: '' },
    capabilities: isObject(found.capabilities) ? found.capabilities : {},
    supportedVersions: supported,
  } as ServerDescription;
  if (typeof found.instructions === 'string') era.server.instructions = found.instructions;
  return era;
}

class ModernEra implements ClientEra {
  readonly stateless = true;
  server: ServerDescription;
  readonly capabilities: JsonObject;
  private logLevel: LoggingLevel | undefined;
  /** Each listed tool's `x-mcp-header` arguments, learnt from `tools/list`. */
  private readonly toolHeaders = new Map<string, ParamHeaders>();

  constructor(
    private readonly link: Link,
    readonly protocolVersion: string,
  ) {
    this.capabilities = capabilitiesFor(protocolVersion, link.options);
    this.server = { protocolVersion, serverInfo: { name: '', version: '' }, capabilities: {} };
  }

  /** Sends the request with its `_meta` and headers; answers `input_required` with the handlers and retries, up to `maxInputRounds`. */
  async request(method: string, params: JsonObject | undefined, options: SendOptions = {}, capabilities = this.capabilities): Promise<JsonObject> {
    const maxRounds = this.link.options.maxInputRounds ?? DEFAULT_MAX_ROUNDS;
    let body = params;
    for (let round = 1; ; round++) {
      const result = await this.send(method, body, options, capabilities);
      if (result.resultType !== 'input_required' || options.returnInputRequired) return method === 'tools/list' ? this.learnTools(result) : result;
      if (round >= maxRounds) throw new Error(`${method} still asked for input after ${maxRounds} rounds`);
      const inputResponses = await this.answers(result.inputRequests);
      body = { ...params, inputResponses };
      if (result.requestState !== undefined) body.requestState = result.requestState;
    }
  }

  async setLogLevel(level: LoggingLevel): Promise<void> {
    this.logLevel = level;
  }

  async ping(options?: SendOptions): Promise<void> {
    await this.request('server/discover', undefined, options);
  }

  /** `subscriptions/listen`: resolves once the server acknowledged the stream, with the filter it honours. */
  async listen(filter: ListenFilter): Promise<Subscription> {
    let id: RequestId | undefined;
    let stop: (() => void) | undefined;
    const acknowledged = new Promise<JsonObject | undefined>((resolve) => {
      stop = this.link.on('notifications/subscriptions/acknowledged', ({ params }) => {
        const meta = isObject(params?._meta) ? params._meta : {};
        if (id === undefined || meta[META.subscriptionId] !== id) return;
        resolve(params);
      });
    });
    const ended = this.send('subscriptions/listen', { notifications: filter }, { background: true, onId: (sent) => void (id = sent) });
    const ack = await Promise.race([acknowledged, ended.then(() => undefined)]).finally(() => stop?.());
    if (!ack) throw new Error('The server ended subscriptions/listen before acknowledging it');
    const outcome = ended.then(
      () => 'graceful' as const,
      () => 'closed' as const,
    );
    return {
      honoured: (isObject(ack.notifications) ? ack.notifications : {}) as ListenFilter,
      ended: outcome,
      close: async () => {
        await this.link.cancel(id!, 'subscription closed');
        await outcome;
      },
    };
  }

  /**
   * The tasks extension: the call declares it, and the server may answer with a task
   * (`resultType: 'task'`), polled with `tasks/get` until it completes (its result comes
   * with it); questions it asks meanwhile are answered with `tasks/update`.
   */
  async callToolAsTask(name: string, args: JsonObject | undefined, options: CallToolOptions): Promise<CallToolResult> {
    const capabilities = { ...this.capabilities, extensions: { ...(this.capabilities.extensions as JsonObject | undefined), [TASKS_EXTENSION]: {} } };
    const params: JsonObject = args === undefined ? { name } : { name, arguments: args };
    const created = await this.request('tools/call', params, options, capabilities);
    if (created.resultType !== 'task') return created as CallToolResult;
    let task = created as unknown as TaskStatus;
    options.onTask?.(task);
    const get = (taskId: string) => this.request('tasks/get', { taskId }, { signal: options.signal, headers: options.headers }, capabilities) as Promise<TaskStatus>;
    for (;;) {
      task = await waitForTask(task, get, options, (status) => status === 'input_required');
      if (task.status !== 'input_required') break;
      const inputResponses = await this.answers(task.inputRequests);
      await this.request('tasks/update', { taskId: task.taskId, inputResponses }, { signal: options.signal, headers: options.headers }, capabilities);
      task = await get(task.taskId);
      options.onTask?.(task);
    }
    if (task.status === 'completed' && isObject(task.result)) return task.result as CallToolResult;
    const error = isObject(task.error) ? task.error : { code: -32603, message: task.statusMessage ?? `the task ended ${task.status}` };
    throw new McpRequestError('tools/call', Number(error.code ?? -32603), String(error.message ?? task.status), error.data);
  }

  /** One request as sent: `_meta` under what the caller put there, the mirrored headers over the caller's. */
  private send(method: string, params: JsonObject | undefined, options: SendOptions, capabilities = this.capabilities): Promise<JsonObject> {
    const meta: JsonObject = {
      [META.version]: this.protocolVersion,
      [META.capabilities]: capabilities,
      [META.clientInfo]: this.link.clientInfo,
    };
    if (this.logLevel !== undefined) meta[META.logLevel] = this.logLevel;
    // The caller's `_meta` and the request's `meta` option over the era's, in one object.
    if (isObject(params?._meta)) Object.assign(meta, params._meta);
    if (options.meta) Object.assign(meta, options.meta);
    const body: JsonObject = { ...params, _meta: meta };
    // Only a transport that carries headers (HTTP: it takes setHeaders) is given the mirrored ones.
    if (!this.link.transport.setHeaders) return this.link.send(method, body, { ...options, meta: undefined });
    const tool = method === 'tools/call' && typeof params?.name === 'string' ? this.toolHeaders.get(params.name) : undefined;
    const headers = { ...options.headers, ...mirroredHeaders(method, params, tool) };
    return this.link.send(method, body, { ...options, headers, meta: undefined });
  }

  /** The client's answers to the questions of an `input_required` result, by key. */
  private async answers(questions: unknown): Promise<JsonObject> {
    const inputResponses: JsonObject = {};
    for (const [key, question] of Object.entries(isObject(questions) ? questions : {})) {
      if (!isObject(question)) continue;
      inputResponses[key] = await this.link.answer(String(question.method), isObject(question.params) ? question.params : {});
    }
    return inputResponses;
  }

  /** Keeps each tool's `x-mcp-header` arguments; a tool whose marks are invalid is left out of the listing. */
  private learnTools(result: JsonObject): JsonObject {
    if (!Array.isArray(result.tools)) return result;
    const tools = (result.tools as JsonObject[]).filter((tool) => {
      const headers = paramHeadersOf(tool.inputSchema);
      if (headers === undefined) return false;
      if (typeof tool.name === 'string') this.toolHeaders.set(tool.name, headers);
      return true;
    });
    return { ...result, tools };
  }
}
