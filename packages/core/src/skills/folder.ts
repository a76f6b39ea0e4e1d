import { DefinitionError } from '../errors';
import type { InvocationTarget } from '../runtime/middleware';
import type { SkillFile } from './files';
import { mimeTypeOf } from './files';
import { readFrontmatter } from './frontmatter';
import { checkSkillPath } from './names';
import { checkLimits, SKILL_FILE, SKILL_LIMITS, skillUris } from './SkillCatalog';
import type { FolderSkill } from './SkillCatalog';

/** How a folder of skills is served (`server.skills(folder, options)`). */
export interface SkillFolderOptions {
  /**
   * Segments put before every skill path of the folder (`'acme/billing'` serves
   * `refunds/SKILL.md` as `skill://acme/billing/refunds/SKILL.md`). None by default.
   */
  prefix?: string;
  /** Reloads the folder when its files change and tells clients (list_changed, resources/updated). Off by default. */
  watch?: boolean;
}

/** The owner of folder skills' access rules: none, so they follow the server's defaults. */
class SkillFolder {
  files(): void {}
}

type NodeFs = typeof import('node:fs');
type NodePath = typeof import('node:path');

/**
 * Reads a folder of Agent Skills: every directory below it holding a `SKILL.md` is a skill
 * (nested ones too), its path the directory's path under the folder. Files and directories
 * whose names start with "." are left out, as are files outside every skill and anything that
 * is not a regular file or a directory (a FIFO, a socket, a device). Links are judged by where
 * they lead (their real path). Fails with a DefinitionError naming the file on a malformed
 * `SKILL.md`, a name that is not its directory's, a skill over the limits (from the files'
 * sizes, before any is read), a link that leads out of the folder, or a link in a skill that
 * cannot be followed, leads out of the skill's own directory, or leads to a name starting with
 * "." (outside every skill, such a link is left out with the rest).
 */
export function readSkillFolder(folder: string, options: SkillFolderOptions = {}): FolderSkill[] {
  const fs: NodeFs = require('node:fs');
  const path: NodePath = require('node:path');
  const where = `server.skills(${JSON.stringify(folder)})`;
  let root: string;
  try {
    root = fs.realpathSync(folder);
    if (!fs.statSync(root).isDirectory()) throw new Error('not a directory');
  } catch (error) {
    throw new DefinitionError('INVALID_SKILL', `${where}: the skills folder cannot be read (${(error as Error).message})`);
  }
  const prefix = options.prefix === undefined || options.prefix === '' ? [] : prefixSegments(options.prefix, where);
  const { found, refused } = listFolder(fs, path, root);
  const isSkillFile = (file: string) => file === SKILL_FILE || file.endsWith(`/${SKILL_FILE}`);
  // A SKILL.md that is a refused link still makes a skill: one that fails, naming the link.
  const skillFiles = [...[...found.keys()].filter((file) => found.get(file)!.stat.isFile() && isSkillFile(file)), ...[...refused.keys()].filter(isSkillFile)];
  const skillDirs = skillFiles.map((file) => file.slice(0, -SKILL_FILE.length - 1));
  if (skillDirs.includes('')) {
    throw new DefinitionError('INVALID_SKILL', `${path.join(root, SKILL_FILE)}: a skill needs a directory of its own, named after it; this SKILL.md is the skills folder's own`);
  }
  // Every skill is checked (its path, its links, its size from stat) before any file is read.
  const skills = skillDirs.map((dir) => {
    const segments = [...prefix, ...dir.split('/')];
    const skillFile = path.join(root, ...dir.split('/'), SKILL_FILE);
    checkSkillPath(segments.join('/'), skillFile);
    for (const [file, why] of refused) if (file.startsWith(`${dir}/`)) throw new DefinitionError('INVALID_SKILL', why);
    const home = found.get(dir)!.real;
    const own = new Map<string, Found>();
    for (const [file, entry] of found) {
      if (!file.startsWith(`${dir}/`)) continue;
      checkInSkill(path, root, home, entry, path.join(root, ...file.split('/')));
      if (!entry.stat.isFile()) continue;
      if (entry.stat.size > SKILL_LIMITS.bytes) {
        throw new DefinitionError('INVALID_SKILL', `${entry.real}: the file is ${entry.stat.size} bytes; a skill may hold at most ${SKILL_LIMITS.bytes} (16 MiB)`);
      }
      own.set(file.slice(dir.length + 1), entry);
    }
    checkLimits([...own.values()].map((entry) => entry.stat.size), skillFile);
    return { segments, skillFile, own };
  });
  // A nested skill's files are its enclosing skill's too: each is read once.
  const read = new Map<string, Uint8Array>();
  const bytesOf = (entry: Found) => {
    let bytes = read.get(entry.real);
    if (!bytes) read.set(entry.real, (bytes = readListed(fs, entry)));
    return bytes;
  };
  return skills.map(({ segments, skillFile, own }) => {
    const files = new Map<string, SkillFile>();
    for (const [inSkill, entry] of own) files.set(inSkill, { path: inSkill, bytes: bytesOf(entry), mimeType: mimeTypeOf(inSkill) });
    const text = decodeUtf8(files.get(SKILL_FILE)!.bytes, skillFile);
    const frontmatter = readFrontmatter(text, segments[segments.length - 1], skillFile);
    const skillPath = segments.join('/');
    const target: InvocationTarget = { kind: 'skill', name: skillPath, provider: SkillFolder, methodName: 'files' };
    const contents = Promise.resolve(files);
    return { path: skillPath, ...skillUris(skillPath), frontmatter, contents: files, files: () => contents, dynamic: false, target, origin: skillFile };
  });
}

/** Calls `onChange` (at most every 100 ms) while files under the folder change; returns how to stop. */
export function watchSkillFolder(folder: string, onChange: () => void): () => void {
  const fs: NodeFs = require('node:fs');
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watcher = fs.watch(folder, { recursive: true, persistent: false }, () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, 100);
  });
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}

/** A file or directory of the folder: where it really is (no link in that path), and its stat. */
interface Found {
  readonly real: string;
  readonly stat: import('node:fs').Stats;
  /** It is itself a link. */
  readonly link: boolean;
}

/**
 * Every regular file and directory under `root` by its `/`-separated path (`found`),
 * directories before what they hold, each directory entered once; names starting with "."
 * left out, as is anything else (a FIFO, a socket, a device). Links are followed to their real
 * path; one that leads out of the folder is a DefinitionError, one that cannot be followed or
 * leads to a name starting with "." is not followed, and is kept in `refused` with the reason
 * (an error if a skill holds it: see readSkillFolder). Only `stat`: no file is opened.
 */
function listFolder(fs: NodeFs, path: NodePath, root: string): { found: Map<string, Found>; refused: Map<string, string> } {
  const found = new Map<string, Found>();
  const refused = new Map<string, string>();
  const entered = new Set<string>([root]);
  const walk = (directory: string, relative: string) => {
    for (const entry of fs.readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.')) continue;
      const file = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const listed = path.join(root, ...file.split('/'));
      let real = path.join(directory, entry.name);
      const link = entry.isSymbolicLink();
      if (link) {
        try {
          real = fs.realpathSync(real);
        } catch (error) {
          refused.set(file, `${listed}: the link cannot be followed (${(error as Error).message})`);
          continue;
        }
        if (!isInside(path, root, real)) {
          throw new DefinitionError('INVALID_SKILL', `${listed}: links to ${real}, outside the skills folder ${root}; skills are served only from inside it`);
        }
        const hidden = hiddenComponent(path, root, real);
        if (hidden !== undefined) {
          refused.set(file, `${listed}: links to ${real}, a hidden file or directory (${JSON.stringify(hidden)}); names starting with "." are not served, through a link neither`);
          continue;
        }
      }
      const stat = fs.statSync(real);
      if (stat.isDirectory()) {
        // Listed even when entered already, so that its skill checks where it leads.
        found.set(file, { real, stat, link });
        if (entered.has(real)) continue;
        entered.add(real);
        walk(real, file);
      } else if (stat.isFile()) {
        found.set(file, { real, stat, link });
      }
    }
  };
  walk(root, '');
  return { found, refused };
}

/** Whether `real` is `home` or below it (both real paths). */
function isInside(path: NodePath, home: string, real: string): boolean {
  const relative = path.relative(home, real);
  return relative === '' || (!path.isAbsolute(relative) && relative !== '..' && !relative.startsWith(`..${path.sep}`));
}

/** The first component of `real`'s path under `home` that starts with ".", if any. */
function hiddenComponent(path: NodePath, home: string, real: string): string | undefined {
  const relative = path.relative(home, real);
  return relative === '' ? undefined : relative.split(path.sep).find((component) => component.startsWith('.'));
}

/**
 * Checks a file or directory of a skill against the skill's real directory (`home`): it must
 * be below it, with no component starting with "." on the way. (Links to hidden names were
 * refused already, as judged from the root: `home`'s own path under the root has none, so this
 * is a second look, for what reaches a skill otherwise.)
 */
function checkInSkill(path: NodePath, root: string, home: string, entry: Found, listed: string): void {
  const how = entry.link ? `links to ${entry.real}` : `is ${entry.real}`;
  if (!isInside(path, home, entry.real)) {
    throw new DefinitionError('INVALID_SKILL', `${listed}: ${how}, outside the skill's folder ${home}; a skill serves only its own files`);
  }
  const hidden = hiddenComponent(path, home, entry.real) ?? hiddenComponent(path, root, entry.real);
  if (hidden !== undefined) {
    throw new DefinitionError('INVALID_SKILL', `${listed}: ${how}, a hidden file or directory (${JSON.stringify(hidden)}); names starting with "." are not served, through a link neither`);
  }
}

function prefixSegments(prefix: string, where: string): string[] {
  const segments = prefix.split('/');
  // A prefix is checked as a skill path would be, with a placeholder for the name.
  checkSkillPath([...segments, 'skill'].join('/'), `${where}: prefix`);
  return segments;
}

/**
 * The bytes of a listed file, read through a descriptor that is checked to be the very file
 * listed (same device and inode, still a regular file: never a FIFO or device swapped in, and
 * opened non-blocking so one cannot hang the read), and never past the size its stat gave,
 * which the limits were checked against: a file that grew since is refused.
 */
function readListed(fs: NodeFs, entry: Found): Uint8Array {
  const { real, stat } = entry;
  const flags = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
  let fd: number;
  try {
    fd = fs.openSync(real, flags);
  } catch (error) {
    throw new DefinitionError('INVALID_SKILL', `${real}: cannot be read (${(error as Error).message})`);
  }
  try {
    const now = fs.fstatSync(fd);
    if (!now.isFile() || now.dev !== stat.dev || now.ino !== stat.ino) {
      throw new DefinitionError('INVALID_SKILL', `${real}: changed while it was read (another file took its place)`);
    }
    const bytes = new Uint8Array(stat.size);
    let length = 0;
    while (length < bytes.length) {
      const n = fs.readSync(fd, bytes, length, bytes.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length === bytes.length && fs.readSync(fd, new Uint8Array(1), 0, 1, null) > 0) {
      throw new DefinitionError('INVALID_SKILL', `${real}: changed while it was read (it had ${stat.size} bytes when listed, and more when read)`);
    }
    return length === bytes.length ? bytes : bytes.subarray(0, length);
  } finally {
    fs.closeSync(fd);
  }
}

function decodeUtf8(bytes: Uint8Array, where: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new DefinitionError('INVALID_SKILL', `${where}: SKILL.md must be UTF-8 text`);
  }
}

