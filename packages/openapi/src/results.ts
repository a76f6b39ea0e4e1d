import { ErrorCode, McpError } from '@typemcp/core';
import type { OutputPlan } from './output';
import type { HttpAnswer, Sent } from './send';
import { withoutQuery } from './send';
import { isObject } from './schema';

/** How much of an error answer's body a message quotes. */
const CLIP = 2000;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const TEXT_TYPE = /^(?:text\/|application\/(?:[\w.+-]+\+)?(?:xml|yaml|x-yaml|javascript|x-www-form-urlencoded|graphql)\s*(?:;|$))/i;

type Result = Record<string, unknown>;

/** The `CallToolResult` of a call: JSON as `structuredContent` and text, text as text, failures as `isError`. */
export function toolResult(sent: Sent, method: string, output: OutputPlan): Result {
  if ('failure' in sent) return failed(sent.failure);
  const { answer } = sent;
  const label = `${method} ${withoutQuery(answer.url)}`;
  if (answer.status < 200 || answer.status > 299) return failed(`${label} answered ${statusOf(answer)}${quote(answer)}`);
  const text = decode(answer.body);
  if (JSON_TYPE.test(answer.contentType) && text.trim() !== '') {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return output.schema ? failed(`${label} answered ${statusOf(answer)} with JSON that does not parse${quote(answer)}`) : textResult(text);
    }
    const wrapped = output.wrap === 'always' || (output.wrap === 'auto' && !isObject(value));
    const structured = wrapped ? { result: value } : value;
    // Core checks it against the listed output schema (the tool is registered with validate: true).
    if (!isObject(structured)) return { content: [{ type: 'text', text }] };
    return { content: [{ type: 'text', text }], structuredContent: structured };
  }
  if (output.schema) return failed(`${label} answered ${statusOf(answer)} ${text.trim() === '' ? 'without a body' : `with ${answer.contentType || 'an untyped body'}`}, where the API documents JSON${quote(answer)}`);
  if (answer.body.length === 0) return textResult(statusOf(answer));
  const mimeType = mediaType(answer.contentType);
  if (mimeType === '' || JSON_TYPE.test(mimeType) || TEXT_TYPE.test(mimeType)) return textResult(text);
  if (mimeType.startsWith('image/')) return { content: [{ type: 'image', data: base64(answer.body), mimeType }] };
  return { content: [{ type: 'resource', resource: { uri: answer.url, mimeType, blob: base64(answer.body) } }] };
}

/** The `ReadResourceResult` of a read; a failure is an MCP error (-32002 for 404). */
export function readResult(sent: Sent, uri: string, fallbackType: string | undefined): Result {
  if ('failure' in sent) throw new McpError(ErrorCode.InternalError, sent.failure);
  const { answer } = sent;
  if (answer.status < 200 || answer.status > 299) {
    const message = `GET ${withoutQuery(answer.url)} answered ${statusOf(answer)}${quote(answer)}`;
    throw new McpError(answer.status === 404 ? ErrorCode.ResourceNotFound : ErrorCode.InternalError, message, answer.status === 404 ? { uri } : undefined);
  }
  const mimeType = mediaType(answer.contentType) || fallbackType || 'application/octet-stream';
  if (JSON_TYPE.test(mimeType) || TEXT_TYPE.test(mimeType)) return { contents: [{ uri, mimeType, text: decode(answer.body) }] };
  return { contents: [{ uri, mimeType, blob: base64(answer.body) }] };
}

function failed(text: string): Result {
  return { content: [{ type: 'text', text }], isError: true };
}

function textResult(text: string): Result {
  return { content: [{ type: 'text', text }] };
}

function statusOf(answer: HttpAnswer): string {
  return answer.statusText ? `${answer.status} ${answer.statusText}` : String(answer.status);
}

/** `: <body>`, clipped, or nothing for an empty body. */
function quote(answer: HttpAnswer): string {
  const text = decode(answer.body.subarray(0, CLIP * 4)).trim();
  if (text === '') return '';
  return `: ${text.length > CLIP ? `${text.slice(0, CLIP)}… (clipped)` : text}`;
}

function mediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
