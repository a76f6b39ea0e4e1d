import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import { Context, Description, Prompt, Resource, Tool, ToolError } from '@typemcp/core';
import { Board, describe } from './Board';

export const BOARD = Symbol('Board');

export class PostInput {
  @IsString() @MaxLength(500) @Description('What to post') text!: string;
  @IsOptional() @IsString() @Matches(/^[a-z0-9-]{1,32}$/) @Description('Channel: lowercase letters, digits and "-" (default "general")') channel?: string;
}

export class ReadInput {
  @IsOptional() @IsInt() @Min(1) @Max(50) @Description('How many messages, newest first (default 10)') limit?: number;
  @IsOptional() @IsString() @Matches(/^[a-z0-9-]{1,32}$/) @Description('Only this channel') channel?: string;
}

export class Signature {
  @IsString() @MaxLength(64) @Description('Your name, shown with the message') name!: string;
}

export class JobInput {
  @IsOptional() @IsInt() @Min(0) @Max(600_000) @Description('How long the job takes, in ms (default 2000)') durationMs?: number;
}

/** Waits `ms`, or until the request is cancelled (then throws). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The board's tools, resources and prompt. Every replica runs the same class over the same
 * Redis, so it does not matter which one a request reaches; answers name the replica.
 */
@injectable()
export class BoardTools {
  constructor(@inject(BOARD) private readonly board: Board) {}

  @Tool({ description: 'The name of the replica that answers', annotations: { readOnlyHint: true } })
  whoami(): string {
    return this.board.replicaId;
  }

  @Tool({ description: 'Post a message on the shared board', annotations: { readOnlyHint: false, idempotentHint: false } })
  async post_message(input: PostInput): Promise<string> {
    const message = await this.board.post(input.channel ?? 'general', input.text);
    return `Posted #${message.id} to ${message.channel} (replica ${this.board.replicaId})`;
  }

  @Tool({ description: 'Read the newest messages of the board', annotations: { readOnlyHint: true } })
  async read_messages(input: ReadInput): Promise<string> {
    return describe(await this.board.latest(input.limit ?? 10, input.channel));
  }

  /**
   * Asks the user to sign, then posts. Safe to run again up to the question (2026-07-28 runs
   * the handler again with the answer): nothing is written before it.
   */
  @Tool({ description: 'Post a message signed with a name the user gives' })
  async sign_and_post(input: PostInput, ctx: Context): Promise<string> {
    const answer = await ctx.elicit('Sign your message: what name should it show?', Signature);
    if (answer.action !== 'accept' || !answer.content) return `Not posted: the user chose ${answer.action}`;
    const message = await this.board.post(input.channel ?? 'general', input.text, answer.content.name);
    return `Posted #${message.id} signed ${answer.content.name} (replica ${this.board.replicaId})`;
  }

  /** A long job that only reads: safe to run again, so another replica re-runs it if this one stops. */
  @Tool({ description: 'Count the board messages (slow: runs as a task if the client wants)', task: 'optional', annotations: { readOnlyHint: true, idempotentHint: true } })
  async report(input: JobInput, ctx: Context): Promise<string> {
    await pause(input.durationMs ?? 2000, ctx.signal);
    const [count, latest] = await Promise.all([this.board.count(), this.board.latest(1)]);
    return `Report by replica ${this.board.replicaId}: ${count} messages, the newest #${latest[0]?.id ?? 0}`;
  }

  /** A long job that changes the board: not idempotent, so it fails (is not re-run) if its replica stops. */
  @Tool({ description: 'Move every message to the archive (slow: runs as a task if the client wants)', task: 'optional', annotations: { destructiveHint: true, idempotentHint: false } })
  async archive(input: JobInput, ctx: Context): Promise<string> {
    await pause(input.durationMs ?? 2000, ctx.signal);
    const moved = await this.board.archive();
    if (moved < 0) throw new ToolError('The archive failed');
    return `Archived ${moved} messages (replica ${this.board.replicaId})`;
  }

  @Resource({ uri: 'board://latest', mimeType: 'application/json', description: 'The newest message; updated at every post' })
  async latest(): Promise<object> {
    const [message] = await this.board.latest(1);
    return message ?? { empty: true };
  }

  @Resource({ uri: 'board://channels/{channel}', mimeType: 'text/plain', description: 'The newest messages of one channel; updated at every post to it' })
  async channel(vars: { channel: string }): Promise<string> {
    return describe(await this.board.latest(20, vars.channel));
  }

  @Prompt({ description: 'Ask the model to summarize the board' })
  async summarize_board(): Promise<string> {
    return `Summarize these board messages in three bullet points:\n\n${describe(await this.board.latest(20))}`;
  }
}
