import type { Revision } from '../protocol';
import { bytesToBase64 } from '../platform';
import type { SchemaValidator } from '../validation';
import { toolErrorResult } from './ToolItem';
import type { CallToolResult } from './ToolItem';

/** What shaping a tool method's return value needs to know of the tool. */
export interface ResultShape {
  readonly name: string;
  /** Checks structured output (`@Tool({ output })`). */
  readonly outputValidator: SchemaValidator | undefined;
  /** The MIME type of bytes it returns (`@Tool({ mimeType })`). */
  readonly mimeType: string | undefined;
}

/**
 * Shapes what a tool method returned into a CallToolResult for the given revision
 * (string → text, output DTO → structuredContent + text, bytes → image/audio/blob,
 * full results pass through).
 */
export function shapeToolResult(value: unknown, tool: ResultShape, revision: Revision): CallToolResult {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (value === undefined || value === null) return { content: [] };

  if (tool.outputValidator) {
    const text = JSON.stringify(value);
    const structuredContent = JSON.parse(text) as Record<string, unknown>;
    const problems = tool.outputValidator(structuredContent);
    if (problems.length > 0) {
      return toolErrorResult(`Tool "${tool.name}" returned a result that does not match its output schema: ${problems.join('; ')}`);
    }
    const result: CallToolResult = { content: [{ type: 'text', text }] };
    if (revision.titlesAndStructuredOutput) result.structuredContent = structuredContent;
    return result;
  }

  if (value instanceof Uint8Array) return { content: [binaryContent(value, tool, revision.audioContent)] };
  if (isCallToolResult(value)) {
    if (!revision.titlesAndStructuredOutput && 'structuredContent' in value) {
      const { structuredContent: _dropped, ...older } = value;
      return older as CallToolResult;
    }
    return value;
  }
  if (typeof value === 'object') return { content: [{ type: 'text', text: JSON.stringify(value) }] };
  return { content: [{ type: 'text', text: String(value) }] };
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return typeof value === 'object' && value !== null && Array.isArray((value as CallToolResult).content);
}

function binaryContent(bytes: Uint8Array, tool: ResultShape, audioSupported: boolean): Record<string, unknown> {
  const mimeType = tool.mimeType ?? 'application/octet-stream';
  const data = bytesToBase64(bytes);
  if (mimeType.startsWith('image/')) return { type: 'image', data, mimeType };
  if (audioSupported && mimeType.startsWith('audio/')) return { type: 'audio', data, mimeType };
  return { type: 'resource', resource: { uri: `tool://${tool.name}/result`, mimeType, blob: data } };
}
