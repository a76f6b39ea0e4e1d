import { AccessDeniedError } from '@typemcp/core';
import { bearerChallenge, bearerToken } from '../src/challenge';
import { isCanonicalBase64url, principalOf } from '../src/JwtVerifier';
import { protectedResource } from '../src/protectedResource';

describe('bearerChallenge', () => {
  it('names the metadata document, then scope, error and description, quoted', () => {
    expect(bearerChallenge('https://mcp.example.com/.well-known/oauth-protected-resource/mcp', {})).toBe(
      'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    );
    expect(bearerChallenge('u', { error: 'insufficient_scope', scopes: ['a', 'b'], description: 'needs "b"\\\n' })).toBe(
      'Bearer resource_metadata="u", scope="a b", error="insufficient_scope", error_description="needs \\"b\\"\\\\ "',
    );
  });
});

describe('bearerToken', () => {
  it('reads the token of a Bearer header, whatever the case of the scheme', () => {
    expect(bearerToken('Bearer abc.def-ghi_jkl~')).toBe('abc.def-ghi_jkl~');
    expect(bearerToken('bearer abc==')).toBe('abc==');
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('')).toBeUndefined();
  });

  it('rejects other schemes, malformed tokens and repeated headers', () => {
    expect(() => bearerToken('Basic dXNlcjpwYXNz')).toThrow('the Authorization header must be "Bearer <token>"');
    expect(() => bearerToken('Bearer a b')).toThrow('must be "Bearer <token>"');
    expect(() => bearerToken(['Bearer a', 'Bearer b'])).toThrow('more than one Authorization header');
  });
});

describe('protectedResource', () => {
  it('serves the RFC 9728 document at the path-suffixed well-known URL and at the root', () => {
    const { url, paths, document } = protectedResource({
      resource: 'https://mcp.example.com/mcp',
      issuer: 'https://auth.example.com',
      scopesSupported: ['notes:read'],
      resourceName: 'Notes',
      resourceDocumentation: 'https://docs.example.com',
    });
    expect(url).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
    expect(paths).toEqual(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']);
    expect(document).toEqual({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://auth.example.com'],
      bearer_methods_supported: ['header'],
      scopes_supported: ['notes:read'],
      resource_name: 'Notes',
      resource_documentation: 'https://docs.example.com',
    });
  });

  it('serves a resource at the root at the root path only, and refuses a resource with a query', () => {
    expect(protectedResource({ resource: 'https://mcp.example.com/', issuer: 'https://a' }).paths).toEqual(['/.well-known/oauth-protected-resource']);
    expect(() => protectedResource({ resource: 'https://mcp.example.com/mcp?x=1', issuer: 'https://a' })).toThrow('without query or fragment');
  });
});

describe('principalOf', () => {
  it('takes subject, scopes (scope or scp), roles and every claim', () => {
    expect(principalOf({ sub: 'ann', scope: 'a  b', roles: ['admin'], exp: 1 }, 'roles')).toEqual({
      subject: 'ann',
      scopes: ['a', 'b'],
      roles: ['admin'],
      claims: { sub: 'ann', scope: 'a  b', roles: ['admin'], exp: 1 },
    });
    expect(principalOf({ sub: 'bob', scp: ['x', 7, 'y'], groups: 'ops dev' }, 'groups')).toMatchObject({ scopes: ['x', 'y'], roles: ['ops', 'dev'] });
  });

  it('refuses a token without a subject', () => {
    expect(() => principalOf({ scope: 'a' }, 'roles')).toThrow(AccessDeniedError);
    expect(() => principalOf({ sub: '' }, 'roles')).toThrow('Invalid token: it has no subject (sub)');
  });
});

describe('isCanonicalBase64url', () => {
  it('accepts only the spelling the bytes encode to', () => {
    const spell = (bytes: number[]) => Buffer.from(bytes).toString('base64url');
    for (const bytes of [[], [0], [255], [1, 2], [250, 251, 252], [9, 8, 7, 6]]) expect(isCanonicalBase64url(spell(bytes))).toBe(true);
    expect(spell([0])).toBe('AA');
    expect(isCanonicalBase64url('AB')).toBe(false); // decodes to [0] as well
    expect(isCanonicalBase64url('AAB')).toBe(false);
    expect(isCanonicalBase64url('A')).toBe(false);
    expect(isCanonicalBase64url('AA==')).toBe(false);
    expect(isCanonicalBase64url('A+/A')).toBe(false);
  });
});
