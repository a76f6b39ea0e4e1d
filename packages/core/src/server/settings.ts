import { modernSettings } from '../eras';
import type { ModernSettings, ServerDescription } from '../eras';
import { DefinitionError } from '../errors';
import { ServerCard } from '../features/serverCard';
import { isLoggingLevel } from '../runtime/Logger';
import { LOGGING_LEVELS } from '../session';
import type { LoggingLevel } from '../session';
import { resolveIcons } from './iconFiles';
import type { McpServerOptions } from './options';

/** The options of a server as it runs with them: checked, with their defaults. */
export interface ServerSettings {
  readonly debug: boolean;
  readonly info: ServerDescription['info'];
  readonly serverInfo: { readonly name: string; readonly version: string };
  readonly instructions: string | undefined;
  readonly modern: ModernSettings;
  /** Log threshold for sessions that never sent `logging/setLevel`. */
  readonly defaultLogLevel: LoggingLevel;
  readonly logRateLimit: number;
  readonly requestTimeoutMs: number;
  readonly maxRequestsInFlight: number;
  readonly maxBatchSize: number;
  /** The server card, with the `serverCard` option. */
  readonly serverCard: ServerCard | undefined;
}

/** Checks a server's options (an invalid one throws INVALID_OPTION) and fills in the defaults. */
export function settingsOf(options: McpServerOptions): ServerSettings {
  const pageSize = options.pageSize;
  if (pageSize !== undefined && pageSize !== false && !(Number.isInteger(pageSize) && pageSize > 0)) {
    throw new DefinitionError('INVALID_OPTION', `McpServer: pageSize must be a positive integer or false, not ${String(pageSize)}`);
  }
  if (options.logLevel !== undefined && !isLoggingLevel(options.logLevel)) {
    throw new DefinitionError('INVALID_OPTION', `McpServer: logLevel must be one of ${LOGGING_LEVELS.join(', ')}, not ${JSON.stringify(options.logLevel)}`);
  }
  const rate = options.logRateLimit;
  if (rate !== undefined && !(typeof rate === 'number' && rate > 0 && Number.isFinite(rate))) {
    throw new DefinitionError('INVALID_OPTION', `McpServer: logRateLimit must be a positive number of messages per second, not ${String(rate)}`);
  }
  checkEnvironment(options.environment);
  const icons = resolveIcons(options.icons);
  const info = { name: options.name, version: options.version, title: options.title, description: options.description, websiteUrl: options.websiteUrl, icons };
  return {
    debug: options.debug ?? false,
    info,
    serverInfo: { name: options.name, version: options.version },
    instructions: options.instructions,
    modern: modernSettings({ ...options, icons }),
    defaultLogLevel: options.logLevel ?? 'info',
    logRateLimit: options.logRateLimit ?? 100,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    maxRequestsInFlight: positiveInteger(options.maxRequestsInFlight, 1000, 'maxRequestsInFlight'),
    maxBatchSize: positiveInteger(options.maxBatchSize, 100, 'maxBatchSize'),
    serverCard: options.serverCard === undefined || options.serverCard === false ? undefined : new ServerCard(options.serverCard === true ? {} : options.serverCard, info),
  };
}

/** What `describeAs` changes of a running server's description. */
export interface IdentityUpdate {
  title?: string | undefined;
  instructions?: string | undefined;
}

/**
 * Changes the title and instructions a server tells clients from the next `initialize` or
 * `server/discover` on, in `serverInfo` of both eras: a field present in `update` is set, or
 * dropped when undefined; one absent is kept.
 */
export function redescribe(settings: { info: { title?: string }; modern: { serverInfo: { title?: string }; discoverInfo: { title?: string } }; instructions: string | undefined }, update: IdentityUpdate): void {
  if ('title' in update) {
    const { title } = update;
    if (title !== undefined && typeof title !== 'string') throw new DefinitionError('INVALID_OPTION', `McpServer.describeAs: title must be a string, not ${typeof title}`);
    for (const info of new Set([settings.info, settings.modern.serverInfo, settings.modern.discoverInfo])) {
      if (title === undefined) delete info.title;
      else info.title = title;
    }
  }
  if ('instructions' in update) {
    const { instructions } = update;
    if (instructions !== undefined && typeof instructions !== 'string') throw new DefinitionError('INVALID_OPTION', `McpServer.describeAs: instructions must be a string, not ${typeof instructions}`);
    settings.instructions = instructions;
  }
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isInteger(value) && value > 0)) throw new DefinitionError('INVALID_OPTION', `McpServer: ${name} must be a positive integer, not ${String(value)}`);
  return value;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `environment`: a list of variables, each named once, with fields of the types server.json takes. */
function checkEnvironment(environment: McpServerOptions['environment']): void {
  if (environment === undefined) return;
  const refuse = (why: string) => {
    throw new DefinitionError('INVALID_OPTION', `McpServer: environment ${why}`);
  };
  if (!Array.isArray(environment)) refuse('must be a list of { name, description?, isRequired?, isSecret?, default? }');
  const seen = new Set<string>();
  for (const variable of environment) {
    const name = (variable as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || !VARIABLE_NAME.test(name)) refuse(`names a variable ${JSON.stringify(name)}: a name is letters, digits and _, not starting with a digit`);
    if (seen.has(name as string)) refuse(`declares ${name as string} twice`);
    seen.add(name as string);
    for (const field of ['description', 'default'] as const) {
      if (variable[field] !== undefined && typeof variable[field] !== 'string') refuse(`${name as string}: ${field} must be a string`);
    }
    for (const field of ['isRequired', 'isSecret'] as const) {
      if (variable[field] !== undefined && typeof variable[field] !== 'boolean') refuse(`${name as string}: ${field} must be true or false`);
    }
  }
}
