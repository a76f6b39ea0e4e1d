import { AccessDeniedError, RateLimitedError, UnavailableError } from '../../errors';
import type { DefinitionErrorCode } from '../../errors';
import { isHeaderToken } from '../../protocol';
import type { HttpStage, HttpStageReply } from '../../protocol';
import { errorReply, HEADER_VALUE, NO_HEADERS } from './HttpReply';
import type { HttpReply } from './HttpReply';
import type { StagedRequest } from './StagedRequest';

/**
 * The core's stages, in the order a request goes through them; docs/reference/plugins.md says
 * what each does. A handler's options may leave some out (`readiness` without a
 * `readinessPath`, `stateless` on a server with sessions); the names stay, so a plugin's
 * stage keeps its place whatever the options.
 */
export const CORE_STAGES = [
  'readiness',
  'available',
  'documents',
  'origin',
  'path',
  'authenticate',
  'legacy-sse',
  'get',
  'delete',
  'method',
  'body',
  'headers',
  'alone',
  'messages',
  'stateless',
  'initialize',
  'session',
] as const;

export type CoreStageName = (typeof CORE_STAGES)[number];

/**
 * One step of a request: it answers (a reply), or passes the request on (undefined), having
 * perhaps learned something of it. What it throws is answered by the handler.
 */
export type StageRun = (request: StagedRequest) => HttpReply | undefined | Promise<HttpReply | undefined>;

export interface Stage {
  readonly name: string;
  readonly run: StageRun;
}

/** The implementation of each core stage under one handler's options; undefined leaves it out. */
export type CoreStages = { readonly [name in CoreStageName]: StageRun | undefined };

const LAST_STAGE: CoreStageName = 'session';
const isCoreStage = (name: string): name is CoreStageName => (CORE_STAGES as readonly string[]).includes(name);

/**
 * Why a plugin's stage cannot be placed among the core's and those placed before it, or
 * undefined when it can.
 */
export function httpStageRefusal(stage: HttpStage, placed: readonly HttpStage[]): { code: DefinitionErrorCode; message: string } | undefined {
  const { name, before, after } = stage;
  if (isCoreStage(name)) return { code: 'DUPLICATE_NAME', message: `"${name}" is a stage of the core; give the HTTP stage a name of its own` };
  if (placed.some((other) => other.name === name)) return { code: 'DUPLICATE_NAME', message: `an HTTP stage named "${name}" is already added` };
  const anchor = before ?? after;
  if (typeof anchor !== 'string' || (before !== undefined && after !== undefined)) {
    return { code: 'INVALID_OPTION', message: `the HTTP stage "${name}" needs one place: before or after a named stage (${CORE_STAGES.join(', ')})` };
  }
  if (!isCoreStage(anchor) && !placed.some((other) => other.name === anchor)) {
    const added = placed.length === 0 ? '' : `; added by plugins: ${placed.map((other) => other.name).join(', ')}`;
    return { code: 'INVALID_OPTION', message: `the HTTP stage "${name}" is placed ${before !== undefined ? 'before' : 'after'} "${anchor}", which is no stage. The core's stages, in order: ${CORE_STAGES.join(', ')}${added}` };
  }
  if (after === LAST_STAGE) return { code: 'INVALID_OPTION', message: `the HTTP stage "${name}" cannot run after "${LAST_STAGE}": every request that reaches it is answered there` };
  return undefined;
}

/**
 * The stages of one handler, in order: the core's its options keep, each plugin stage just
 * before or after the stage it names; stages placed at the same point run in the order added.
 */
export function placeStages(core: CoreStages, added: readonly HttpStage[], reportError: (what: string, error: unknown) => void): Stage[] {
  const before = new Map<string, HttpStage[]>();
  const after = new Map<string, HttpStage[]>();
  for (const stage of added) {
    const [at, anchor] = stage.before !== undefined ? [before, stage.before] : [after, stage.after!];
    at.set(anchor, [...(at.get(anchor) ?? []), stage]);
  }
  const stages: Stage[] = [];
  const place = (name: string, run: StageRun | undefined) => {
    for (const stage of before.get(name) ?? []) place(stage.name, pluginStage(stage, reportError));
    if (run) stages.push({ name, run });
    for (const stage of after.get(name) ?? []) place(stage.name, pluginStage(stage, reportError));
  };
  for (const name of CORE_STAGES) place(name, core[name]);
  return stages;
}

/** A plugin's stage as the handler runs it: its answer checked, its failures reported. */
function pluginStage(stage: HttpStage, reportError: (what: string, error: unknown) => void): StageRun {
  const failed = (error: unknown): HttpReply => {
    // Refusals and unavailable stores are answered as the core's own.
    if (error instanceof AccessDeniedError || error instanceof RateLimitedError || error instanceof UnavailableError) throw error;
    reportError(`the HTTP stage "${stage.name}" failed`, error);
    return errorReply(error);
  };
  const answered = (reply: HttpStageReply | undefined): HttpReply | undefined => {
    if (reply === undefined) return undefined;
    const refused = replyRefusal(reply);
    if (refused === undefined) return reply.headers === undefined ? { status: reply.status, headers: NO_HEADERS, body: reply.body } : (reply as HttpReply);
    reportError(`the HTTP stage "${stage.name}" answered what cannot be sent`, new TypeError(refused));
    return errorReply(undefined);
  };
  return (request) => {
    let reply: ReturnType<HttpStage['handle']>;
    try {
      reply = stage.handle(request);
    } catch (error) {
      return failed(error);
    }
    return reply instanceof Promise ? reply.then(answered, failed) : answered(reply);
  };
}

/** Why a stage's reply cannot be written by every adapter, or undefined. */
function replyRefusal(reply: HttpStageReply): string | undefined {
  if (typeof reply !== 'object' || reply === null) return 'a reply is an object { status, headers?, body? }';
  const { status, headers, body } = reply;
  if (!(Number.isInteger(status) && status >= 200 && status <= 599)) return `status ${String(status)} is not an integer from 200 to 599`;
  if (body !== undefined && typeof body !== 'string') return 'body must be a string';
  if (headers === undefined) return undefined;
  if (typeof headers !== 'object' || headers === null) return 'headers must be an object of strings';
  for (const [name, value] of Object.entries(headers)) {
    if (!isHeaderToken(name)) return `${JSON.stringify(name)} is no header name`;
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) return `the header ${name} has a value that cannot be sent`;
  }
  return undefined;
}
