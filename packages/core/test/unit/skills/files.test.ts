import { createHash } from 'node:crypto';
import { digestOf, fileContents, mimeTypeOf } from '../../../src/skills/files';

describe('skill files', () => {
  it('takes the MIME type from the extension', () => {
    expect(['SKILL.md', 'a/b.PY', 'x.json', 'noext', '.hidden', 'a.unknown'].map(mimeTypeOf)).toEqual([
      'text/markdown',
      'text/x-python',
      'application/json',
      'application/octet-stream',
      'application/octet-stream',
      'application/octet-stream',
    ]);
  });

  it('sends UTF-8 as text (a byte order mark kept) and anything else as a blob', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]);
    expect(fileContents('skill://a/b.txt', { path: 'b.txt', bytes: bom, mimeType: 'text/plain' })).toEqual({ uri: 'skill://a/b.txt', mimeType: 'text/plain', text: '\uFEFFhi' });
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]);
    expect(fileContents('skill://a/c.txt', { path: 'c.txt', bytes: latin1, mimeType: 'text/plain' })).toEqual({ uri: 'skill://a/c.txt', mimeType: 'text/plain', blob: Buffer.from(latin1).toString('base64') });
  });

  it('digests the bytes with SHA-256, once per byte array', async () => {
    const bytes = new TextEncoder().encode('hello');
    const digest = digestOf(bytes);
    expect(digestOf(bytes)).toBe(digest);
    expect(await digest).toBe(`sha256:${createHash('sha256').update('hello').digest('hex')}`);
  });
});
