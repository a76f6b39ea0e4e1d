import { DefinitionError, InternalError, InvalidParamsError, RequestEndedError, withoutStack } from '../../errors';
import { isPlainObject, questionKeyPrefix, quote } from '../../protocol';
import type { OutgoingRequestOptions, RequestId } from '../../protocol';
import type { LoggingLevel, RequestChannel, RequestScope } from '../../session';
import { openRequestState, sealRequestState } from './requestState';
import type { RequestBinding, RequestStateKey } from './requestState';
import { nextTurn } from '../../platform';

/** The only requests whose answer may be `input_required` (2026-07-28, MRTR). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** A request's interim answer: the questions for the client, and the state to send back with the answers. */
export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests: Record<string, { method: string; params?: Record<string, unknown> }>;
  requestState: string;
}

/**
 * The client channel of one 2026-07-28 request (multi round-trip requests). There is no way to
 * ask the client mid-request, so each question the handler asks is answered from the retry
 * (`inputResponses`, and the earlier rounds' answers carried in the signed `requestState`);
 * the first question without an answer ends the round: `needed` resolves with an
 * `input_required` result listing every unanswered question asked in the same turn of the
 * event loop, and those calls reject with RequestEndedError. The handler runs again from the
 * top on the retry, so it must be safe to re-run up to its questions.
 */
export class InputRound implements RequestChannel {
  private neededPromise: Promise<InputRequiredResult> | undefined;
  private announce: ((result: InputRequiredResult) => void) | undefined;
  private fail: ((error: unknown) => void) | undefined;
  private answers: Readonly<Record<string, unknown>>;
  /** Set while a carried requestState is being checked; the request runs once it settles. */
  readonly ready: Promise<void> | undefined;
  /** What one run asked and used; made at the first question (most requests ask none). */
  private asked: Asked | undefined;
  private ended = false;
  /** What the handler carries to the next round, sealed into the state with the answers. */
  carried: Record<string, unknown> = {};

  constructor(
    private readonly base: RequestChannel,
    private readonly key: RequestStateKey,
    private readonly binding: RequestBinding,
    params: Record<string, unknown>,
  ) {
    const responses = params.inputResponses;
    if (responses !== undefined && !isPlainObject(responses)) {
      throw new InvalidParamsError('"inputResponses" must be an object of the client\'s results, keyed as the server asked');
    }
    for (const inputKey in responses) {
      if (Object.hasOwn(responses, inputKey) && !isPlainObject(responses[inputKey])) {
        throw new InvalidParamsError(`inputResponses[${quote(inputKey)}] must be a result object`);
      }
    }
    const given = responses as Record<string, unknown> | undefined;
    this.answers = given ?? NO_ANSWERS;
    if (params.requestState !== undefined) {
      // Earlier rounds' answers are signed; a retry cannot replace them.
      this.ready = openRequestState(key, params.requestState, binding).then((opened) => {
        this.answers = { ...given, ...opened.answers };
        if (opened.carried) this.carried = { ...opened.carried };
      });
    }
  }

  /**
   * Resolves once the request must be answered with `input_required`, never otherwise; rejects
   * when that answer cannot be made (answers that cannot be encoded into a state). Made when
   * first asked for: a handler that answers at once needs none.
   */
  get needed(): Promise<InputRequiredResult> {
    if (!this.neededPromise) {
      this.neededPromise = new Promise((resolve, reject) => {
        this.announce = resolve;
        this.fail = reject;
      });
      // Nobody may be racing it (a handler that returned synchronously): not an unhandled rejection.
      this.neededPromise.catch(() => undefined);
    }
    return this.neededPromise;
  }

  notify(method: string, params: Record<string, unknown>, relatedRequestId: RequestId): void {
    this.base.notify(method, params, relatedRequestId);
  }

  /** Logs only when the request asked for them with a log level. */
  log(scope: RequestScope, level: LoggingLevel, data: unknown, logger: string | undefined, relatedRequestId: RequestId): void {
    if (scope.logLevel !== undefined) this.base.log(scope, level, data, logger, relatedRequestId);
  }

  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: OutgoingRequestOptions & { relatedRequestId?: RequestId; inputKey?: string },
  ): Promise<Record<string, unknown>> {
    const asked: Asked = this.asked ?? (this.asked = { used: {}, questions: {}, keys: new Set(), counters: new Map(), abandon: [] });
    const inputKey = options.inputKey ?? this.nextKey(method);
    if (asked.keys.has(inputKey)) {
      return Promise.reject(new DefinitionError('INVALID_OPTION', `The input key "${inputKey}" names two questions to the client in one "${this.binding.method}" request; give each its own key`));
    }
    asked.keys.add(inputKey);
    if (Object.hasOwn(this.answers, inputKey)) {
      asked.used[inputKey] = this.answers[inputKey];
      return Promise.resolve(this.answers[inputKey] as Record<string, unknown>);
    }
    if (!INPUT_REQUIRED_METHODS.has(this.binding.method)) {
      return Promise.reject(new InternalError(`"${this.binding.method}" cannot ask the client (${method}): only tools/call, prompts/get and resources/read may`));
    }
    if (this.ended) return Promise.reject(endedError());
    if (Object.keys(asked.questions).length === 0) {
      void this.needed; // made now: the round's end announces on it
      nextTurn(() => void this.endRound());
    }
    asked.questions[inputKey] = params === undefined ? { method } : { method, params };
    const pending = new Promise<Record<string, unknown>>((_resolve, reject) => asked.abandon.push(reject));
    // A question the handler did not await must not become an unhandled rejection once dropped.
    pending.catch(() => undefined);
    return pending;
  }

  private nextKey(method: string): string {
    const { counters, keys } = this.asked!;
    const prefix = questionKeyPrefix(method);
    let count = counters.get(prefix) ?? 0;
    let key: string;
    do key = `${prefix}-${++count}`;
    while (keys.has(key));
    counters.set(prefix, count);
    return key;
  }

  private async endRound(): Promise<void> {
    this.ended = true;
    const asked = this.asked!;
    try {
      this.announce!({
        resultType: 'input_required',
        inputRequests: asked.questions,
        requestState: await sealRequestState(this.key, this.binding, asked.used, this.carried),
      });
    } catch (error) {
      this.fail!(error);
    }
    const error = endedError();
    for (const reject of asked.abandon.splice(0)) reject(error);
  }
}

/** The questions of one run, and the answers it used. */
interface Asked {
  /** Answers this run used: carried to the next round in its state. */
  used: Record<string, unknown>;
  questions: InputRequiredResult['inputRequests'];
  keys: Set<string>;
  counters: Map<string, number>;
  abandon: Array<(error: Error) => void>;
}

const NO_ANSWERS: Readonly<Record<string, unknown>> = Object.freeze({});

function endedError(): RequestEndedError {
  return withoutStack(() => new RequestEndedError('The request was answered with input_required; it runs again when the client retries with the answers'));
}

