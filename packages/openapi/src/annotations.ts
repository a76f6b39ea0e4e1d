import type { ToolAnnotations } from '@typemcp/core';

/** What an HTTP method promises: GET reads, DELETE destroys, PUT and DELETE may be repeated; every call reaches outside. */
export function annotationsOf(method: string, title: string | undefined): ToolAnnotations {
  const annotations: ToolAnnotations = {};
  if (title !== undefined) annotations.title = title;
  const reads = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
  annotations.readOnlyHint = reads;
  if (method === 'DELETE') annotations.destructiveHint = true;
  if (method === 'PUT' || method === 'DELETE') annotations.idempotentHint = true;
  annotations.openWorldHint = true;
  return annotations;
}
