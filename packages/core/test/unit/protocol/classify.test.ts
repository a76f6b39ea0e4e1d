import { classify } from '../../../src/protocol';

describe('classify', () => {
  it('recognises requests with string and integer ids', () => {
    expect(classify({ jsonrpc: '2.0', id: 1, method: 'ping' }).kind).toBe('request');
    expect(classify({ jsonrpc: '2.0', id: 'a', method: 'ping', params: {} }).kind).toBe('request');
  });

  it('recognises notifications, results and errors', () => {
    expect(classify({ jsonrpc: '2.0', method: 'notifications/initialized' }).kind).toBe('notification');
    expect(classify({ jsonrpc: '2.0', id: 3, result: {} }).kind).toBe('result');
    expect(classify({ jsonrpc: '2.0', id: 3, error: { code: -1, message: 'x' } }).kind).toBe('error');
    expect(classify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } }).kind).toBe('error');
  });

  it.each([
    ['a non-object', 42, null, 'expected an object'],
    ['an array', [], null, 'expected an object'],
    ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 1, method: 'ping' }, 1, '"jsonrpc" must be "2.0"'],
    ['a null id', { jsonrpc: '2.0', id: null, method: 'ping' }, null, '"id" must be a string or an integer'],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, null, '"id" must be a string or an integer'],
    ['an object id', { jsonrpc: '2.0', id: {}, method: 'ping' }, null, '"id" must be a string or an integer'],
    ['a numeric method', { jsonrpc: '2.0', id: 7, method: 5 }, 7, '"method" must be a non-empty string'],
    ['array params', { jsonrpc: '2.0', id: 'q', method: 'ping', params: [1] }, 'q', '"params" must be an object'],
    ['no method/result/error', { jsonrpc: '2.0', id: 2 }, 2, 'expected "method", "result" or "error"'],
    ['a malformed error', { jsonrpc: '2.0', id: 2, error: { code: 'x' } }, 2, '"error" must have'],
    ['a non-object result', { jsonrpc: '2.0', id: 2, result: 5 }, 2, '"result" must be an object'],
  ])('rejects %s with -32600 and the recoverable id', (_label, value, id, reason) => {
    const classified = classify(value);
    expect(classified.kind).toBe('invalid');
    if (classified.kind !== 'invalid') return;
    expect(classified.error.code).toBe(-32600);
    expect(classified.error.message).toContain(reason);
    expect(classified.id).toBe(id);
  });
});
