import { ConnectionClosedError, McpError, RequestTimeoutError } from '../../../src/errors';
import { PendingRequests } from '../../../src/protocol';

describe('PendingRequests', () => {
  it('correlates results and errors by id', async () => {
    const pending = new PendingRequests();
    const a = pending.start('ping', {}, jest.fn());
    const b = pending.start('roots/list', {}, jest.fn());
    expect(a.id).not.toBe(b.id);
    expect(pending.complete({ jsonrpc: '2.0', id: b.id, error: { code: -1, message: 'no roots' } })).toBe(true);
    expect(pending.complete({ jsonrpc: '2.0', id: a.id, result: { ok: 1 } })).toBe(true);
    await expect(a.result).resolves.toEqual({ ok: 1 });
    await expect(b.result).rejects.toMatchObject({ code: -1, message: 'no roots' });
    await expect(b.result).rejects.toBeInstanceOf(McpError);
    expect(pending.size).toBe(0);
  });

  it('ignores responses for unknown or already answered ids', () => {
    const pending = new PendingRequests();
    const a = pending.start('ping', {}, jest.fn());
    expect(pending.complete({ jsonrpc: '2.0', id: 999, result: {} })).toBe(false);
    expect(pending.complete({ jsonrpc: '2.0', id: a.id, result: {} })).toBe(true);
    expect(pending.complete({ jsonrpc: '2.0', id: a.id, result: {} })).toBe(false);
  });

  it('times out and tells the caller which id to cancel', async () => {
    jest.useFakeTimers();
    try {
      const pending = new PendingRequests();
      const onAbandon = jest.fn();
      const { id, result } = pending.start('sampling/createMessage', { timeoutMs: 50 }, onAbandon);
      const settled = expect(result).rejects.toBeInstanceOf(RequestTimeoutError);
      jest.advanceTimersByTime(50);
      await settled;
      expect(onAbandon).toHaveBeenCalledWith(id, 'timeout');
      expect(pending.complete({ jsonrpc: '2.0', id, result: {} })).toBe(false);
    } finally {
      jest.useRealTimers();
    }
  });

  it('abandons on abort, including a signal aborted before the start', async () => {
    const pending = new PendingRequests();
    const onAbandon = jest.fn();
    const controller = new AbortController();
    const live = pending.start('ping', { signal: controller.signal }, onAbandon);
    controller.abort(new Error('stop'));
    await expect(live.result).rejects.toThrow('stop');
    const late = pending.start('ping', { signal: controller.signal }, onAbandon);
    await expect(late.result).rejects.toThrow('stop');
    expect(onAbandon).toHaveBeenCalledTimes(2);
    expect(pending.size).toBe(0);
  });

  it('fails everything open when the connection closes', async () => {
    const pending = new PendingRequests();
    const a = pending.start('ping', { timeoutMs: 10_000 }, jest.fn());
    pending.rejectAll();
    await expect(a.result).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(a.result).rejects.toThrow('before "ping" was answered');
  });
});
