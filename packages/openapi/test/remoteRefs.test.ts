import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { fromOpenApi } from '@typemcp/openapi';
import { cleanUp, connect, dirs, document, json, post, redirect, startHttp } from './httpServer';
import type { Handler } from './httpServer';

afterEach(cleanUp);

describe('refs of a document read over HTTP', () => {
  /** Serves `files` (path → JSON value); records what is asked. */
  const serveSpecs = (files: Record<string, unknown>, special: Record<string, Handler> = {}) =>
    startHttp((request, response, body) => {
      const url = request.url ?? '';
      if (special[url]) return special[url](request, response, body);
      if (url in files) return json(response, files[url]);
      json(response, { missing: url }, 404);
    });

  it('reads only the external refs the served operations use', async () => {
    const specs = await serveSpecs({
      '/api/openapi.json': document(
        { '/notes': post('save', { $ref: 'models.json#/Note' }), '/admin': post('admin', { $ref: 'admin.json#/Secret' }) },
        { servers: [{ url: 'https://api.example.com' }], components: { schemas: { Unused: { $ref: 'unused.json#/U' } } } },
      ),
      '/api/models.json': { Note: { type: 'object', properties: { text: { $ref: 'text.json' } } } },
      '/api/text.json': { type: 'string', maxLength: 10 },
      '/api/admin.json': { Secret: { type: 'object' } },
      '/api/unused.json': { U: { type: 'object' } },
    });
    const client = await connect({ spec: `${specs.url}/api/openapi.json`, rules: [{ path: '/admin', as: 'exclude' }] });
    const [tool] = await client.listTools();
    expect(tool.inputSchema).toMatchObject({ properties: { body: { type: 'object', properties: { text: { type: 'string', maxLength: 10 } } } } });
    expect(specs.seen.map((seen) => seen.url)).toEqual(['/api/openapi.json', '/api/models.json', '/api/text.json']);
  });

  it('refuses a file: ref in a document read over HTTP, and reads no file', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'typemcp-openapi-refused-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'secret.json'), JSON.stringify({ Secret: { type: 'object', description: 'the contents of a local file' } }));
    const file = pathToFileURL(path.join(dir, 'secret.json')).href;
    const ref = `${file}#/Secret`;
    const specs = await serveSpecs({ '/openapi.json': document({ '/notes': post('save', { $ref: ref }) }, { servers: [{ url: 'https://api.example.com' }] }) });
    await expect(fromOpenApi({ spec: `${specs.url}/openapi.json` })).rejects.toThrow(
      `@typemcp/openapi: cannot read the $ref "${ref}" in ${specs.url}/openapi.json: ${file} is a local file, which a document read over http(s) may not name: refused`,
    );
  });

  it('refuses a ref to another origin (here a loopback address) unless allowRef allows it', async () => {
    const internal = await startHttp((_request, response) => json(response, { type: 'object', description: 'from the internal service' }));
    const ref = `http://127.0.0.1:${internal.port}/schema.json`;
    const specs = await serveSpecs({ '/openapi.json': document({ '/notes': post('save', { $ref: ref }) }, { servers: [{ url: 'https://api.example.com' }] }) });
    await expect(fromOpenApi({ spec: `${specs.url}/openapi.json` })).rejects.toThrow(
      `@typemcp/openapi: cannot read the $ref "${ref}" in ${specs.url}/openapi.json: ${ref} is on another origin than the document, and a loopback address: refused (allowRef decides which other origins a ref may name)`,
    );
    expect(internal.seen).toEqual([]);
    const asked: string[] = [];
    const client = await connect({
      spec: `${specs.url}/openapi.json`,
      allowRef: (url, from) => {
        asked.push(`${url} from ${from}`);
        return url === ref;
      },
    });
    expect((await client.listTools())[0].inputSchema).toMatchObject({ properties: { body: { description: 'from the internal service' } } });
    expect(asked).toEqual([`${ref} from ${specs.url}/openapi.json`]);
  });

  it('judges a ref by its origin as the URL parser writes it: another spelling of the same host and port is the same origin; other hosts are not', async () => {
    const files: Record<string, unknown> = {};
    const specs = await serveSpecs(files);
    const { port } = specs;
    const serving = (name: string, ref: string) => {
      files[`/${name}.json`] = document({ '/notes': post('save', { $ref: ref }) }, { servers: [{ url: 'https://api.example.com' }] });
      return `${specs.url}/${name}.json`;
    };
    files['/schema.json'] = { type: 'object', description: 'from the same origin' };
    const client = await connect({ spec: serving('hexadecimal', `http://0x7f.1:${port}/schema.json`) });
    expect((await client.listTools())[0].inputSchema).toMatchObject({ properties: { body: { description: 'from the same origin' } } });
    const refused: Array<[string, string]> = [
      [`http://[::ffff:127.0.0.1]:${port}/schema.json`, `http://[::ffff:7f00:1]:${port}/schema.json is on another origin than the document, and a loopback address: refused`],
      [`http://localhost.:${port}/schema.json`, `http://localhost.:${port}/schema.json is on another origin than the document, and a loopback address: refused`],
      [`http://[::1]:${port}/schema.json`, `http://[::1]:${port}/schema.json is on another origin than the document, and a loopback address: refused`],
      [`https://127.0.0.1:${port}/schema.json`, `https://127.0.0.1:${port}/schema.json is on another origin than the document, and a loopback address: refused`],
      ['http://169.254.169.254/latest/meta-data', 'http://169.254.169.254/latest/meta-data is on another origin than the document, and a link-local address: refused'],
      ['http://10.1.2.3/schema.json', 'http://10.1.2.3/schema.json is on another origin than the document, and a private address: refused'],
      ['https://schemas.example.com/schema.json', 'https://schemas.example.com/schema.json is on another origin than the document: refused'],
    ];
    for (const [i, [ref, why]] of refused.entries()) await expect(fromOpenApi({ spec: serving(`doc${i}`, ref) })).rejects.toThrow(why);
    expect(specs.seen.filter((seen) => seen.url === '/schema.json')).toHaveLength(1);
  });

  it('refuses the document itself redirecting to another origin, and follows it within its origin', async () => {
    const other = await startHttp((_request, response) => json(response, document({})));
    const specs = await serveSpecs(
      { '/v2/openapi.json': document({ '/notes': post('save') }, { servers: [{ url: 'https://api.example.com' }] }) },
      {
        '/moved.json': (_request, response) => redirect(response, 301, '/v2/openapi.json'),
        '/away.json': (_request, response) => redirect(response, 302, `${other.url}/openapi.json`),
      },
    );
    const client = await connect({ spec: `${specs.url}/moved.json` });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['save']);
    await expect(fromOpenApi({ spec: `${specs.url}/away.json` })).rejects.toThrow(
      `@typemcp/openapi: cannot read ${specs.url}/away.json: it redirects to ${other.url}/openapi.json, which is on another origin than the document, and a loopback address: refused`,
    );
    expect(other.seen).toEqual([]);
  });

  it('refuses a ref whose document redirects to another origin', async () => {
    const internal = await startHttp((_request, response) => json(response, { type: 'object' }));
    const specs = await serveSpecs(
      { '/openapi.json': document({ '/notes': post('save', { $ref: 'moved.json' }) }, { servers: [{ url: 'https://api.example.com' }] }) },
      { '/moved.json': (_request, response) => redirect(response, 302, `${internal.url}/schema.json`) },
    );
    await expect(fromOpenApi({ spec: `${specs.url}/openapi.json` })).rejects.toThrow(
      `cannot read the $ref "moved.json" in ${specs.url}/openapi.json: ${specs.url}/moved.json redirects to ${internal.url}/schema.json, which is on another origin than the document, and a loopback address: refused`,
    );
    expect(internal.seen).toEqual([]);
  });

  it('gives up on a ref that does not answer, or answers too slowly, within timeoutMs', async () => {
    const specs = await serveSpecs(
      {
        '/silent/openapi.json': document({ '/notes': post('save', { $ref: 'silent.json' }) }, { servers: [{ url: 'https://api.example.com' }] }),
        '/slow/openapi.json': document({ '/notes': post('save', { $ref: 'slow.json' }) }, { servers: [{ url: 'https://api.example.com' }] }),
      },
      {
        '/silent/silent.json': () => undefined,
        '/slow/slow.json': (_request, response) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.write('{"type": "object"');
          const timer = setInterval(() => response.write(' '), 50);
          response.on('close', () => clearInterval(timer));
        },
      },
    );
    const started = Date.now();
    await expect(fromOpenApi({ spec: `${specs.url}/silent/openapi.json`, timeoutMs: 300 })).rejects.toThrow(
      `@typemcp/openapi: cannot read the $ref "silent.json" in ${specs.url}/silent/openapi.json: ${specs.url}/silent/silent.json did not answer within 300 ms`,
    );
    await expect(fromOpenApi({ spec: `${specs.url}/slow/openapi.json`, timeoutMs: 300 })).rejects.toThrow(`${specs.url}/slow/slow.json did not answer within 300 ms`);
    expect(Date.now() - started).toBeLessThan(3000);
  }, 10_000);

  it('stops reading a document past maxDocumentBytes', async () => {
    let written = 0;
    const specs = await serveSpecs(
      { '/openapi.json': document({ '/notes': post('save', { $ref: 'huge.json' }) }, { servers: [{ url: 'https://api.example.com' }] }) },
      {
        // 4 MB at most, so that a reader without a cap still ends.
        '/huge.json': (_request, response) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.write('{"type": "object", "description": "');
          const chunk = 'x'.repeat(64 * 1024);
          const more = () => {
            while (written < 4 * 1024 * 1024) {
              written += chunk.length;
              if (!response.write(chunk)) return void response.once('drain', more);
            }
            response.end('"}');
          };
          response.on('error', () => undefined);
          more();
        },
      },
    );
    await expect(fromOpenApi({ spec: `${specs.url}/openapi.json`, maxDocumentBytes: 100_000 })).rejects.toThrow(
      `@typemcp/openapi: cannot read the $ref "huge.json" in ${specs.url}/openapi.json: ${specs.url}/huge.json is larger than maxDocumentBytes (100000 bytes)`,
    );
    expect(written).toBeLessThan(4 * 1024 * 1024);
  });
});

describe('refs of a document read from a file', () => {
  function folder(): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'typemcp-openapi-refused-'));
    dirs.push(dir);
    mkdirSync(path.join(dir, 'api'));
    writeFileSync(path.join(dir, 'secret.json'), JSON.stringify({ Secret: { type: 'object', description: 'outside the folder' } }));
    writeFileSync(path.join(dir, 'api', 'inside.json'), JSON.stringify({ Inside: { type: 'object', description: 'inside the folder' } }));
    return dir;
  }
  const write = (dir: string, ref: string) => {
    const file = path.join(dir, 'api', 'openapi.json');
    writeFileSync(file, JSON.stringify(document({ '/notes': post('save', { $ref: ref }) }, { servers: [{ url: 'https://api.example.com' }] })));
    return file;
  };

  it('reads refs under the folder of the document', async () => {
    const dir = folder();
    const client = await connect({ spec: write(dir, './inside.json#/Inside') });
    expect((await client.listTools())[0].inputSchema).toMatchObject({ properties: { body: { description: 'inside the folder' } } });
  });

  it('refuses a ref that steps out of the folder of the document', async () => {
    const dir = folder();
    const file = write(dir, '../secret.json#/Secret');
    await expect(fromOpenApi({ spec: file })).rejects.toThrow(
      `@typemcp/openapi: cannot read the $ref "../secret.json#/Secret" in ${pathToFileURL(file).href}: ${pathToFileURL(path.join(dir, 'secret.json')).href} is outside the folder of the document (${pathToFileURL(path.join(dir, 'api')).href}/): refused (allowRef decides which other files a ref may name)`,
    );
  });

  it('keeps the refs of a document given as an object under the working directory', async () => {
    const spec = (ref: string) => document({ '/notes': post('save', { $ref: ref }) }, { servers: [{ url: 'https://api.example.com' }] });
    const cwd = pathToFileURL(process.cwd()).href;
    await expect(fromOpenApi({ spec: spec('../outside.json') })).rejects.toThrow(
      `cannot read the $ref "../outside.json" in ${cwd}/: ${new URL('../outside.json', `${cwd}/`).href} is outside the working directory (${cwd}/): refused (allowRef decides which other files a ref may name)`,
    );
    await expect(fromOpenApi({ spec: spec('https://schemas.example.com/x.json') })).rejects.toThrow(
      `https://schemas.example.com/x.json is outside the working directory (${cwd}/): refused (allowRef decides which other origins a ref may name)`,
    );
  });

  it('refuses a ref to a symbolic link that leads out of the folder', async () => {
    const dir = folder();
    symlinkSync(path.join(dir, 'secret.json'), path.join(dir, 'api', 'link.json'));
    const file = write(dir, './link.json#/Secret');
    await expect(fromOpenApi({ spec: file })).rejects.toThrow(
      `@typemcp/openapi: cannot read the $ref "./link.json#/Secret" in ${pathToFileURL(file).href}: ${pathToFileURL(path.join(dir, 'api', 'link.json')).href} leads outside the folder of the document (a symbolic link): refused`,
    );
  });

  const unix = process.platform !== 'win32' && existsSync('/dev/zero');
  (unix ? it : it.skip)('refuses a ref to a pipe or a device, whose read may never end, even where allowRef allows it', async () => {
    const dir = folder();
    execFileSync('mkfifo', [path.join(dir, 'api', 'pipe.json')]);
    const pipe = write(dir, './pipe.json');
    await expect(fromOpenApi({ spec: pipe, timeoutMs: 5000 })).rejects.toThrow(`${pathToFileURL(path.join(dir, 'api', 'pipe.json')).href} is not a regular file: refused`);
    const zero = write(dir, 'file:///dev/zero');
    await expect(fromOpenApi({ spec: zero, allowRef: (url) => url === 'file:///dev/zero' })).rejects.toThrow('file:///dev/zero is not a regular file: refused');
  });
});
