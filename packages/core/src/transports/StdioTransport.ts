import type { Readable, Writable } from 'node:stream';
import type { OutgoingMessage } from '../protocol';
import type { Transport } from '../protocol';

/**
 * The options of `new StdioTransport(…)`: its streams (stdin and stdout by default) and how it
 * guards them.
 */
export interface StdioTransportOptions {
  input?: Readable;
  output?: Writable;
  /**
   * Send anything else written to stdout (console.log, stray writes) to stderr, so only MCP
   * messages reach the client. On by default when output is process.stdout.
   */
  guardStdout?: boolean;
  /**
   * Longest message accepted, in characters (default 4 MiB worth). A longer line is skipped
   * up to its newline and answered with -32600; reading it costs no more than its length.
   */
  maxLineLength?: number;
}

const DEFAULT_MAX_LINE_LENGTH = 4 * 1024 * 1024;

/**
 * Newline-delimited JSON-RPC over a pair of streams (stdin/stdout by default). Writes made
 * within one tick leave in one `write`; when the output pushes back, reading pauses until it
 * drains.
 */
export class StdioTransport implements Transport {
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly guardStdout: boolean;
  private writeOutput!: (chunk: string) => boolean;
  private restoreStdout: (() => void) | undefined;
  /** The pieces of a line not ended yet; joined once, when its newline arrives. */
  private pending: string[] = [];
  private pendingLength = 0;
  /** Skipping the rest of a line that grew past maxLineLength. */
  private skipping = false;
  private readonly maxLineLength: number;
  private queue: string[] = [];
  /**
   * A progress notification waits in `queue`. The official SDK clients handle a notification a
   * tick after they read it, and drop progress whose response they read in the same chunk: a
   * response written after queued progress waits for that progress to go out first.
   */
  private progressQueued = false;
  /** What was sent after such a response, in order, until the progress before it went out. */
  private held: Array<{ line: string; kind: MessageKind }> | undefined;
  private flushScheduled = false;
  private waitingForDrain = false;
  private inputEnded = false;
  private closed = false;

  onmessage?: (message: unknown) => void;
  readonly network = 'pipe';
  onclose?: () => void;
  onerror?: (error: Error) => void;
  oninputend?: () => void;

  constructor(options: StdioTransportOptions = {}) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.guardStdout = options.guardStdout ?? this.output === process.stdout;
    this.maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
    if (!(Number.isInteger(this.maxLineLength) && this.maxLineLength > 0)) {
      throw new TypeError(`StdioTransport: maxLineLength must be a positive integer, not ${String(options.maxLineLength)}`);
    }
  }

  async start(): Promise<void> {
    const output = this.output;
    const write = output.write as (chunk: string) => boolean;
    this.writeOutput = (chunk) => write.call(output, chunk);
    if (this.guardStdout) this.restoreStdout = redirectStrayWrites(output);

    this.input.setEncoding('utf8');
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onStreamError);
    this.output.on('error', this.onStreamError);
  }

  send(message: OutgoingMessage): void {
    if (this.closed) return;
    this.enqueue(JSON.stringify(message), kindOf(message));
  }

  private enqueue(line: string, kind: MessageKind): void {
    if (this.held) {
      this.held.push({ line, kind });
      return;
    }
    if (kind === 'response' && this.progressQueued) {
      // The progress goes out now, on its own; the response a moment after that write has left,
      // so that the client reads the two apart (writes close together reach it as one chunk).
      this.held = [{ line, kind }];
      this.flushNow();
      this.output.write('', () => setTimeout(this.release, RESPONSE_AFTER_PROGRESS_MS).unref());
      return;
    }
    if (kind === 'progress') this.progressQueued = true;
    this.queue.push(line);
    if (!this.flushScheduled && !this.waitingForDrain) {
      this.flushScheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly release = () => {
    const held = this.held ?? [];
    this.held = undefined;
    if (this.closed) return;
    for (const { line, kind } of held) this.enqueue(line, kind);
  };

  async close(): Promise<void> {
    if (this.closed) return;
    for (const { line } of this.held ?? []) this.queue.push(line);
    this.held = undefined;
    this.flushNow();
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onStreamError);
    this.input.pause();
    // Let whatever was written reach the pipe before the process may exit.
    if (this.output.writableLength > 0 && !this.output.destroyed) {
      await new Promise<void>((resolve) => this.output.write('', () => resolve()));
    }
    this.output.off('error', this.onStreamError);
    this.restoreStdout?.();
    this.onclose?.();
  }

  // Each chunk is scanned once: intake stays linear in the input, however long a line is.
  private readonly onData = (chunk: string) => {
    let start = 0;
    let newline = chunk.indexOf('\n');
    while (newline !== -1) {
      this.take(chunk.slice(start, newline));
      this.endLine();
      if (this.closed) return;
      start = newline + 1;
      newline = chunk.indexOf('\n', start);
    }
    if (start < chunk.length) this.take(chunk.slice(start));
  };

  private take(piece: string): void {
    if (this.skipping || piece === '') return;
    this.pendingLength += piece.length;
    if (this.pendingLength > this.maxLineLength) {
      this.skipping = true;
      this.pending = [];
      return;
    }
    this.pending.push(piece);
  }

  private endLine(): void {
    if (this.skipping) {
      this.skipping = false;
      this.pendingLength = 0;
      this.send({ jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request: a message longer than ${this.maxLineLength} characters was skipped` } });
      return;
    }
    let line = this.pending.length === 1 ? this.pending[0] : this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim() !== '') this.onmessage?.(line);
  }

  private readonly onEnd = () => {
    this.inputEnded = true;
    if (this.pendingLength > 0 || this.skipping) this.endLine();
    if (this.oninputend) this.oninputend();
    else void this.close();
  };

  private readonly onStreamError = (error: Error) => {
    this.onerror?.(error);
  };

  private readonly flush = () => {
    this.flushScheduled = false;
    this.flushNow();
  };

  private flushNow(): void {
    if (this.queue.length === 0 || this.closed) return;
    const chunk = this.queue.join('\n') + '\n';
    this.queue = [];
    this.progressQueued = false;
    if (!this.writeOutput(chunk)) {
      // Backpressure: stop taking new work until the client reads what we wrote.
      this.waitingForDrain = true;
      this.input.pause();
      this.output.once('drain', () => {
        this.waitingForDrain = false;
        if (!this.inputEnded && !this.closed) this.input.resume();
        this.flushNow();
      });
    }
  }
}

/** Points every other writer of `stdout` at stderr; returns the function that undoes it. */
function redirectStrayWrites(stdout: Writable): () => void {
  const original = stdout.write;
  const stderr = process.stderr;
  stdout.write = function (this: Writable, ...args: unknown[]) {
    return (stderr.write as (...a: unknown[]) => boolean).apply(stderr, args);
  } as Writable['write'];
  return () => {
    stdout.write = original;
  };
}

type MessageKind = 'progress' | 'response' | 'other';

/**
 * How long a response waits after the progress written just before it: long enough for a
 * client to read the progress on its own, even on a busy machine; paid only by a response that
 * follows progress reported in the same tick.
 */
const RESPONSE_AFTER_PROGRESS_MS = 50;

/** Whether a message is a progress notification, a response, or anything else. */
function kindOf(message: OutgoingMessage): MessageKind {
  const fields = message as { method?: unknown; id?: unknown };
  if (fields.method === 'notifications/progress') return 'progress';
  return fields.method === undefined && fields.id !== undefined ? 'response' : 'other';
}
