import { DefinitionError, McpError } from '../../../src/errors';
import { ANSWER_ERROR_KEY, TaskQuestions } from '../../../src/tasks';
import type { TaskInputRequest } from '../../../src/tasks';

const signal = new AbortController().signal;
const form = (message: string) => ({ mode: 'form', message, requestedSchema: { type: 'object', properties: {} } });

/** Questions that record what reached the client and answer each with `{ key }`. */
function questions(earlier: { inputRequests?: Record<string, TaskInputRequest>; inputResponses?: Record<string, Record<string, unknown>> } = {}) {
  const asked: Array<[string, TaskInputRequest]> = [];
  const desk = new TaskQuestions(earlier, async (key, request) => {
    asked.push([key, request]);
    return { key };
  });
  return { desk, asked };
}

describe('TaskQuestions', () => {
  it('names questions by kind in the order asked, or by the author’s key', async () => {
    const { desk, asked } = questions();
    await desk.ask('elicitation/create', form('a'), signal);
    await desk.ask('sampling/createMessage', { messages: [], maxTokens: 1 }, signal);
    await desk.ask('elicitation/create', form('b'), signal);
    await desk.ask('roots/list', undefined, signal, 'where');
    expect(asked.map(([key]) => key)).toEqual(['elicitation-1', 'sampling-1', 'elicitation-2', 'where']);
    expect(asked[3][1]).toEqual({ method: 'roots/list' });
  });

  it('refuses one author key for two questions of a run', async () => {
    const { desk } = questions();
    await desk.ask('roots/list', undefined, signal, 'same');
    await expect(desk.ask('roots/list', undefined, signal, 'same')).rejects.toThrow(DefinitionError);
  });

  it('a rerun gets the earlier answer of the same question under the same key, without asking again', async () => {
    const { desk, asked } = questions({
      inputRequests: { 'elicitation-1': { method: 'elicitation/create', params: form('a') } },
      inputResponses: { 'elicitation-1': { action: 'accept', content: { n: 1 } } },
    });
    // Keys of the params in another order: still the same question.
    const reordered = { requestedSchema: { properties: {}, type: 'object' }, message: 'a', mode: 'form' };
    expect(await desk.ask('elicitation/create', reordered, signal)).toEqual({ action: 'accept', content: { n: 1 } });
    expect(asked).toEqual([]);
    // The same question asked a second time in this run is a new one.
    await desk.ask('elicitation/create', form('a'), signal);
    expect(asked.map(([key]) => key)).toEqual(['elicitation-2']);
  });

  it('never reuses an earlier key for a different question, the author’s included', async () => {
    const { desk, asked } = questions({
      inputRequests: { 'elicitation-1': { method: 'elicitation/create', params: form('old') }, mine: { method: 'roots/list' } },
      inputResponses: { 'elicitation-1': { action: 'decline' }, mine: { roots: [] } },
    });
    await desk.ask('elicitation/create', form('new'), signal);
    await desk.ask('elicitation/create', form('newer'), signal, 'mine');
    expect(asked.map(([key]) => key)).toEqual(['elicitation-2', 'mine-2']);
    // The earlier question comes later in this run: it still finds its answer.
    expect(await desk.ask('elicitation/create', form('old'), signal)).toEqual({ action: 'decline' });
  });

  it('a recorded client error rejects as that McpError', async () => {
    const desk = new TaskQuestions({}, async () => ({ [ANSWER_ERROR_KEY]: { code: -1, message: 'User rejected', data: { why: 'no' } } }));
    const failure = await desk.ask('sampling/createMessage', { messages: [], maxTokens: 1 }, signal).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpError);
    expect(failure).toMatchObject({ code: -1, message: 'User rejected', data: { why: 'no' } });
  });
});
