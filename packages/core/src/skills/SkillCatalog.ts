import { DefinitionError } from '../errors';
import type { Context } from '../runtime/Context';
import type { InvocationTarget } from '../runtime/middleware';
import { Registry } from '../runtime/Registry';
import type { SkillFile } from './files';
import { canonicalSkillUri, encodePath, SKILL_SCHEME } from './names';

/** The `SKILL.md` every skill has at its root. */
export const SKILL_FILE = 'SKILL.md';

/** How much one skill may hold, as the Skills extension fixes it for every host. */
export const SKILL_LIMITS = Object.freeze({ files: 512, bytes: 16 * 1024 * 1024 });

/** A skill's files, by their path under its root. */
export type SkillFiles = ReadonlyMap<string, SkillFile>;

/** A skill the server serves, whoever makes its files: a folder, a `@Skill` method, a mounted server. */
export interface RegisteredSkill {
  /** Its path in the skill namespace: prefix segments, then its name (`acme/billing/refunds`). */
  readonly path: string;
  /** `skill://<path>/SKILL.md`. */
  readonly uri: string;
  /** `skill://<path>`: its root directory. */
  readonly root: string;
  /** Its `SKILL.md` frontmatter as a JSON object. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** Content generated for every read: no manifest of digests can be published. */
  readonly dynamic: boolean;
  /** Whose access rules apply (`@Scopes`, `@Roles`, `@Guard`, `@Public` on a `@Skill` method). */
  readonly target: InvocationTarget;
  /** Where it was declared, for messages. */
  readonly origin: string;
  /** Its files, for the request of `ctx`: a folder's as read; a `@Skill` method's made when first asked for (for every request when dynamic). */
  files(ctx: Context): Promise<SkillFiles>;
}

/** A skill read from a folder: its files are known. */
export interface FolderSkill extends RegisteredSkill {
  readonly contents: SkillFiles;
}

/** The URI of `file` (a path under the skill's root) in `skill`. */
export function fileUri(skill: Pick<RegisteredSkill, 'root'>, file: string): string {
  return `${skill.root}/${encodePath(file.split('/'))}`;
}

/** The URIs of a skill at this path. */
export function skillUris(path: string): { root: string; uri: string } {
  const root = SKILL_SCHEME + encodePath(path.split('/'));
  return { root, uri: `${root}/${SKILL_FILE}` };
}

/**
 * Checks the per-skill limits over the byte sizes of a skill's files (`SKILL.md` included): a
 * folder passes the sizes its files' stat gave, before reading any of them.
 */
export function checkLimits(sizes: readonly number[], where: string): void {
  if (sizes.length > SKILL_LIMITS.files) {
    throw new DefinitionError('INVALID_SKILL', `${where}: the skill has ${sizes.length} files; a skill may have at most ${SKILL_LIMITS.files}`);
  }
  let bytes = 0;
  for (const size of sizes) bytes += size;
  if (bytes > SKILL_LIMITS.bytes) {
    throw new DefinitionError('INVALID_SKILL', `${where}: the skill's files hold ${bytes} bytes; a skill may hold at most ${SKILL_LIMITS.bytes} (16 MiB)`);
  }
}

/**
 * The skills a server serves, by path, in registration order (`skills/list` pages over them),
 * with lookups by the URIs clients send.
 */
export class SkillCatalog {
  readonly registry = new Registry<RegisteredSkill>('skill');

  get size(): number {
    return this.registry.size;
  }

  /** The skill whose `SKILL.md` has this URI, however the client percent-encoded it. */
  byUri(uri: string): RegisteredSkill | undefined {
    const segments = segmentsOf(uri);
    if (segments === undefined || segments.length < 2 || segments[segments.length - 1] !== SKILL_FILE) return undefined;
    return this.registry.get(segments.slice(0, -1).join('/'));
  }

  /**
   * The skills whose namespace holds this URI (their root or anything under it), innermost
   * first, each with the URI's path under its root ('' for the root itself).
   */
  holding(uri: string): Array<{ skill: RegisteredSkill; path: string }> {
    const segments = segmentsOf(uri);
    if (segments === undefined) return [];
    const found: Array<{ skill: RegisteredSkill; path: string }> = [];
    for (let end = segments.length; end > 0; end--) {
      const skill = this.registry.get(segments.slice(0, end).join('/'));
      if (skill) found.push({ skill, path: segments.slice(end).join('/') });
    }
    return found;
  }

  /** The skills under a directory of the namespace that is not inside any skill (`skill://acme`), with their paths below it. */
  under(uri: string): Array<{ skill: RegisteredSkill; path: string }> {
    const segments = segmentsOf(uri);
    if (segments === undefined) return [];
    const prefix = `${segments.join('/')}/`;
    return this.registry
      .list()
      .filter((skill) => skill.path.startsWith(prefix))
      .map((skill) => ({ skill, path: skill.path.slice(prefix.length) }));
  }

  /**
   * Adds skills, or replaces those of one origin (a reloaded folder): all or nothing, a path
   * another origin serves is refused. Unchanged skills stay as they are.
   */
  replace(origin: string, previous: readonly RegisteredSkill[], next: readonly RegisteredSkill[]): void {
    const leaving = new Set(previous.map((skill) => skill.path));
    const seen = new Set<string>();
    for (const skill of next) {
      if (seen.has(skill.path) || (this.registry.has(skill.path) && !leaving.has(skill.path))) {
        throw new DefinitionError('DUPLICATE_NAME', `${skill.origin}: a skill at "${skill.path}" is already served; give one of them another path`);
      }
      seen.add(skill.path);
    }
    const kept = new Map(next.map((skill) => [skill.path, skill]));
    for (const skill of previous) {
      const replacement = kept.get(skill.path);
      if (replacement === skill) continue;
      this.registry.remove(skill.path);
    }
    for (const skill of next) if (!this.registry.has(skill.path)) this.registry.add(skill.path, skill, origin);
  }
}

/** The decoded path segments of a `skill://` URI, or undefined when it names nothing servable. */
function segmentsOf(uri: string): string[] | undefined {
  const canonical = canonicalSkillUri(uri);
  return canonical === undefined ? undefined : canonical.slice(SKILL_SCHEME.length).split('/').map((s) => decodeURIComponent(s));
}
