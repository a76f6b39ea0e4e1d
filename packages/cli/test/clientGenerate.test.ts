import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { buildCli, repoRoot, runCli } from './support';

jest.setTimeout(60_000);
beforeAll(buildCli);

const weather = path.join(repoRoot, 'examples', '01-weather', 'src', 'main.ts');
/** The module test/unit/client/typed.test.ts keeps equal to the generator's output. */
const fixture = fs.readFileSync(path.join(__dirname, 'types', 'weatherTools.ts'), 'utf8');

describe('typemcp client generate', () => {
  it('writes the module of a server it starts to the file -o names', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-generate-'));
    try {
      const file = path.join(dir, 'src', 'weather.tools.ts');
      const result = runCli(['client', 'generate', weather, '-o', file]);
      expect(result).toMatchObject({ status: 0, stdout: '', stderr: `wrote the types of 3 tools to ${file}\n` });
      expect(fs.readFileSync(file, 'utf8')).toBe(fixture);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints the module of a server at a URL, in 2026-07-28 too', async () => {
    const server = spawn(process.execPath, ['-r', path.join(repoRoot, 'packages', 'cli', 'dist', 'register', 'cjs.js'), weather], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      let stderr = '';
      server.stderr!.setEncoding('utf8');
      const url = await new Promise<string>((resolve, reject) => {
        server.stderr!.on('data', (chunk: string) => {
          stderr += chunk;
          const found = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
          if (found) resolve(found[1]);
        });
        server.once('exit', () => reject(new Error(`the server exited: ${stderr}`)));
      });
      expect(runCli(['client', 'generate', url])).toMatchObject({ status: 0, stdout: fixture });
      expect(runCli(['client', 'generate', url, '--protocol', '2026-07-28'])).toMatchObject({ status: 0, stdout: fixture });
    } finally {
      server.kill('SIGTERM');
      if (server.exitCode === null) await once(server, 'exit');
    }
  });
});
