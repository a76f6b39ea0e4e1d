import { InvalidParamsError, MethodNotFoundError } from '../errors';
import { clip, echo } from '../protocol';
import type { Context } from '../runtime/Context';
import type { MethodHandler } from '../runtime/Dispatcher';
import type { CorePlugin } from '../runtime/plugins';
import { canonicalSkillUri, digestOf, encodeSegment, fileContents, fileUri, SKILL_FILE } from '../skills';
import type { RegisteredSkill, SkillFiles } from '../skills';
import type { FeatureCatalog } from './rooms';
import { pageFor, perCaller, visibleTo } from './listFor';
import { requireUri } from './params';
import { routeAll } from './routeAll';

/** The Skills extension (SEP-2640). */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** The MIME type of directory resources. */
const DIRECTORY_MIME_TYPE = 'inode/directory';

/** Children of a directory per `resources/directory/read` page. */
const DIRECTORY_PAGE_SIZE = 100;

/** What the skill methods read: the skills, their pages and their access rules. */
export type SkillsCatalog = Pick<FeatureCatalog, 'skills' | 'skillPages' | 'access'>;

/**
 * `core:skills`: `skills/list`, `skills/get` and `resources/directory/read`, and the
 * extension (with `directoryRead`) while the server serves skills, in every era.
 */
export function skillsPlugin(host: SkillsCatalog): CorePlugin {
  return {
    name: 'core:skills',
    register(plugin) {
      routeAll(plugin, skillHandlers(host));
      plugin.extension(SKILLS_EXTENSION, () => (host.skills.size > 0 ? { directoryRead: true } : undefined));
    },
  };
}

export function skillHandlers(host: SkillsCatalog): Record<string, MethodHandler> {
  const list: MethodHandler = async (params, ctx) => {
    servingSkills(host, 'skills/list');
    const { page, items } = pageFor(host, host.skillPages, params.cursor, ctx);
    const skills = await Promise.all((await items).map((skill) => entryOf(skill, ctx)));
    return perCaller(page.nextCursor === undefined ? { skills } : { skills, nextCursor: page.nextCursor }, host, ctx);
  };

  const get: MethodHandler = async (params, ctx) => {
    servingSkills(host, 'skills/get');
    const uri = requireUri(params, 'skills/get');
    const skill = host.skills.byUri(uri);
    if (!skill) throw new InvalidParamsError(`No skill is served at ${clip(uri)}`, { uri: echo(uri) });
    await host.access.check(skill.target, ctx);
    return perCaller({ skill: await entryOf(skill, ctx) }, host, ctx);
  };

  const readDirectory: MethodHandler = async (params, ctx) => {
    servingSkills(host, 'resources/directory/read');
    const uri = requireUri(params, 'resources/directory/read');
    const children = await directoryOf(host, uri, ctx);
    if (children === undefined) {
      const what = (await readSkillFile(host, uri, ctx)) ? `${clip(uri)} is not a directory resource` : `No directory is served at ${clip(uri)}`;
      throw new InvalidParamsError(what, { uri: echo(uri) });
    }
    const start = params.cursor === undefined ? 0 : positionOf(params.cursor, uri, children.length);
    const resources = children.slice(start, start + DIRECTORY_PAGE_SIZE);
    const end = start + resources.length;
    return perCaller(end < children.length ? { resources, nextCursor: cursorFor(uri, end) } : { resources }, host, ctx);
  };

  return { 'skills/list': list, 'skills/get': get, 'resources/directory/read': readDirectory };
}

/**
 * The `resources/read` contents of a skill file, or undefined when no skill serves the uri. The
 * innermost skill holding the file answers, under its access rules.
 */
export async function readSkillFile(host: Pick<FeatureCatalog, 'skills' | 'access'>, uri: string, ctx: Context): Promise<unknown[] | undefined> {
  for (const { skill, path } of host.skills.holding(uri)) {
    if (path === '') continue;
    await host.access.check(skill.target, ctx);
    const file = (await skill.files(ctx)).get(path);
    // Contents carry the server's spelling of the uri (a space the client sent raw is %20 there).
    if (file) return [fileContents(fileUri(skill, path), file)];
  }
  return undefined;
}

/** The `resources/list` entries of the skills the caller may see: each skill's `SKILL.md`. */
export async function skillResources(host: Pick<FeatureCatalog, 'skills' | 'access'>, ctx: Context): Promise<Record<string, unknown>[]> {
  if (host.skills.size === 0) return [];
  const visible = await visibleTo(host, host.skills.registry.list(), ctx);
  return visible.map((skill) => ({ uri: skill.uri, name: skill.frontmatter.name, description: skill.frontmatter.description, mimeType: 'text/markdown' }));
}

/** Whether a uri lies in the namespace of a served skill (subscriptions accept it). */
export function inSkillNamespace(host: Pick<FeatureCatalog, 'skills'>, uri: string): RegisteredSkill | undefined {
  return host.skills.holding(uri)[0]?.skill;
}

function servingSkills(host: SkillsCatalog, method: string): void {
  // A server without skills does not declare the extension, and its methods do not exist.
  if (host.skills.size === 0) throw new MethodNotFoundError(`Method not found: ${method} (this server serves no skills)`);
}

const entries = new WeakMap<RegisteredSkill, Promise<Record<string, unknown>>>();

/** A skill's `Skill` entry: its frontmatter and a manifest of every file with digest and size (kept while the skill is). */
function entryOf(skill: RegisteredSkill, ctx: Context): Promise<Record<string, unknown>> {
  if (skill.dynamic) return Promise.resolve({ uri: skill.uri, frontmatter: skill.frontmatter, resources: 'dynamic' });
  let entry = entries.get(skill);
  if (!entry) {
    entry = skill.files(ctx).then(async (files) => ({ uri: skill.uri, frontmatter: skill.frontmatter, resources: await manifestOf(skill, files) }));
    entries.set(skill, entry);
    entry.catch(() => entries.delete(skill));
  }
  return entry;
}

async function manifestOf(skill: RegisteredSkill, files: SkillFiles): Promise<Array<{ uri: string; digest: string; size: number }>> {
  // SKILL.md first, then the others in path order.
  const paths = [...files.keys()].filter((path) => path !== SKILL_FILE).sort();
  return Promise.all(
    [SKILL_FILE, ...paths].map(async (path) => {
      const { bytes } = files.get(path)!;
      return { uri: fileUri(skill, path), digest: await digestOf(bytes), size: bytes.byteLength };
    }),
  );
}

/**
 * The direct children of a directory of the skill namespace (a skill's root or a directory in
 * it, or a directory of prefix segments above skills), sorted by name; undefined when the uri
 * is no such directory. Only skills the caller may see count.
 */
async function directoryOf(host: SkillsCatalog, uri: string, ctx: Context): Promise<Array<Record<string, unknown>> | undefined> {
  const children = new Map<string, Record<string, unknown>>();
  let exists = false;
  const holding = host.skills.holding(uri);
  const visible = new Set(await visibleTo(host, holding.map((h) => h.skill), ctx));
  for (const { skill, path } of holding) {
    if (!visible.has(skill)) continue;
    const prefix = path === '' ? '' : `${path}/`;
    for (const [file, { mimeType }] of await skill.files(ctx)) {
      if (!file.startsWith(prefix)) continue;
      exists = true;
      const rest = file.slice(prefix.length);
      const slash = rest.indexOf('/');
      const name = slash < 0 ? rest : rest.slice(0, slash);
      if (children.has(name)) continue;
      children.set(name, { uri: fileUri(skill, prefix + name), name, mimeType: slash < 0 ? mimeType : DIRECTORY_MIME_TYPE });
    }
  }
  const below = host.skills.under(uri);
  const shown = new Set(await visibleTo(host, below.map((b) => b.skill), ctx));
  for (const { skill, path } of below) {
    if (!shown.has(skill)) continue;
    exists = true;
    const name = path.split('/')[0];
    if (!children.has(name)) children.set(name, { uri: `${canonicalSkillUri(uri)}/${encodeSegment(name)}`, name, mimeType: DIRECTORY_MIME_TYPE });
  }
  if (!exists) return undefined;
  return [...children.values()].sort((a, b) => ((a.name as string) < (b.name as string) ? -1 : 1));
}

/** Directory cursors name the directory and the position of the next child. */
function cursorFor(uri: string, position: number): string {
  return btoa(encodeURIComponent(`${position}:${uri}`)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

function positionOf(cursor: unknown, uri: string, length: number): number {
  if (typeof cursor === 'string' && /^[A-Za-z0-9_-]{1,2048}$/.test(cursor)) {
    try {
      const text = decodeURIComponent(atob(cursor.replace(/-/g, '+').replace(/_/g, '/')));
      const colon = text.indexOf(':');
      const position = Number(text.slice(0, colon));
      if (text.slice(colon + 1) === uri && Number.isInteger(position) && position > 0 && position < length && cursorFor(uri, position) === cursor) return position;
    } catch {
      // Not a cursor this server issued.
    }
  }
  throw new InvalidParamsError(`Invalid cursor for resources/directory/read of ${clip(uri)}: ${clip(String(cursor))}`, { cursor: echo(cursor) });
}
