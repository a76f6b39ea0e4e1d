import { createOutput } from '../../src/output';

/** A stream that records what is written to it. */
function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (text: string) => written.push(text) > 0 } as unknown as NodeJS.WriteStream };
}

describe('createOutput', () => {
  it('colours a terminal', () => {
    const out = createOutput(stream(true).stream, {});
    expect(out.interactive).toBe(true);
    expect(out.green('ok')).toBe('\u001b[32mok\u001b[39m');
    expect(out.bold('b')).toBe('\u001b[1mb\u001b[22m');
  });

  it.each([
    ['piped', false, {}],
    ['NO_COLOR set', true, { NO_COLOR: '' }],
    ['TERM=dumb', true, { TERM: 'dumb' }],
  ])('stays plain when %s', (_case, isTTY, env) => {
    const { stream: s, written } = stream(isTTY);
    const out = createOutput(s, env);
    expect(out.interactive).toBe(false);
    expect(out.green('ok')).toBe('ok');
    out.progress('compiling');
    out.error('broken');
    expect(written).toEqual(['error broken\n']);
  });

  it('shows progress on a terminal and replaces it with the next line', () => {
    const { stream: s, written } = stream(true);
    const out = createOutput(s, {});
    out.progress('compiling');
    out.progress('bundling');
    out.info('built');
    expect(written).toEqual(['\u001b[2mcompiling…\u001b[22m', '\r\u001b[2K\u001b[2mbundling…\u001b[22m', '\r\u001b[2Kbuilt\n']);
  });
});
