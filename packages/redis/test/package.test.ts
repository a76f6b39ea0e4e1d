/**
 * @typemcp/redis as users get it: packed with @typemcp/core (each prepack builds its package),
 * installed outside the repository with ioredis from the registry, and run from plain
 * JavaScript against a real redis-server: two replicas sharing one session.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { outsideEnv, runOutside } from '../../../test-support/outsideRepository';
import { startRedis } from '../../../test-support/redisServer';
import type { RedisServer } from '../../../test-support/redisServer';

jest.setTimeout(180_000);

const packagesDir = path.resolve(__dirname, '..', '..');
let workDir: string;
let projectDir: string;
let redisFiles: string[];
let redisServer: RedisServer;

function pack(name: string, into: string): { tarball: string; files: string[] } {
  const output = runOutside('npm', ['pack', '--json', '--pack-destination', into], path.join(packagesDir, name));
  const [packed] = JSON.parse(output.slice(output.indexOf('['), output.lastIndexOf(']') + 1)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: path.join(into, path.basename(packed.filename)), files: packed.files.map((f) => f.path) };
}

beforeAll(async () => {
  redisServer = await startRedis();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-redis-package-'));
  const packDir = path.join(workDir, 'tarballs');
  fs.mkdirSync(packDir);
  const core = pack('core', packDir);
  const redisPacked = pack('redis', packDir);
  redisFiles = redisPacked.files;
  projectDir = path.join(workDir, 'project');
  fs.mkdirSync(projectDir);
  fs.writeFileSync(path.join(projectDir, 'package.json'), JSON.stringify({ name: 'packed-redis-project', private: true, type: 'commonjs' }));
  runOutside('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', core.tarball, redisPacked.tarball, 'reflect-metadata@0.2.2', 'tsyringe@4.10.0', 'class-validator@0.15.1', 'class-transformer@0.5.1'], projectDir);
  fs.copyFileSync(path.join(__dirname, 'package', 'server.js'), path.join(projectDir, 'server.js'));
});

afterAll(async () => {
  await redisServer?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

it('ships the built entry point with its declarations, and no tests', () => {
  expect(redisFiles).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/RedisTaskStore.js']));
  expect(redisFiles.filter((f) => /(^|\/)test\/|\.test\.[jt]s$|\.tsbuildinfo$/.test(f))).toEqual([]);
  const installed = JSON.parse(fs.readFileSync(path.join(projectDir, 'node_modules', 'ioredis', 'package.json'), 'utf8')) as { version: string };
  expect(installed.version).toBe('6.0.0');
});

it('runs two replicas of a plain-JS server on one Redis: a session opened on one is served by the other, and the process exits by itself', () => {
  const result = spawnSync(process.execPath, ['server.js'], { cwd: projectDir, env: { ...outsideEnv(), REDIS_URL: redisServer.url }, encoding: 'utf8', timeout: 30_000 });
  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
  expect(JSON.parse(result.stdout.trim())).toEqual({ serverInfo: { name: 'packed-redis', version: '1.0.0' }, session: 'string', text: 'echo across', stored: true });
});
