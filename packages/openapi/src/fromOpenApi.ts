import { McpServer } from '@typemcp/core';
import type { RemoteResource, RemoteTemplate, RemoteTool } from '@typemcp/core';
import { baseUrlOf } from './baseUrl';
import { planInput } from './input';
import { documentReader, documentUrl, readFailure, workingDirectoryUrl } from './load';
import { labelOf, listOperations, reachOperation, readOperation } from './operations';
import type { Operation, OperationHead } from './operations';
import { checkOptions, invalid } from './options';
import type { OpenApiOptions, Settings } from './options';
import { planOutput } from './output';
import { Documents } from './refs';
import { buildResource, buildTemplate, unfitAs } from './resource';
import { decide } from './rules';
import type { Decision } from './rules';
import { RefScope } from './scope';
import { uniqueNames, wantedName } from './names';
import { isObject, SchemaConverter } from './schema';
import { accessOf } from './security';
import { buildTool } from './tool';
import type { ItemPlan } from './tool';

/**
 * A server whose tools, resources and templates call the HTTP API an OpenAPI 3.0 or 3.1
 * document describes. Reads the document, then the files and URLs its `$ref`s name as the
 * operations served use them; fails with a DefinitionError (`INVALID_OPTION`) naming what to fix.
 */
export async function fromOpenApi(options: OpenApiOptions): Promise<McpServer> {
  const settings = checkOptions(options);
  const url = typeof options.spec === 'string' ? await documentUrl(options.spec) : await workingDirectoryUrl();
  const scope = new RefScope(url, settings.allowRef, typeof options.spec === 'string' ? undefined : 'the working directory');
  const read = documentReader(options.loadRef, settings.fetch, { timeoutMs: settings.timeoutMs, maxBytes: settings.maxDocumentBytes }, scope);
  let root: unknown = options.spec;
  if (typeof options.spec === 'string') {
    try {
      root = await read(url);
    } catch (error) {
      throw readFailure(error, url);
    }
  }
  checkDocument(root, url);
  const documents = new Documents(root, url, read);
  const baseUrl = baseUrlOf(options.baseUrl, root, url);
  const skip = (label: string, why: string) => settings.warn({ code: 'OPERATION_LEFT_OUT', operation: label, message: `${label} is left out: ${why}` });
  // Path items first (rules match what they hold), then each operation's refs when it is served.
  for (const item of Object.values(root.paths as Record<string, unknown>)) await documents.reachChain(item, url);
  const operations = listOperations(documents, root, url, skip);

  const decided: Array<{ head: OperationHead; decision: Decision }> = [];
  const globs = new Map<string, RegExp>();
  for (const head of operations) {
    const decision = decide(settings.rules, head, globs);
    if (decision.as !== 'exclude') decided.push({ head, decision });
  }
  const toolNames = uniqueNames(decided.filter(({ decision }) => decision.as === 'tool').map(({ head, decision }) => wantedName(head, decision.name)));
  const converter = new SchemaConverter(documents);
  const tools: RemoteTool[] = [];
  const resources: RemoteResource[] = [];
  const templates: RemoteTemplate[] = [];
  const leftOut: string[] = [];
  let toolIndex = 0;
  for (const { head, decision } of decided) {
    const name = decision.as === 'tool' ? toolNames[toolIndex++] : (decision.name ?? wantedName(head, undefined));
    if (decision.as === 'tool' && tools.length >= settings.maxTools) {
      leftOut.push(name);
      continue;
    }
    await reachOperation(documents, root, url, head);
    let operation: Operation;
    try {
      operation = readOperation(documents, root, head);
    } catch (error) {
      skip(labelOf(head), (error as Error).message);
      continue;
    }
    if (decision.as === 'resource' || decision.as === 'template') {
      const problem = unfitAs(decision.as, operation);
      if (problem) throw invalid(`rules[${decision.rule}] makes ${labelOf(operation)} a ${decision.as}, but ${problem}, or narrow the rule`);
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
