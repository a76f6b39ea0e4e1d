/** Status output on stderr: coloured when it is a terminal and NO_COLOR is unset, plain when piped. */
export interface Output {
  readonly colour: boolean;
  info(text: string): void;
  error(text: string): void;
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
}

export function createOutput(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): Output {
  const colour = stream.isTTY === true && !('NO_COLOR' in env) && env.TERM !== 'dumb';
  const paint = (code: number, reset: number) => (text: string) => (colour ? `\u001b[${code}m${text}\u001b[${reset}m` : text);
  const red = paint(31, 39);
  return {
    colour,
    info: (text) => void stream.write(`${text}\n`),
    error: (text) => void stream.write(`${red('error')} ${text}\n`),
    bold: paint(1, 22),
    dim: paint(2, 22),
    green: paint(32, 39),
    red,
  };
}
