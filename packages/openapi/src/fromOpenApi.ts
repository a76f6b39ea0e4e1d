import { McpServer } from '@typemcp/core';
import type { RemoteResource, RemoteTemplate, RemoteTool } from '@typemcp/core';
import { baseUrlOf } from './baseUrl';
import { planInput } from './input';
import { documentReader, documentUrl, workingDirectoryUrl } from './load';
import { labelOf, listOperations } from './operations';
import type { Operation } from './operations';
import { checkOptions, invalid } from './options';
import type { OpenApiOptions, Settings } from './options';
import { planOutput } from './output';
import { Documents } from './refs';
import { buildResource, buildTemplate, unfitAs } from './resource';
import { decide } from './rules';
import type { Decision } from './rules';
import { uniqueNames, wantedName } from './names';
import { isObject, SchemaConverter } from './schema';
import { accessOf } from './security';
import { buildTool } from './tool';
import type { ItemPlan } from './tool';

/**
 * A server whose tools, resources and templates call the HTTP API an OpenAPI 3.0 or 3.1
 * document describes. Reads the document (and the files and URLs its `$ref`s name) first;
 * fails with a DefinitionError (`INVALID_OPTION`) naming what to fix.
 */
export async function fromOpenApi(options: OpenApiOptions): Promise<McpServer> {
  const settings = checkOptions(options);
  const read = documentReader(options.loadRef, settings.fetch);
  const url = typeof options.spec === 'string' ? await documentUrl(options.spec) : await workingDirectoryUrl();
  const root = typeof options.spec === 'string' ? await read(url) : options.spec;
  checkDocument(root, url);
  const documents = await Documents.open(root, url, read);
  const baseUrl = baseUrlOf(options.baseUrl, root, url);
  const skip = (label: string, why: string) => settings.warn({ code: 'OPERATION_LEFT_OUT', operation: label, message: `${label} is left out: ${why}` });
  const operations = listOperations(documents, root, url, skip);

  const decided: Array<{ operation: Operation; decision: Decision }> = [];
  const globs = new Map<string, RegExp>();
  for (const operation of operations) {
    const decision = decide(settings.rules, operation, globs);
    if (decision.as === 'exclude') continue;
    if (decision.as !== 'tool') {
      const problem = unfitAs(decision.as, operation);
      if (problem) throw invalid(`rules[${decision.rule}] makes ${labelOf(operation)} a ${decision.as}, but ${problem}, or narrow the rule`);
    }
    decided.push({ operation, decision });
  }
  const toolNames = uniqueNames(decided.filter(({ decision }) => decision.as === 'tool').map(({ operation, decision }) => wantedName(operation, decision.name)));
  const converter = new SchemaConverter(documents);
  const tools: RemoteTool[] = [];
  const resources: RemoteResource[] = [];
  const templates: RemoteTemplate[] = [];
  const leftOut: string[] = [];
  let toolIndex = 0;
  for (const { operation, decision } of decided) {
    const name = decision.as === 'tool' ? toolNames[toolIndex++] : (decision.name ?? wantedName(operation, undefined));
    if (decision.as === 'tool' && tools.length >= settings.maxTools) {
      leftOut.push(name);
      continue;
    }
    const plan: ItemPlan = {
      operation,
      info: { method: operation.method, path: operation.path, operationId: operation.operationId, tags: operation.tags, name },
      baseUrl,
      access: accessOf(operation.security, documents, root, url),
      settings,
    };
    try {
      const input = planInput(operation, converter, settings.maxSchemaBytes, settings.warn);
      if (decision.as === 'resource') resources.push(buildResource(plan, input));
      else if (decision.as === 'template') templates.push(buildTemplate(plan, input));
      else tools.push(buildTool(plan, input, settings.outputSchemas ? planOutput(operation, converter, settings.maxSchemaBytes, settings.warn) : { wrap: 'auto' }));
    } catch (error) {
      skip(labelOf(operation), (error as Error).message);
    }
  }
  if (leftOut.length > 0) reportLeftOut(settings, leftOut);

  const info = root.info as Record<string, unknown> | undefined;
  const server = new McpServer({
    ...options.server,
    name: options.name ?? (typeof info?.title === 'string' && info.title !== '' ? info.title : 'openapi'),
    version: options.version ?? (typeof info?.version === 'string' && info.version !== '' ? info.version : '0.0.0'),
  });
  server.remote({ tools, resources, templates });
  return server;
}

function checkDocument(root: unknown, url: string): asserts root is Record<string, unknown> {
  if (!isObject(root)) throw invalid(`${url} is not an OpenAPI document (an object)`);
  if (typeof root.swagger === 'string') throw invalid(`${url} is Swagger ${root.swagger}: convert it to OpenAPI 3 first (e.g. with swagger2openapi)`);
  if (typeof root.openapi !== 'string' || !/^3\.[0-2]\./.test(root.openapi)) {
    throw invalid(`${url} has openapi: ${JSON.stringify(root.openapi)}; OpenAPI 3.0 and 3.1 documents are supported`);
  }
  if (!isObject(root.paths)) throw invalid(`${url} has no paths: nothing to serve`);
}

function reportLeftOut(settings: Settings, leftOut: string[]): void {
  const shown = leftOut.slice(0, 5).join(', ');
  settings.warn({
    code: 'TOO_MANY_TOOLS',
    message: `maxTools is ${settings.maxTools}: ${leftOut.length} more tool${leftOut.length === 1 ? ' is' : 's are'} left out (${shown}${leftOut.length > 5 ? ', …' : ''}); exclude operations with rules to choose which stay`,
  });
}
