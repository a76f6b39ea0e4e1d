import { headerValue, mirroredHeaders, paramHeadersOf } from '../src/eras/modern/headers';

describe('the headers of a 2026-07-28 request (SEP-2243)', () => {
  it('mirrors the method, the target and the marked arguments, encoding what a header cannot carry', () => {
    const marks = paramHeadersOf({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'integer', 'x-mcp-header': 'N' }, on: { type: 'boolean', 'x-mcp-header': 'On' }, q: { type: 'string' } } });
    expect(mirroredHeaders('tools/call', { name: 'find', arguments: { region: 'Zürich', n: 3, on: false, q: 'x' } }, marks)).toEqual({
      'mcp-method': 'tools/call',
      'mcp-name': 'find',
      'mcp-param-region': '=?base64?WsO8cmljaA==?=',
      'mcp-param-n': '3',
      'mcp-param-on': 'false',
    });
    expect(mirroredHeaders('tools/call', { name: 'find', arguments: { region: null } }, marks)).toEqual({ 'mcp-method': 'tools/call', 'mcp-name': 'find' });
    expect(mirroredHeaders('resources/read', { uri: 'mem://a b' }, undefined)).toEqual({ 'mcp-method': 'resources/read', 'mcp-name': 'mem://a b' });
    expect(mirroredHeaders('tools/list', undefined, undefined)).toEqual({ 'mcp-method': 'tools/list' });
  });

  it('encodes leading and trailing whitespace, control characters, and what looks encoded already', () => {
    expect(headerValue('plain value')).toBe('plain value');
    expect(headerValue(' x')).toBe(`=?base64?${btoa(' x')}?=`);
    expect(headerValue('a\r\nb')).toBe(`=?base64?${btoa('a\r\nb')}?=`);
    expect(headerValue('=?base64?SGk=?=')).toBe(`=?base64?${btoa('=?base64?SGk=?=')}?=`);
  });

  it('refuses a tool whose marks are invalid: empty, not a token, on a number, object or array, or named twice', () => {
    const tool = (properties: Record<string, unknown>) => paramHeadersOf({ type: 'object', properties });
    expect(tool({ a: { type: 'string', 'x-mcp-header': '' } })).toBeUndefined();
    expect(tool({ a: { type: 'string', 'x-mcp-header': 'My Region' } })).toBeUndefined();
    expect(tool({ a: { type: 'string', 'x-mcp-header': 'Région' } })).toBeUndefined();
    expect(tool({ a: { type: 'number', 'x-mcp-header': 'A' } })).toBeUndefined();
    expect(tool({ a: { type: 'object', 'x-mcp-header': 'A' } })).toBeUndefined();
    expect(tool({ a: { type: 'string', 'x-mcp-header': 'Same' }, b: { type: 'string', 'x-mcp-header': 'same' } })).toBeUndefined();
    expect(tool({ a: { type: 'string' } })).toEqual(new Map());
  });
});
