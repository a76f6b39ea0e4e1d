import { DefinitionError } from '../errors';
import { isPlainObject } from '../protocol';
import type { Constructor, SkillContent, SkillDefinition } from '../metadata';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import type { SkillFile } from './files';
import { mimeTypeOf } from './files';
import { checkFrontmatter, writeSkillMarkdown } from './frontmatter';
import { checkSkillPath } from './names';
import { checkLimits, SKILL_FILE, skillUris } from './SkillCatalog';
import type { RegisteredSkill, SkillFiles } from './SkillCatalog';

/** How a server calls author code: its invoker (resolves the provider, runs its `@UseMiddleware` chain). */
export type Invoke = (target: InvocationTarget, args: readonly unknown[], ctx: Context) => unknown;

/**
 * A `@Skill` method's skill, its files made by the method through the server's `invoke` when
 * first asked for (and for every request when dynamic). Checks the options.
 */
export function buildSkill(definition: SkillDefinition, provider: Constructor, invoke: Invoke): RegisteredSkill {
  const { options, methodName } = definition;
  const where = `${provider.name}.${methodName}`;
  if (!isPlainObject(options) || typeof options.path !== 'string') {
    throw new DefinitionError('INVALID_OPTION', `${where}: @Skill needs a path, e.g. @Skill({ path: 'git-workflow', description: '…' })`);
  }
  if (options.resources !== undefined && options.resources !== 'dynamic') {
    throw new DefinitionError('INVALID_OPTION', `${where}: @Skill resources may only be "dynamic" (or left out), not ${JSON.stringify(options.resources)}`);
  }
  if (options.frontmatter !== undefined && !isPlainObject(options.frontmatter)) {
    throw new DefinitionError('INVALID_OPTION', `${where}: @Skill frontmatter must be an object of further frontmatter fields`);
  }
  const segments = checkSkillPath(options.path, `${where}: @Skill`);
  const name = segments[segments.length - 1];
  const given = options.frontmatter ?? {};
  for (const key of ['name', 'description'] as const) {
    if (key in given) throw new DefinitionError('INVALID_OPTION', `${where}: @Skill frontmatter must not set "${key}"; ${key === 'name' ? 'the name is the last segment of path' : 'use the description option'}`);
  }
  const frontmatter = { name, description: options.description, ...structuredClone(given) };
  checkFrontmatter(frontmatter, name, `${where}: @Skill`);
  const dynamic = options.resources === 'dynamic';
  const target: InvocationTarget = { kind: 'skill', name: options.path, provider, methodName };
  let made: Promise<SkillFiles> | undefined;
  const skill: RegisteredSkill = {
    path: options.path,
    ...skillUris(options.path),
    frontmatter,
    dynamic,
    target,
    origin: where,
    files(ctx) {
      const make = async () => skillFilesOf(skill, await invoke(target, [ctx], ctx));
      if (dynamic) return make();
      if (!made) {
        const files = (made = make());
        // A method that failed runs again for the next request.
        files.catch(() => {
          if (made === files) made = undefined;
        });
      }
      return made;
    },
  };
  return skill;
}

/**
 * The files of a `@Skill` method's result: `SKILL.md` written from the frontmatter and the
 * instructions, then the other files. A path that leaves the skill, or a skill over the limits,
 * is refused with an error naming the method.
 */
export function skillFilesOf(skill: Pick<RegisteredSkill, 'origin' | 'frontmatter'>, content: unknown): Map<string, SkillFile> {
  const where = skill.origin;
  const result: SkillContent | undefined = typeof content === 'string' ? { instructions: content } : isPlainObject(content) ? (content as unknown as SkillContent) : undefined;
  if (result === undefined || typeof result.instructions !== 'string') {
    throw new TypeError(`${where}: a @Skill method returns the SKILL.md body as a string, or { instructions, files }`);
  }
  const encoder = new TextEncoder();
  const files = new Map<string, SkillFile>();
  files.set(SKILL_FILE, { path: SKILL_FILE, bytes: encoder.encode(writeSkillMarkdown(skill.frontmatter, result.instructions)), mimeType: 'text/markdown' });
  for (const [path, value] of Object.entries(result.files ?? {})) {
    const segments = path.split('/');
    if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\')) || path === SKILL_FILE) {
      throw new TypeError(`${where}: the file path ${JSON.stringify(path)} must be a relative "/"-separated path inside the skill, without "." or ".." segments, and not SKILL.md (written from the frontmatter and instructions)`);
    }
    if (typeof value !== 'string' && !(value instanceof Uint8Array)) throw new TypeError(`${where}: the file ${JSON.stringify(path)} must be a string or a Uint8Array`);
    files.set(path, { path, bytes: typeof value === 'string' ? encoder.encode(value) : value, mimeType: mimeTypeOf(path) });
  }
  checkLimits([...files.values()].map((file) => file.bytes.byteLength), where);
  return files;
}
