/**
 * Status output on stderr. Colour and progress lines only for a person at a terminal: stderr
 * is a TTY, NO_COLOR is unset and TERM is not "dumb"; plain lines when piped or logged.
 */
export interface Output {
  /** Whether colour and progress are shown. */
  readonly interactive: boolean;
  info(text: string): void;
  error(text: string): void;
  /** A transient line (what is running now), replaced by the next line; nothing when not interactive. */
  progress(text: string): void;
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
}

const CLEAR_LINE = '\r\u001b[2K';

export function createOutput(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): Output {
  const interactive = stream.isTTY === true && !('NO_COLOR' in env) && env.TERM !== 'dumb';
  const paint = (code: number, reset: number) => (text: string) => (interactive ? `\u001b[${code}m${text}\u001b[${reset}m` : text);
  const red = paint(31, 39);
  const dim = paint(2, 22);
  let pending = false;
  const write = (text: string) => {
    stream.write(pending ? `${CLEAR_LINE}${text}` : text);
    pending = false;
  };
  return {
    interactive,
    info: (text) => write(`${text}\n`),
    error: (text) => write(`${red('error')} ${text}\n`),
    progress: (text) => {
      if (!interactive) return;
      write(dim(`${text}…`));
      pending = true;
    },
    bold: paint(1, 22),
    dim,
    green: paint(32, 39),
    red,
  };
}
