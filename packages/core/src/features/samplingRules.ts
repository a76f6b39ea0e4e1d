import { InvalidClientResponseError, SamplingRuleError } from '../errors';
import type { SampleRequestOf, SampleResult, SamplingContent, SamplingMessage } from '../runtime/samplingTypes';

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'tool_use', 'tool_result']);

export function blocksOf(message: { content: SamplingContent | SamplingContent[] }): SamplingContent[] {
  return Array.isArray(message.content) ? message.content : [message.content];
}

/**
 * Enforces the protocol's rules on an outgoing request, so a mistake surfaces here and not at
 * the client: required fields and ranges, message roles and content, and the tool rules (a
 * user message with tool results holds only tool results; every assistant `tool_use` is
 * answered, in the very next message, by a `tool_result` with its id).
 */
export function checkSampleRequest(request: SampleRequestOf<unknown>): void {
  if (!Number.isInteger(request.maxTokens) || request.maxTokens < 1) {
    throw new SamplingRuleError(`maxTokens must be a positive integer, got ${JSON.stringify(request.maxTokens)}`);
  }
  for (const key of ['costPriority', 'speedPriority', 'intelligencePriority'] as const) {
    const value = request.modelPreferences?.[key];
    if (value !== undefined && !(typeof value === 'number' && value >= 0 && value <= 1)) {
      throw new SamplingRuleError(`modelPreferences.${key} must be a number from 0 to 1, got ${JSON.stringify(value)}`);
    }
  }
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw new SamplingRuleError('messages must be a non-empty array');
  }
  checkMessages(request.messages);
}

export function checkMessages(messages: readonly SamplingMessage[]): void {
  messages.forEach((message, index) => {
    const at = `messages[${index}]`;
    if (message.role !== 'user' && message.role !== 'assistant') {
      throw new SamplingRuleError(`${at}.role must be "user" or "assistant", got ${JSON.stringify(message.role)}`);
    }
    const blocks = blocksOf(message);
    if (blocks.length === 0) throw new SamplingRuleError(`${at} has no content`);
    for (const block of blocks) {
      if (!CONTENT_TYPES.has(block?.type)) throw new SamplingRuleError(`${at} has content of unknown type ${JSON.stringify(block?.type)}`);
    }

    const results = blocks.filter((b) => b.type === 'tool_result');
    if (results.length > 0) {
      if (message.role !== 'user') throw new SamplingRuleError(`${at}: tool results belong in a user message`);
      if (results.length !== blocks.length) {
        throw new SamplingRuleError(`${at}: a user message with tool results must hold only tool results, not other content`);
      }
      const previous = messages[index - 1];
      const asked = new Set(previous?.role === 'assistant' ? blocksOf(previous).filter((b) => b.type === 'tool_use').map((b) => b.id) : []);
      for (const result of results) {
        if (!asked.has(result.toolUseId)) {
          throw new SamplingRuleError(`${at}: tool_result "${result.toolUseId}" answers no tool_use of the assistant message before it`);
        }
      }
    }

    const uses = blocks.filter((b) => b.type === 'tool_use');
    if (uses.length > 0) {
      if (message.role !== 'assistant') throw new SamplingRuleError(`${at}: tool_use belongs in an assistant message`);
      const ids = uses.map((u) => u.id);
      if (new Set(ids).size !== ids.length) throw new SamplingRuleError(`${at}: tool_use ids must be unique`);
      const next = messages[index + 1];
      const answered = new Set(next?.role === 'user' ? blocksOf(next).filter((b) => b.type === 'tool_result').map((b) => b.toolUseId) : []);
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        throw new SamplingRuleError(
          `${at}: every tool_use must be answered by a tool_result in the next (user) message; unanswered: ${missing.join(', ')}`,
        );
      }
    }
  });
}

/** Checks the client's CreateMessageResult and returns it typed. */
export function checkSampleResult(raw: Record<string, unknown>, toolsOffered: boolean): SampleResult {
  const problem = (what: string) =>
    InvalidClientResponseError.about('sampling', what, raw);
  if (raw.role !== 'assistant' && raw.role !== 'user') throw problem('"role" must be "assistant" or "user"');
  if (typeof raw.model !== 'string') throw problem('"model" must be a string');
  if (raw.stopReason !== undefined && typeof raw.stopReason !== 'string') throw problem('"stopReason" must be a string');
  const content = raw.content as SamplingContent | SamplingContent[] | undefined;
  const blocks = Array.isArray(content) ? content : content === undefined || content === null ? [] : [content];
  if (blocks.length === 0) throw problem('"content" must be a content block or a non-empty array of them');
  const useIds = new Set<string>();
  for (const block of blocks) {
    if (typeof block !== 'object' || block === null || !CONTENT_TYPES.has(block.type)) {
      throw problem(`content of unknown type ${JSON.stringify((block as { type?: unknown })?.type)}`);
    }
    if (block.type === 'tool_result') throw problem('the model answered with a tool_result, which only the server sends');
    if (block.type === 'text' && typeof block.text !== 'string') throw problem('a text block needs "text"');
    if (block.type === 'tool_use') {
      if (!toolsOffered) throw problem('it asks to use a tool, but no tools were offered');
      if (typeof block.id !== 'string' || typeof block.name !== 'string' || typeof block.input !== 'object' || block.input === null) {
        throw problem('a tool_use block needs string "id", string "name" and object "input"');
      }
      if (raw.role !== 'assistant') throw problem('tool_use must come from the assistant');
      if (useIds.has(block.id)) throw problem(`tool_use id "${block.id}" appears twice`);
      useIds.add(block.id);
    }
  }
  return raw as unknown as SampleResult;
}
