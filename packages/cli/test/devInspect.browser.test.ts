/**
 * `typemcp dev --inspect` as a developer uses it: the official MCP Inspector's web UI (run
 * through npx on Node 22, as the command runs it) opens connected to the server, in headless
 * Chromium. A tool is called from the page, the server's source is edited, and the changed
 * tool is called from the same page without reconnecting: the Inspector hears the new list
 * and the new server answers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../../test-support/appsHost';
import { INSPECTOR_COMMAND } from '../src/commands/inspectorWeb';
import { buildCli, cliBin, copyFixture } from './support';

const STEP_MS = 20_000;

let browser: Browser;
let npmCache: string;
beforeAll(async () => {
  buildCli();
  // npx fetches Node 22 and the Inspector once into npm's cache; the test's own time starts after.
  npmCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
  const [npx, ...args] = INSPECTOR_COMMAND;
  const warm = spawnSync(npx, [...args, '--cli', '--help'], { encoding: 'utf8', timeout: 240_000, env: { ...process.env, npm_config_loglevel: 'error' } });
  if (warm.status !== 0) throw new Error(`npx could not run the Inspector:\n${warm.stdout}${warm.stderr}`);
  browser = await launchChromium();
}, 300_000);
afterAll(async () => {
  await browser?.close();
});

describe('typemcp dev --inspect', () => {
  let dir: string;
  let home: string;
  let dev: ChildProcess | undefined;
  let page: Page | undefined;
  afterEach(async () => {
    await page?.close();
    if (dev && dev.exitCode === null && dev.signalCode === null) {
      // TERM, which the command passes on to the server and the Inspector; KILL if it hangs.
      const exited = new Promise((resolve) => dev!.once('exit', resolve));
      dev.kill('SIGTERM');
      const timer = setTimeout(() => dev!.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    for (const folder of [dir, home]) if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('opens the Inspector connected to the server; after an edit the page calls the changed tool without reconnecting', async () => {
    dir = copyFixture('cjs');
    // The Inspector keeps its servers and settings under HOME: one of this test's own; npm's cache stays where npx filled it.
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-inspect-home-'));
    dev = spawn(process.execPath, [cliBin, 'dev', 'server.ts', '--inspect'], { cwd: dir, env: { ...process.env, NO_COLOR: '1', HOME: home, npm_config_cache: npmCache } });
    let stderr = '';
    dev.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const stderrShows = async (pattern: RegExp, timeoutMs = STEP_MS) => {
      for (const start = Date.now(); !pattern.test(stderr); await new Promise((r) => setTimeout(r, 50))) {
        if (Date.now() - start > timeoutMs) throw new Error(`typemcp dev printed no ${pattern} within ${timeoutMs} ms:\n${stderr}`);
      }
      return pattern.exec(stderr)!;
    };

    const [, url] = await stderrShows(/MCP Inspector connected to server\.ts: (http:\/\/127\.0\.0\.1:\d+\/\S+)/, 60_000);
    const inspectorOrigin = new URL(url).origin;
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(url, { timeout: STEP_MS });
    // Connected as the page opens: no switch to flip, no command to type.
    await page.getByText('Connected', { exact: true }).waitFor({ timeout: STEP_MS });
    await stderrShows(/\[typemcp dev\] mcp-inspector 2\.12\.0 connected\n/);

    await page.getByText('Tools', { exact: true }).first().click({ timeout: STEP_MS });
    const tools = page.locator('button[data-variant="listItem"]');
    const heading = page.getByRole('heading', { name: /^Tools \(\d+\)$/ });
    await heading.waitFor({ timeout: STEP_MS });
    expect((await tools.allTextContents()).map((name) => name.trim())).toEqual(['hello', 'fail']);

    const callHello = async (name: string, answer: string) => {
      await tools.filter({ hasText: /^hello$/ }).click({ timeout: STEP_MS });
      await page!.getByLabel(/^name/).fill(name, { timeout: STEP_MS });
      await page!.getByRole('button', { name: 'Execute Tool' }).click({ timeout: STEP_MS });
      await page!.getByText(answer, { exact: true }).waitFor({ timeout: STEP_MS });
    };
    await callHello('Inspector', 'Hello, Inspector!');
    await page.getByRole('button', { name: 'Close results' }).click({ timeout: STEP_MS });

    // An edit: the greeting changes and the tool fail is renamed.
    fs.writeFileSync(path.join(dir, 'greeting.ts'), 'export function greeting(name: string): string {\n  return `Howdy, ${name}!`;\n}\n');
    const source = path.join(dir, 'server.ts');
    fs.writeFileSync(source, fs.readFileSync(source, 'utf8').replace("description: 'Always fails'", "name: 'fail_again', description: 'Always fails'"));
    await stderrShows(/change detected, restarting server\.ts/);
    // The Inspector heard tools/list_changed on the same connection: it says so and lists them anew on Refresh.
    await page.getByText('List updated', { exact: true }).waitFor({ timeout: STEP_MS });
    await page.getByRole('button', { name: 'Refresh' }).click({ timeout: STEP_MS });
    await tools.filter({ hasText: /^fail_again$/ }).waitFor({ timeout: STEP_MS });
    expect((await tools.allTextContents()).map((name) => name.trim())).toEqual(['hello', 'fail_again']);
    await callHello('again', 'Howdy, again!');
    // Still connected (the header offers to disconnect), in one conversation: the Inspector never initialized a second time.
    await page.getByRole('button', { name: 'Disconnect from server' }).waitFor({ timeout: STEP_MS });
    expect(stderr.match(/\] mcp-inspector 2\.12\.0 connected\n/g)).toHaveLength(1);

    // Ctrl+C ends the command, the server and the Inspector.
    const exited = new Promise<number | null>((resolve) => dev!.once('exit', (code) => resolve(code)));
    dev.kill('SIGINT');
    expect(await exited).toBe(130);
    await expect(fetch(inspectorOrigin)).rejects.toThrow();
  }, 90_000);
});
