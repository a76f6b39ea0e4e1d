import type { RemoteAccess, RemoteTool } from '@typemcp/core';
import { annotationsOf } from './annotations';
import { withCallerHeaders } from './headers';
import type { InputPlan } from './input';
import type { Operation } from './operations';
import type { OpenApiOperation, Settings } from './options';
import type { OutputPlan } from './output';
import { buildRequest } from './request';
import { toolResult } from './results';
import { isObject } from './schema';
import { send } from './send';

/** Everything one operation's item needs. */
export interface ItemPlan {
  readonly operation: Operation;
  readonly info: OpenApiOperation;
  readonly baseUrl: string;
  readonly access: RemoteAccess;
  readonly settings: Settings;
}

/** A tool that calls the operation; core checks its arguments against the input schema first. */
export function buildTool(plan: ItemPlan, input: InputPlan, output: OutputPlan): RemoteTool {
  const { operation, info, settings } = plan;
  const text = describe(operation);
  const listing: RemoteTool['listing'] = { name: info.name, inputSchema: input.schema, annotations: annotationsOf(operation.method, text.title) };
  if (text.title !== undefined) listing.title = text.title;
  if (text.description !== undefined) listing.description = text.description;
  if (output.schema && settings.outputSchemas) listing.outputSchema = output.schema;
  // Without an outputSchema in the listing, answers need not match one.
  const shaping: OutputPlan = listing.outputSchema ? output : { wrap: 'auto' };
  const accept = acceptOf(operation);
  return {
    listing,
    // Core checks arguments and structured results against the schemas, compiling each on first use.
    validate: true,
    access: plan.access,
    async call(args, ctx) {
      const request = buildRequest(plan.baseUrl, operation, input, args, accept);
      const headers = await withCallerHeaders(settings.headers, ctx, info, request.headers);
      const sent = await send(settings.fetch, { ...request, headers }, ctx.signal, settings.timeoutMs, settings.allowRedirect);
      return toolResult(sent, operation.method, shaping);
    },
  };
}

/** The title is the summary; the description the description (after the summary when it says more). */
export function describe(operation: Operation): { title?: string; description?: string } {
  const { summary, description, deprecated } = operation.source.value;
  const title = typeof summary === 'string' && summary.trim() !== '' ? summary.trim() : undefined;
  const body = typeof description === 'string' && description.trim() !== '' ? description.trim() : undefined;
  let text = body === undefined ? title : title !== undefined && !body.startsWith(title) ? `${title}\n\n${body}` : body;
  if (deprecated === true) text = `Deprecated.${text === undefined ? '' : ` ${text}`}`;
  return { title, description: text };
}

/** The media types the success responses document, JSON first; anything when they document none. */
export function acceptOf(operation: Operation): string {
  const types = new Set<string>();
  for (const [status, response] of operation.responses) {
    if (!/^2/.test(status) || !isObject(response.value.content)) continue;
    for (const type of Object.keys(response.value.content)) types.add(type);
  }
  const listed = [...types].filter((type) => /^[\w.+-]+\/[\w.+*-]+$/.test(type));
  if (listed.length === 0) return 'application/json, */*;q=0.8';
  return listed.sort((a, b) => Number(!/json/i.test(a)) - Number(!/json/i.test(b))).join(', ');
}
