import { ClientCapabilityError, InvalidClientResponseError } from '../errors';
import type { Constructor } from '../metadata';
import type { ClientRequestOptions, Context, SchemaElicitation, UrlElicitation } from '../runtime/Context';
import type { CorePlugin } from '../runtime/plugins';
import { ClientFeatureServices } from '../runtime/services';
import { compileAuthoredSchema } from '../validation';
import { elicitAction, elicitationSchemaOf, readElicitResult } from './elicitationSchema';
import type { ElicitationResult } from '../runtime/elicitationTypes';
import { statelessRefusal } from './statelessRefusal';

/** `core:elicitation`: `ctx.elicit()`. */
export const elicitationPlugin: CorePlugin = {
  name: 'core:elicitation',
  register: (plugin) => plugin.provide(ClientFeatureServices.elicit, elicit),
};

/** `ctx.elicit()`: form mode from a DTO class, or URL mode. */
export async function elicit(
  ctx: Context,
  message: string,
  target: Constructor | UrlElicitation | SchemaElicitation,
  options: ClientRequestOptions = {},
): Promise<ElicitationResult<unknown>> {
  const capability = ctx.clientCapabilities.elicitation;
  const revision = ctx.revision;
  if (!revision.elicitation || !capability) {
    const stateless = statelessRefusal(ctx, 'elicitation', 'to fill in a form (elicitation)');
    if (stateless) throw stateless;
    throw new ClientCapabilityError(
      'elicitation',
      `The client ${!revision.elicitation ? `speaks ${ctx.protocolVersion}, which has no elicitation` : 'did not declare the "elicitation" capability'}`,
    );
  }
  const modes = revision.elicitationModes;
  if (typeof target === 'function' || 'requestedSchema' in target) {
    // An empty elicitation capability means form mode (the only mode before 2025-11-25).
    if (modes && capability.url && !capability.form) {
      throw new ClientCapabilityError('elicitation.form', 'The client declared only URL-mode elicitation; it cannot show a form');
    }
    const requestedSchema = typeof target === 'function' ? elicitationSchemaOf(target, revision) : target.requestedSchema;
    const params: Record<string, unknown> = modes ? { mode: 'form', message, requestedSchema } : { message, requestedSchema };
    const raw = await ctx.requestClient('elicitation/create', params, options);
    return typeof target === 'function' ? readElicitResult(target, raw) : readRawResult(requestedSchema, raw);
  }

  if (!modes || !capability.url) {
    throw new ClientCapabilityError('elicitation.url', 'URL-mode elicitation needs protocol 2025-11-25 and the client\'s "elicitation.url" capability');
  }
  const params: Record<string, unknown> = { mode: 'url', message, url: target.url };
  // 2026-07-28 dropped the id: the retry itself says the interaction is over.
  if (revision.elicitationIds) params.elicitationId = target.elicitationId ?? crypto.randomUUID();
  const action = elicitAction(await ctx.requestClient('elicitation/create', params, options));
  return action === 'accept' ? { action, content: undefined as never } : { action };
}

const rawCheckers = new WeakMap<object, (value: unknown) => string[]>();

/** Checks an answer to a hand-written form against its schema (`enumNames` is display-only). */
function readRawResult(schema: Record<string, unknown>, raw: Record<string, unknown>): ElicitationResult<unknown> {
  const action = elicitAction(raw);
  if (action !== 'accept') return { action };
  let check = rawCheckers.get(schema);
  if (!check) {
    check = compileAuthoredSchema(withoutDisplayKeywords(schema));
    rawCheckers.set(schema, check);
  }
  const content = raw.content ?? {};
  const problems = check(content);
  if (problems.length > 0) {
    throw InvalidClientResponseError.about('elicitation', problems.join('; '), content);
  }
  return { action: 'accept', content };
}

function withoutDisplayKeywords(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const cleaned = Object.fromEntries(Object.entries(properties).map(([name, { enumNames: _shown, ...rest }]) => [name, rest]));
  return { ...schema, properties: cleaned };
}
