import { Observers } from '../../../src/runtime/observers';
import type { ObservedRequest, RequestOutcome } from '../../../src/runtime/observers';
import type { JsonRpcResponse } from '../../../src/protocol';

const event: ObservedRequest = {
  id: 1,
  method: 'tools/call',
  known: true,
  params: { name: 'echo' },
  protocolVersion: '2025-11-25',
  sessionId: undefined,
  principal: undefined,
  networkTransport: 'pipe',
  clientAddress: undefined,
};
const answer: JsonRpcResponse = { jsonrpc: '2.0', id: 1, result: { content: [] } };

function observers() {
  const reported: Array<[string, unknown]> = [];
  return { reported, observers: new Observers((what, error) => void reported.push([what, error])) };
}

describe('Observers', () => {
  it('builds nothing when no observer hears requests', () => {
    const { observers: all } = observers();
    all.add({ connectionOpened: () => undefined });
    all.add({ request: () => undefined });
    expect(all.request(event)).toBeUndefined();
    const run = jest.fn(() => answer);
    expect(all.watch('tools/call', undefined, run, undefined)).toBe(answer);
    expect(run).toHaveBeenCalledWith(undefined);
  });

  it('tells each hearer the outcome once, for a synchronous answer, a promised one and one delivered later', async () => {
    const { observers: all, reported } = observers();
    const heard: Array<[string, RequestOutcome]> = [];
    all.add({ request: () => (outcome) => void heard.push(['a', outcome]) });
    all.add({ request: () => (outcome) => void heard.push(['b', outcome]) });

    expect(all.watch('tools/call', all.request(event), () => answer, undefined)).toBe(answer);
    expect(heard.map(([who, outcome]) => [who, outcome.type])).toEqual([
      ['a', 'result'],
      ['b', 'result'],
    ]);

    heard.length = 0;
    await expect(all.watch('tools/call', all.request(event), () => Promise.resolve(undefined), undefined)).resolves.toBeUndefined();
    expect(heard.map(([who, outcome]) => [who, outcome.type])).toEqual([
      ['a', 'cancelled'],
      ['b', 'cancelled'],
    ]);

    heard.length = 0;
    const delivered: Array<JsonRpcResponse | undefined> = [];
    let later: ((response: JsonRpcResponse | undefined) => void) | undefined;
    const now = all.watch('tools/call', all.request(event), (deliver) => void (later = deliver), (response) => void delivered.push(response));
    expect(now).toBeUndefined();
    expect(heard).toEqual([]);
    later!({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } });
    expect(heard.map(([who, outcome]) => [who, outcome.type])).toEqual([
      ['a', 'error'],
      ['b', 'error'],
    ]);
    expect(delivered).toHaveLength(1);
    expect(reported).toEqual([]);
  });

  it('gives a single hearer back as it is, and reports it when it throws', () => {
    const { observers: all, reported } = observers();
    const hear = jest.fn((_outcome: RequestOutcome) => {
      throw new Error('hearer broke');
    });
    all.add({ request: () => hear });
    const returned = all.request(event);
    expect(returned).toBe(hear);
    expect(all.watch('tools/call', returned, () => answer, undefined)).toBe(answer);
    expect(hear).toHaveBeenCalledTimes(1);
    expect(reported.map(([what, error]) => [what, (error as Error).message])).toEqual([['an observer failed', 'hearer broke']]);
  });

  it('reports an observer that throws on arrival or on the outcome, and still tells the others and delivers the answer', () => {
    const { observers: all, reported } = observers();
    const heard: string[] = [];
    all.add({
      request: () => {
        throw new Error('arrival broke');
      },
    });
    all.add({
      request: () => () => {
        throw new Error('outcome broke');
      },
    });
    all.add({ request: () => (outcome) => void heard.push(outcome.type) });
    const delivered: Array<JsonRpcResponse | undefined> = [];
    let later: ((response: JsonRpcResponse | undefined) => void) | undefined;
    all.watch('tools/call', all.request(event), (deliver) => void (later = deliver), (response) => void delivered.push(response));
    later!(answer);
    expect(heard).toEqual(['result']);
    expect(delivered).toEqual([answer]);
    expect(reported.map(([what, error]) => [what, (error as Error).message])).toEqual([
      ['an observer failed', 'arrival broke'],
      ['an observer failed', 'outcome broke'],
    ]);
  });
});
