import type { AccessPolicy } from '../access';
import { fileUri } from '../skills';
import type { readSkillFolder, watchSkillFolder } from '../skills/folder';
import type { FolderSkill, SkillCatalog, SkillFolderOptions } from '../skills';

/** Reads a folder of skills, and watches it for changes (Node's filesystem: see host.ts). */
export interface SkillFolderReader {
  read: typeof readSkillFolder;
  watch: typeof watchSkillFolder;
}

/** What serving a folder of skills needs of the catalog: the skills, their access rules, their subscribers, where failures go. */
export interface SkillFolderCatalog {
  readonly skills: SkillCatalog;
  readonly access: AccessPolicy;
  notifyUpdated(uri: string): void;
  reportError(what: string, error: unknown): void;
}

/**
 * Serves a folder of skills: read now (a bad folder throws here, naming the file), and when
 * watched, read again after every change; a reload that fails keeps the skills served before
 * it. Skills that did not change stay as they were; subscribers of changed files hear of it.
 */
export function serveSkillFolder(
  host: SkillFolderCatalog,
  /** Where the watch is stopped: as soon as the server starts closing. */
  onClosing: (hook: () => void) => void,
  reader: SkillFolderReader,
  folder: string,
  options: SkillFolderOptions,
): void {
  const origin = `server.skills(${JSON.stringify(folder)})`;
  let current = reader.read(folder, options);
  host.access.register(current.map((skill) => skill.target));
  host.skills.replace(origin, [], current);
  if (!options.watch) return;
  const stop = reader.watch(folder, () => {
    try {
      const next = keepUnchanged(current, reader.read(folder, options));
      host.access.register(next.map((skill) => skill.target));
      host.skills.replace(origin, current, next);
      for (const uri of changedFiles(current, next)) host.notifyUpdated(uri);
      current = next;
    } catch (error) {
      host.reportError(`${origin}: reloading the skills failed; the skills read before are still served`, error);
    }
  });
  onClosing(stop);
}

/** `next`, with each skill equal to one of `previous` replaced by that one (its manifest stays cached). */
function keepUnchanged(previous: readonly FolderSkill[], next: readonly FolderSkill[]): FolderSkill[] {
  const byPath = new Map(previous.map((skill) => [skill.path, skill]));
  return next.map((skill) => {
    const before = byPath.get(skill.path);
    return before && sameSkill(before, skill) ? before : skill;
  });
}

function sameSkill(a: FolderSkill, b: FolderSkill): boolean {
  if (JSON.stringify(a.frontmatter) !== JSON.stringify(b.frontmatter) || a.contents.size !== b.contents.size) return false;
  for (const [path, file] of a.contents) {
    const other = b.contents.get(path);
    if (!other || !sameBytes(file.bytes, other.bytes)) return false;
  }
  return true;
}

/** The uris of files served before that changed or went away. */
function changedFiles(previous: readonly FolderSkill[], next: readonly FolderSkill[]): string[] {
  const byPath = new Map(next.map((skill) => [skill.path, skill]));
  const changed = new Set<string>();
  for (const skill of previous) {
    const after = byPath.get(skill.path);
    if (after === skill) continue;
    for (const [path, file] of skill.contents) {
      const other = after?.contents.get(path);
      if (!other || !sameBytes(file.bytes, other.bytes)) changed.add(fileUri(skill, path));
    }
  }
  return [...changed];
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}
