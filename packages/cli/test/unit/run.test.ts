import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from '../../src/run';
import { createOutput } from '../../src/output';

/** Runs a command line in this process, collecting stdout and stderr. */
async function runHere(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const stream = { isTTY: false, write: (text: string) => ((stderr += text), true) } as unknown as NodeJS.WriteStream;
  const status = await run(argv, createOutput(stream, {}), (text) => (stdout += text));
  return { status, stdout, stderr };
}

describe('run', () => {
  it('prints the usage, each command’s help and the version', async () => {
    expect(await runHere(['--help'])).toMatchObject({ status: 0, stdout: expect.stringContaining('Usage: typemcp <command> [options]') });
    for (const command of ['dev', 'inspect', 'call', 'build', 'client']) {
      const help = await runHere([command, '--help']);
      expect(help).toMatchObject({ status: 0, stdout: expect.stringContaining(`Usage: typemcp ${command}`) });
      expect(await runHere(['help', command])).toEqual(help);
    }
    expect((await runHere(['dev', '-h'])).stdout).toContain('--no-watch');
    expect((await runHere(['dev', '-h'])).stdout).toContain('--inspect              start the MCP Inspector');
    const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(await runHere(['--version'])).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });

  it.each([
    [[], 'Usage: typemcp <command>'],
    [['deploy'], 'error unknown command "deploy"; the commands are dev, inspect, call, build, ui, registry, client\nRun typemcp --help for the commands.'],
    [['help', 'deploy'], 'unknown command "deploy"'],
    [['inspect', '--colour'], 'error unknown option --colour for typemcp inspect; its options are --json, --protocol <value>, --principal <value>, --scopes <value>, --roles <value>, --token <value>, --header <value>\nRun typemcp inspect --help for its options.'],
    [['build', '-x'], 'unknown option -x for typemcp build; its options are --target <value>, --no-precompile, --metafile, --outfile <value>, --minify, --sourcemap, --snapshot, --no-tsc'],
    [['build', '--target', 'lambda'], 'unknown --target "lambda": use node, bun, deno, workers'],
    [['build', '--target', 'bun', '--snapshot'], '--snapshot is for --target node; bun has no startup snapshots'],
    [['build', '--target', 'workers', '--no-precompile'], '--no-precompile cannot build for workers: Workers forbid compiling validators at run time'],
    [['call', 'hello', '--args'], '--args needs a value: --args <value>'],
    [['inspect', '--json=yes'], '--json takes no value'],
    [['inspect', 'a.ts', 'b.ts'], 'unexpected argument "b.ts"'],
    [['dev', '--stdio', '--http'], 'choose one of --stdio and --http'],
    [['dev', '--http', '--port', 'x'], '--port must be a number from 0 to 65535, not "x"'],
    [['dev', '--http', '--port', '70000'], '--port must be a number from 0 to 65535, not "70000"'],
    [['dev', '--port', '3000'], '--port applies to --http: typemcp dev --http --port N'],
    [['dev', '--http', '--inspect'], '--inspect connects the Inspector to a stdio server through typemcp dev; leave out --http'],
    [['dev', 'missing.ts'], 'missing.ts does not exist'],
    [['inspect', '--protocol', '2027-01-01'], '--protocol must be one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, not "2027-01-01"'],
    [['inspect', 'dist/main.js'], 'dist/main.js does not exist; build the project first (npm run build), or run the source: src/main.ts'],
    [['call'], "the tool to call is missing: typemcp call <tool> [--args '{...}']"],
    [['call', 'hello', 'a.ts', '--entry', 'b.ts'], 'give the entry either as an argument or with --entry, not both'],
    [['call', 'hello', '--args', '[1]'], '--args must be a JSON object'],
    [['call', 'hello', '--args', '{"name":'], '--args is not valid JSON: '],
    [['client'], 'the action is missing: typemcp client generate [entry | url]'],
    [['client', 'make'], 'unknown client action "make": use generate'],
    [['client', 'generate', 'a.ts', 'b.ts'], 'unexpected argument "b.ts"'],
    [['client', 'generate', '-o'], '--output needs a value: --output <value>'],
    [['client', 'generate', '--out', 'x.ts'], 'unknown option --out for typemcp client; its options are --output <value>, --protocol <value>, --principal <value>'],
    [['client', 'generate', 'missing.ts'], 'missing.ts does not exist'],
  ])('%j exits with 2: %s', async (argv, message) => {
    const result = await runHere(argv);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('names the JSON parser’s complaint about --args', async () => {
    const { stderr } = await runHere(['call', 'hello', '--args', "{name:'x'}"]);
    let parserMessage = '';
    try {
      JSON.parse("{name:'x'}");
    } catch (error) {
      parserMessage = (error as Error).message;
    }
    expect(stderr).toContain(`--args is not valid JSON: ${parserMessage}`);
  });

  it('checks that a build has a tsconfig.json before running tsc', async () => {
    const cwd = process.cwd();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-run-'));
    try {
      process.chdir(dir);
      const result = await runHere(['build']);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain(`there is no tsconfig.json in ${fs.realpathSync(dir)}: run typemcp build in the project's folder, or pass --no-tsc`);
    } finally {
      process.chdir(cwd);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
