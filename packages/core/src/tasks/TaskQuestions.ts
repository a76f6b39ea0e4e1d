import { DefinitionError, McpError } from '../errors';
import { canonicalJson, isPlainObject, questionKeyPrefix } from '../protocol';
import type { TaskInputRequest, TaskRecord } from '../cluster/TaskStore';

/**
 * The key, in an answer, under which a client's JSON-RPC error to a question is kept (a
 * 2025-11-25 client answers a task's question as a request, which may fail).
 */
export const ANSWER_ERROR_KEY = 'dev.typemcp/error';

/** Where a question goes once it has its key: the runner parks the task until it is answered. */
export type AskClient = (key: string, request: TaskInputRequest, signal: AbortSignal) => Promise<Record<string, unknown>>;

/**
 * The questions one run of a task asks its client. Each gets a key unique over the task's
 * lifetime: the author's (`{ key }`) or `elicitation-1`, `sampling-1`, … by kind. A run that
 * asks a question an earlier run of the same task asked under the same key (the task was run
 * again after its replica stopped) gets that key, and its answer if there is one, instead of
 * asking twice; a different question never reuses a key.
 */
export class TaskQuestions {
  private readonly used = new Set<string>();
  private readonly earlier: Readonly<Record<string, TaskInputRequest>>;
  private readonly answers: Readonly<Record<string, Record<string, unknown>>>;

  constructor(
    task: Pick<TaskRecord, 'inputRequests' | 'inputResponses'>,
    private readonly askClient: AskClient,
  ) {
    this.earlier = task.inputRequests ?? {};
    this.answers = task.inputResponses ?? {};
  }

  /** Asks `method` of the client and resolves with its answer; rejects with the client's error. */
  async ask(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal, wanted?: string): Promise<Record<string, unknown>> {
    const request: TaskInputRequest = params === undefined ? { method } : { method, params };
    const key = this.keyFor(request, wanted);
    const answer = Object.hasOwn(this.answers, key) ? this.answers[key] : await this.askClient(key, request, signal);
    const error = answer[ANSWER_ERROR_KEY];
    if (isPlainObject(error) && typeof error.code === 'number' && typeof error.message === 'string') throw new McpError(error.code, error.message, error.data);
    return answer;
  }

  private keyFor(request: TaskInputRequest, wanted: string | undefined): string {
    if (wanted !== undefined && this.used.has(wanted)) {
      throw new DefinitionError('INVALID_OPTION', `The input key "${wanted}" names two questions to the client in one task; give each its own key`);
    }
    const text = canonicalJson(request);
    const fits = (key: string) => !this.used.has(key) && (!Object.hasOwn(this.earlier, key) || canonicalJson(this.earlier[key]) === text);
    let key = wanted ?? `${questionKeyPrefix(request.method)}-1`;
    const base = wanted ?? questionKeyPrefix(request.method);
    // From the first every time: a rerun's question finds its earlier key even after a new one.
    for (let n = 2; !fits(key); n++) key = `${base}-${n}`;
    this.used.add(key);
    return key;
  }
}
