/** A line for the operator: on stderr where there is a process (Node, Bun, Deno), else the console (Workers). */
export function writeStderr(line: string): void {
  const stderr = (globalThis as { process?: { stderr?: { write?: (text: string) => unknown } } }).process?.stderr;
  if (typeof stderr?.write === 'function') stderr.write(`${line}\n`);
  else console.error(line);
}
