import fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { InMemoryTransport } from '@typemcp/core';
import type { McpServer, Principal } from '@typemcp/core';
import { schemaFile, validateServerMessage } from '../../../../test-support/specSchema';

type Message = Record<string, any>;

export const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The `_meta` of a 2026-07-28 request; with the tasks extension unless told otherwise. */
export function modernMeta(withTasks = true): Record<string, unknown> {
  return {
    [META_VERSION]: '2026-07-28',
    [META_CAPS]: withTasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-client', version: '1.0.0' },
  };
}

/**
 * A hand-driven client for the task tests: connects with an optional principal, keeps every
 * message the server sent with the method each response answers.
 */
export class TasksClient {
  readonly received: Array<{ message: Message; requestMethod?: string; taskCall?: boolean }> = [];
  private readonly pending = new Map<unknown, { method: string; taskCall: boolean }>();
  private waiters: Array<() => void> = [];
  private nextId = 1;

  private constructor(private readonly transport: InMemoryTransport) {
    transport.onmessage = (message) => {
      const item = message as Message;
      const sent = 'method' in item ? undefined : this.pending.get(item.id);
      this.received.push({ message: item, requestMethod: sent?.method, taskCall: sent?.taskCall });
      for (const wake of this.waiters.splice(0)) wake();
    };
  }

  static async connect(server: McpServer, options: { principal?: Principal; version?: string; capabilities?: Message } = {}): Promise<TasksClient> {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const client = new TasksClient(clientEnd);
    await server.connect(serverEnd, { principal: options.principal });
    await clientEnd.start();
    if (options.version !== 'none') {
      const init = await client.request('initialize', {
        protocolVersion: options.version ?? '2025-11-25',
        capabilities: options.capabilities ?? {},
        clientInfo: { name: 'tasks-client', version: '1.0.0' },
      });
      if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
      void clientEnd.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as never);
    }
    return client;
  }

  async request(method: string, params?: Message): Promise<Message> {
    const id = this.nextId++;
    const taskCall = method === 'tools/call' && (params?.task !== undefined || params?._meta?.[META_CAPS]?.extensions?.[TASKS_EXTENSION] !== undefined);
    this.pending.set(id, { method, taskCall });
    void this.transport.send((params ? { jsonrpc: '2.0', id, method, params } : { jsonrpc: '2.0', id, method }) as never);
    return this.waitFor((m) => m.id === id && !('method' in m));
  }

  /** Answers a request the server sent. */
  respond(id: unknown, outcome: { result: Message } | { error: Message }): void {
    void this.transport.send({ jsonrpc: '2.0', id, ...outcome } as never);
  }

  async waitFor(match: (message: Message) => boolean, timeoutMs = 3000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find((r) => match(r.message));
      if (found) return found.message;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`No matching message within ${timeoutMs} ms; received ${JSON.stringify(this.received.map((r) => r.message))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}

const validators = new Map<string, ValidateFunction>();

/** A validator of one definition of the official schema of `version`. */
export function definition(version: string, name: string): ValidateFunction {
  const key = `${version}#${name}`;
  let validate = validators.get(key);
  if (!validate) {
    const schema = JSON.parse(fs.readFileSync(schemaFile(version), 'utf8')) as Record<string, any>;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(schema, 'spec');
    validate = ajv.compile({ $ref: `spec#/$defs/${name}` });
    validators.set(key, validate);
  }
  return validate;
}

/** Throws unless `value` is a valid `name` of `version`. */
export function expectDefinition(version: string, name: string, value: unknown): void {
  const validate = definition(version, name);
  if (!validate(value)) throw new Error(`Not a valid ${name} of ${version}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(value)}`);
}

/**
 * Checks every message the client received against the official schema. 2025-11-25: a
 * task-augmented `tools/call` answer is a CreateTaskResult, the rest as usual. 2026-07-28 (the
 * schema has no task types): the envelope, and each answer of the task methods by hand.
 */
export function expectValidTaskMessages(version: string, client: TasksClient): void {
  const failures: string[] = [];
  for (const { message, requestMethod, taskCall } of client.received) {
    let errors: string[];
    if (version === '2026-07-28' && message.method === 'notifications/tasks') {
      // An extension's notification: the envelope, and the task it carries as tasks/get shows it.
      const { _meta, ...task } = message.params ?? {};
      errors = detailedTask(task);
      if (message.jsonrpc !== '2.0' || 'id' in message) errors.push('not a JSON-RPC notification');
    } else if (version === '2026-07-28') {
      const ownMethod = requestMethod !== undefined && !requestMethod.startsWith('tasks/') && !(taskCall && message.result?.resultType === 'task');
      errors = validateServerMessage(version, message, ownMethod ? { requestMethod } : {});
      if (message.result) errors.push(...modernTaskShape(requestMethod, message.result));
    } else if (taskCall && message.result?.task) {
      errors = validateServerMessage(version, message, {});
      const validate = definition(version, 'CreateTaskResult');
      if (!validate(message.result)) errors.push(JSON.stringify(validate.errors));
    } else {
      errors = validateServerMessage(version, message, { requestMethod });
    }
    if (errors.length > 0) failures.push(`${JSON.stringify(message)}\n  - ${errors.join('\n  - ')}`);
  }
  if (failures.length > 0) throw new Error(`Messages failing the ${version} schema:\n${failures.join('\n')}`);
}

const STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/** The shapes of the 2026-07-28 tasks extension (SEP-2663), checked by hand. */
function modernTaskShape(method: string | undefined, result: Message): string[] {
  const errors: string[] = [];
  const isTask = (value: Message) => {
    if (typeof value.taskId !== 'string') errors.push('taskId must be a string');
    if (!STATUSES.includes(value.status)) errors.push(`status ${value.status} is not a task status`);
    for (const key of ['createdAt', 'lastUpdatedAt']) if (Number.isNaN(Date.parse(value[key]))) errors.push(`${key} must be ISO 8601`);
    if (!(value.ttlMs === null || Number.isInteger(value.ttlMs))) errors.push('ttlMs must be an integer or null');
    if (value.pollIntervalMs !== undefined && !Number.isInteger(value.pollIntervalMs)) errors.push('pollIntervalMs must be an integer');
    if ('ttl' in value || 'pollInterval' in value || 'task' in value) errors.push('2025-11-25 field names in a 2026-07-28 task');
  };
  if (result.resultType === 'task') {
    if (method !== 'tools/call') errors.push(`resultType "task" answers ${method}`);
    isTask(result);
  } else if (method === 'tasks/get') {
    if (result.resultType !== 'complete') errors.push('tasks/get must have resultType "complete"');
    errors.push(...detailedTask(result));
  } else if (method === 'tasks/cancel' || method === 'tasks/update') {
    const { resultType, _meta, ...rest } = result;
    if (resultType !== 'complete' || Object.keys(rest).length > 0) errors.push(`${method} must answer an empty result, got ${JSON.stringify(result)}`);
  }
  return errors;
}

/** The errors of a `DetailedTask` (tasks/get, notifications/tasks): a task, with what its status carries. */
function detailedTask(task: Message): string[] {
  const errors: string[] = [];
  if (typeof task.taskId !== 'string') errors.push('taskId must be a string');
  if (!STATUSES.includes(task.status)) errors.push(`status ${task.status} is not a task status`);
  for (const key of ['createdAt', 'lastUpdatedAt']) if (Number.isNaN(Date.parse(task[key]))) errors.push(`${key} must be ISO 8601`);
  if (!(task.ttlMs === null || Number.isInteger(task.ttlMs))) errors.push('ttlMs must be an integer or null');
  if ('ttl' in task || 'pollInterval' in task || 'task' in task) errors.push('2025-11-25 field names in a 2026-07-28 task');
  if (task.status === 'completed') expectDefinitionErrors('CallToolResult', task.result, errors);
  if (task.status === 'failed' && !(Number.isInteger(task.error?.code) && typeof task.error?.message === 'string')) errors.push('failed task without a JSON-RPC error');
  if (task.status !== 'completed' && 'result' in task) errors.push('result on a task that is not completed');
  if (task.status === 'input_required') {
    const requests = task.inputRequests;
    if (typeof requests !== 'object' || requests === null || Object.keys(requests).length === 0) errors.push('input_required without inputRequests');
    else expectDefinitionErrors('InputRequests', requests, errors);
  } else if ('inputRequests' in task) errors.push(`inputRequests on a ${task.status} task`);
  return errors;
}

function expectDefinitionErrors(name: string, value: unknown, errors: string[]): void {
  const validate = definition('2026-07-28', name);
  if (!validate(value)) errors.push(`${name}: ${JSON.stringify(validate.errors)}`);
}

/** A promise with its resolve function outside. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
