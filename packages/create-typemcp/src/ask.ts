import type { RuntimeChoice, TransportChoice } from './scaffold';

/** What the questions decide: the same as the options of the command line. */
export interface Answers {
  directory: string;
  runtime: RuntimeChoice;
  transport: TransportChoice;
  signIn: boolean;
  /** Include the example tools (the notes server); false: a minimal server with one `hello` tool. */
  examples: boolean;
  install: boolean;
}

/**
 * Whether to ask: only a person at a terminal (stdin and stdout TTYs) who gave no option at
 * all. Any option, `--yes` among them, means the command line says what to make, and a run
 * without a terminal (CI, a script, a pipe) never waits for an answer.
 */
export function shouldAsk(argv: string[], stdin: { isTTY?: boolean }, stdout: { isTTY?: boolean }): boolean {
  return stdin.isTTY === true && stdout.isTTY === true && !argv.some((arg) => arg.startsWith('-'));
}

/** Asks what to make, at a terminal; undefined when the person cancels (Ctrl+C, Escape). */
export async function ask(directory: string | undefined): Promise<Answers | undefined> {
  // @clack/prompts is an ES module: loaded when there is something to ask, and only then.
  const prompts = await import('@clack/prompts');
  prompts.intro('create-typemcp: a TypeMCP server project');
  const folder =
    directory ??
    (await prompts.text({
      message: 'Folder to create the project in',
      placeholder: 'my-server',
      defaultValue: 'my-server',
      validate: (value) => (value !== undefined && /\s$|^\s/.test(value) ? 'no spaces around the name' : undefined),
    }));
  if (prompts.isCancel(folder)) return cancelled(prompts);
  const runtime = await prompts.select<RuntimeChoice>({
    message: 'Where does the server run?',
    initialValue: 'node',
    options: [
      { value: 'node', label: 'Node', hint: 'stdio or Streamable HTTP' },
      { value: 'bun', label: 'Bun', hint: 'Bun.serve' },
      { value: 'deno', label: 'Deno', hint: 'Deno.serve' },
      { value: 'workers', label: 'Cloudflare Workers', hint: 'Streamable HTTP on workerd' },
    ],
  });
  if (prompts.isCancel(runtime)) return cancelled(prompts);
  let signIn: boolean = false;
  if (runtime === 'node') {
    const answer = await prompts.confirm({ message: 'Serve over HTTP behind its own OAuth sign-in (a development login)?', initialValue: false });
    if (prompts.isCancel(answer)) return cancelled(prompts);
    signIn = answer;
  }
  let transport: TransportChoice = 'http';
  if (!signIn && runtime !== 'workers') {
    const answer = await prompts.select<TransportChoice>({
      message: 'Which transport does it serve by default?',
      initialValue: 'stdio',
      options: [
        { value: 'stdio', label: 'stdio', hint: 'a client starts it' },
        { value: 'http', label: 'Streamable HTTP', hint: 'clients connect to a URL' },
      ],
    });
    if (prompts.isCancel(answer)) return cancelled(prompts);
    transport = answer;
  }
  const examples = await prompts.confirm({ message: 'Include the example tools? (no: one hello tool to start from)', initialValue: true });
  if (prompts.isCancel(examples)) return cancelled(prompts);
  const install = await prompts.confirm({ message: 'Install the dependencies now?', initialValue: true });
  if (prompts.isCancel(install)) return cancelled(prompts);
  prompts.outro('Creating it.');
  return { directory: folder, runtime, transport, signIn, examples, install };
}

function cancelled(prompts: { cancel(message?: string): void }): undefined {
  prompts.cancel('Cancelled: nothing was created.');
  return undefined;
}
