import { InvalidParamsError, ToolError, UriTemplate } from '@typemcp/core';
import type { RemoteResource, RemoteTemplate } from '@typemcp/core';
import { withCallerHeaders } from './headers';
import type { InputPlan } from './input';
import type { Operation } from './operations';
import { buildRequest } from './request';
import type { HttpRequest } from './request';
import { readResult } from './results';
import { isObject } from './schema';
import { send } from './send';
import type { ItemPlan } from './tool';
import { acceptOf, describe } from './tool';

/**
 * Why a GET cannot be a resource (one with a required parameter) or a template (one with a
 * required header or cookie parameter, or no path or query parameter at all); undefined when it can.
 */
export function unfitAs(kind: 'resource' | 'template', operation: Operation): string | undefined {
  if (operation.method !== 'GET') return `it is a ${operation.method}, and only a GET can be a ${kind}: make it a 'tool'`;
  if (operation.requestBody?.value.required === true) return `it requires a request body: make it a 'tool'`;
  if (kind === 'resource') {
    const required = operation.parameters.find((p) => p.required);
    return required ? `it has the required ${required.in} parameter "${required.name}": make it a 'template' or a 'tool'` : undefined;
  }
  const unsendable = operation.parameters.find((p) => p.required && (p.in === 'header' || p.in === 'cookie'));
  if (unsendable) return `it has the required ${unsendable.in} parameter "${unsendable.name}", which a URI cannot carry: make it a 'tool'`;
  const unnamable = operation.parameters.find((p) => (p.in === 'path' || (p.in === 'query' && p.required)) && !VARNAME.test(p.name));
  if (unnamable) return `its ${unnamable.in} parameter "${unnamable.name}" cannot be a URI template variable (letters, digits, "_" and "."): make it a 'tool'`;
  if (!operation.parameters.some((p) => p.in === 'path' || p.in === 'query')) return `it has no path or query parameter: make it a 'resource'`;
  return undefined;
}

/** An RFC 6570 variable name (percent-encoded characters aside). */
const VARNAME = /^\w+(?:\.\w+)*$/;

/** `<scheme>://<path>`: the operation's path without its leading slash. */
function uriOf(scheme: string, path: string): string {
  return `${scheme}://${path.replace(/^\/+/, '')}`;
}

/** A resource whose read is the GET, with no parameters. */
export function buildResource(plan: ItemPlan, input: InputPlan): RemoteResource {
  const uri = uriOf(plan.settings.uriScheme, plan.operation.path);
  return { listing: { uri, ...listingOf(plan) }, access: plan.access, read: (read, ctx) => get(plan, input, {}, read, ctx) };
}

/**
 * A template: path parameters are its variables (`openapi://pets/{petId}`), query parameters
 * a form-style query (`{?limit,tag}`). A read missing a required one is invalid params.
 */
export function buildTemplate(plan: ItemPlan, input: InputPlan): RemoteTemplate {
  // Optional query parameters whose names a template cannot hold are left out of it.
  const queries = input.bindings.filter((b) => b.parameter.in === 'query' && VARNAME.test(b.property)).map((b) => b.property);
  let path = plan.operation.path;
  for (const binding of input.bindings) if (binding.parameter.in === 'path') path = path.split(`{${binding.parameter.name}}`).join(`{${binding.property}}`);
  const uriTemplate = `${uriOf(plan.settings.uriScheme, path)}${queries.length > 0 ? `{?${queries.join(',')}}` : ''}`;
  const template = new UriTemplate(uriTemplate);
  return {
    listing: { uriTemplate, ...listingOf(plan) },
    access: plan.access,
    read: (uri, ctx) => {
      const variables = template.match(uri);
      if (!variables) throw new InvalidParamsError(`${uri} does not match ${uriTemplate}`);
      const args: Record<string, unknown> = {};
      for (const binding of input.bindings) {
        const value = variables[binding.property];
        if (value === undefined || value === '') {
          if (binding.parameter.required) throw new InvalidParamsError(`${uri}: give "${binding.property}" (${uriTemplate})`);
          continue;
        }
        args[binding.property] = value;
      }
      return get(plan, input, args, uri, ctx);
    },
  };
}

function listingOf(plan: ItemPlan): { name: string; title?: string; description?: string; mimeType?: string } {
  const text = describe(plan.operation);
  const listing: { name: string; title?: string; description?: string; mimeType?: string } = { name: plan.info.name };
  if (text.title !== undefined) listing.title = text.title;
  if (text.description !== undefined) listing.description = text.description;
  const mimeType = mimeTypeOf(plan.operation);
  if (mimeType !== undefined) listing.mimeType = mimeType;
  return listing;
}

/** The first media type of the first success response. */
function mimeTypeOf(operation: Operation): string | undefined {
  for (const [status, response] of operation.responses) {
    if (/^2/.test(status) && isObject(response.value.content)) {
      const [type] = Object.keys(response.value.content);
      if (type !== undefined && /^[\w.+-]+\/[\w.+-]+$/.test(type)) return type;
    }
  }
  return undefined;
}

async function get(plan: ItemPlan, input: InputPlan, args: Record<string, unknown>, uri: string, ctx: Parameters<RemoteResource['read']>[1]): Promise<Record<string, unknown>> {
  let request: HttpRequest;
  try {
    request = buildRequest(plan.baseUrl, plan.operation, input, args, acceptOf(plan.operation));
  } catch (error) {
    // A variable the request cannot carry (a path segment of "..") is the reader's mistake.
    if (error instanceof ToolError) throw new InvalidParamsError(`${uri}: ${error.message}`);
    throw error;
  }
  const headers = await withCallerHeaders(plan.settings.headers, ctx, plan.info, request.headers);
  const sent = await send(plan.settings.fetch, { ...request, headers }, ctx.signal, plan.settings.timeoutMs, plan.settings.allowRedirect);
  return readResult(sent, uri, mimeTypeOf(plan.operation));
}

