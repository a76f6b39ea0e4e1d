import type { Readable, Writable } from 'node:stream';

/** The pipes of a server process, as the session uses them. */
export interface ServerPipes {
  stdin: Writable;
  stdout: Readable;
}

type Message = Record<string, unknown>;

/** Ids of replayed requests start with this, unlike any id a client picks in practice. */
export const REPLAY_PREFIX = 'typemcp-dev-replay';
const REPLAY_INITIALIZE = `${REPLAY_PREFIX}-initialize`;
const LIST_KINDS = ['tools', 'prompts', 'resources'] as const;
const INTERNAL_ERROR = -32603;

/**
 * The client's side of a stdio conversation, kept across server restarts: the client talks to
 * this object, which forwards to the current server process. A new process gets the client's
 * `initialize` and `notifications/initialized` again (their answers stay here), then its log
 * level and resource subscriptions; the client is then told that the lists the server declared
 * with `listChanged` may have changed.
 */
export class StdioSession {
  /** The client's initialize, once a server accepted it. */
  private initialize: Message | undefined;
  /** The client's initialize, while a server has it unanswered. */
  private initializing: Message | undefined;
  private initialized = false;
  private logLevel: Message | undefined;
  private readonly subscriptions = new Map<string, Message>();
  private readonly listsDeclared = new Set<string>();
  /** Ids (as JSON) of client requests the current server has not answered yet. */
  private readonly inFlight = new Map<string, unknown>();
  private server: ServerPipes | undefined;
  /** Client lines held while a server is being started or brought up to date. */
  private held: string[] | undefined = [];
  /** Why no server is running, while none is. */
  private down: string | undefined;
  private replayed = 0;

  constructor(
    input: Readable,
    private readonly output: Writable,
    onClientEnd: () => void,
  ) {
    readLines(input, (line) => this.fromClient(line), () => {
      this.server?.stdin.end();
      onClientEnd();
    });
  }

  /** A restart begins: client messages wait for the new server. */
  pause(): void {
    this.held ??= [];
  }

  /** A new server process: bring it up to date with the session, then let the client through. */
  attach(server: ServerPipes): void {
    this.server = server;
    this.down = undefined;
    server.stdin.on('error', () => undefined);
    readLines(server.stdout, (line) => this.fromServer(line, server), () => undefined);
    // Requests the previous process never answered get an error instead of hanging.
    this.failInFlight('The server restarted before answering');
    if (!this.initialize) {
      this.release();
      return;
    }
    this.held ??= [];
    this.send(server, { ...this.initialize, id: REPLAY_INITIALIZE });
  }

  /** The server exited by itself: what waits for it gets an error, and so do requests until the next one. */
  detach(server: ServerPipes, reason: string): void {
    if (server !== this.server) return;
    this.server = undefined;
    this.down = reason;
    this.failInFlight(`The server exited before answering (${reason})`);
    this.release();
  }

  private fromClient(line: string): void {
    if (this.held) this.held.push(line);
    else this.route(line);
  }

  private route(line: string): void {
    const messages = parse(line);
    if (this.server) {
      for (const message of messages) {
        this.remember(message);
        if (isRequest(message)) this.inFlight.set(JSON.stringify(message.id), message.id);
      }
      this.server.stdin.write(`${line}\n`);
      return;
    }
    for (const message of messages) {
      if (isRequest(message)) this.toClient({ jsonrpc: '2.0', id: message.id, error: { code: INTERNAL_ERROR, message: `The server is not running (${this.down}); save a change to restart it` } });
    }
  }

  /** The parts of the session a new server process must be told again. */
  private remember(message: Message): void {
    const params = (message.params ?? {}) as { uri?: unknown };
    switch (message.method) {
      case 'initialize':
        // The session exists once a server accepts it.
        this.initializing = message;
        break;
      case 'notifications/initialized':
        this.initialized = true;
        break;
      case 'logging/setLevel':
        this.logLevel = message;
        break;
      case 'resources/subscribe':
        this.subscriptions.set(String(params.uri), message);
        break;
      case 'resources/unsubscribe':
        this.subscriptions.delete(String(params.uri));
        break;
    }
  }

  private fromServer(line: string, from: ServerPipes): void {
    if (from !== this.server) return;
    const messages = parse(line);
    for (const message of messages) {
      if (!isResponse(message)) continue;
      if (typeof message.id === 'string' && message.id.startsWith(REPLAY_PREFIX)) {
        // Answers to replayed requests are the session's business, not the client's.
        if (message.id === REPLAY_INITIALIZE) this.caughtUp(from);
        return;
      }
      this.inFlight.delete(JSON.stringify(message.id));
      if (this.initializing && JSON.stringify(message.id) === JSON.stringify(this.initializing.id)) this.accepted(this.initializing, message);
    }
    this.output.write(`${line}\n`);
  }

  /** The server answered the client's initialize: with a result, the session exists. */
  private accepted(initialize: Message, answer: Message): void {
    this.initializing = undefined;
    const result = answer.result as { capabilities?: Record<string, { listChanged?: boolean } | undefined> } | undefined;
    if (!result) return;
    this.initialize = initialize;
    for (const kind of LIST_KINDS) if (result.capabilities?.[kind]?.listChanged) this.listsDeclared.add(kind);
  }

  /** The new server answered the replayed initialize: finish its handshake, restore the session, refresh the client. */
  private caughtUp(server: ServerPipes): void {
    if (this.initialized) this.send(server, { jsonrpc: '2.0', method: 'notifications/initialized' });
    for (const request of [this.logLevel, ...this.subscriptions.values()]) {
      if (request) this.send(server, { ...request, id: `${REPLAY_PREFIX}-${++this.replayed}` });
    }
    this.release();
    for (const kind of this.listsDeclared) this.toClient({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` });
  }

  /** Lets held client messages through, in order. */
  private release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const line of held) this.route(line);
  }

  private failInFlight(text: string): void {
    for (const id of this.inFlight.values()) this.toClient({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: text } });
    this.inFlight.clear();
  }

  private send(server: ServerPipes, message: Message): void {
    server.stdin.write(`${JSON.stringify(message)}\n`);
  }

  private toClient(message: Message): void {
    this.output.write(`${JSON.stringify(message)}\n`);
  }
}

/** The messages of one line: one, a batch, or none when it is not JSON (the server answers that). */
function parse(line: string): Message[] {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return [];
  }
  return (Array.isArray(value) ? value : [value]).filter((m): m is Message => typeof m === 'object' && m !== null && !Array.isArray(m));
}

function isRequest(message: Message): boolean {
  return typeof message.method === 'string' && 'id' in message;
}

function isResponse(message: Message): boolean {
  return !('method' in message) && 'id' in message;
}

/** Calls `onLine` for each non-empty line of a stream (newline-delimited JSON-RPC). */
function readLines(stream: Readable, onLine: (line: string) => void, onEnd: () => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
      if (line.trim()) onLine(line);
    }
  });
  stream.on('end', () => {
    if (buffered.trim()) onLine(buffered);
    onEnd();
  });
}
