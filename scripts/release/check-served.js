#!/usr/bin/env node
// The official SDK client against a project made by `npm create typemcp` and built: its entry
// served over stdio, then over HTTP on 127.0.0.1 (a port of the system's choosing); lists the
// tools and calls one each way. Exits non-zero on the first thing that differs.
const path = require('node:path');
const { spawn } = require('node:child_process');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const project = path.resolve(process.argv[2] ?? '.');
const entry = path.join(project, 'dist', 'main.js');

async function exercise(transport, how) {
  const client = new Client({ name: 'release-check', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).join(',');
    if (names !== 'add_note,read_note') throw new Error(`${how}: tools ${names}, expected add_note,read_note`);
    const added = await client.callTool({ name: 'add_note', arguments: { title: 'Released', body: how } });
    const text = added.content?.[0]?.text;
    if (!/^Saved note \d+: Released$/.test(text ?? '')) throw new Error(`${how}: add_note answered ${JSON.stringify(added)}`);
    process.stderr.write(`== ${how}: ${client.getServerVersion()?.name} lists ${names} and saved a note\n`);
  } finally {
    await client.close();
  }
}

async function overHttp() {
  const child = spawn(process.execPath, [entry, '--http'], { cwd: project, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await new Promise((resolve, reject) => {
      let stderr = '';
      const timer = setTimeout(() => reject(new Error(`no URL within 30 s: ${stderr}`)), 30_000);
      child.stderr.setEncoding('utf8').on('data', (chunk) => {
        stderr += chunk;
        const found = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr);
        if (found) {
          clearTimeout(timer);
          resolve(found[0]);
        }
      });
      child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${stderr}`)));
    });
    await exercise(new StreamableHTTPClientTransport(new URL(url)), `HTTP at ${url}`);
  } finally {
    child.kill('SIGTERM');
  }
}

(async () => {
  await exercise(new StdioClientTransport({ command: process.execPath, args: [entry, '--stdio'], cwd: project, stderr: 'ignore' }), 'stdio');
  await overHttp();
})().catch((error) => {
  process.stderr.write(`check-served: ${error.message}\n`);
  process.exit(1);
});
