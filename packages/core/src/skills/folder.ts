import { DefinitionError } from '../errors';
import type { InvocationTarget } from '../runtime/middleware';
import type { SkillFile } from './files';
import { mimeTypeOf } from './files';
import { readFrontmatter } from './frontmatter';
import { checkSkillPath } from './names';
import { checkLimits, SKILL_FILE, skillUris } from './SkillCatalog';
import type { RegisteredSkill } from './SkillCatalog';

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
 * whose names start with "." are left out, as are files outside every skill. Fails with a
 * DefinitionError naming the file on a malformed `SKILL.md`, a name that is not its
 * directory's, a skill over the limits, or a link that leads out of the folder.
 */
export function readSkillFolder(folder: string, options: SkillFolderOptions = {}): RegisteredSkill[] {
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
  const files = listFiles(fs, path, root);
  const skillDirs = [...files.keys()].filter((file) => file === SKILL_FILE || file.endsWith(`/${SKILL_FILE}`)).map((file) => file.slice(0, -SKILL_FILE.length - 1));
  if (skillDirs.includes('')) {
    throw new DefinitionError('INVALID_SKILL', `${path.join(root, SKILL_FILE)}: a skill needs a directory of its own, named after it; this SKILL.md is the skills folder's own`);
  }
  // A nested skill's files are its enclosing skill's too: each is read once.
  const read = new Map<string, Uint8Array>();
  const bytesOf = (absolute: string) => {
    let bytes = read.get(absolute);
    if (!bytes) read.set(absolute, (bytes = readBytes(fs, absolute)));
    return bytes;
  };
  return skillDirs.map((dir) => {
    const segments = [...prefix, ...dir.split('/')];
    const skillFile = path.join(root, ...dir.split('/'), SKILL_FILE);
    checkSkillPath(segments.join('/'), skillFile);
    const own = new Map<string, SkillFile>();
    for (const [file, absolute] of files) {
      if (!file.startsWith(`${dir}/`)) continue;
      const inSkill = file.slice(dir.length + 1);
      own.set(inSkill, { path: inSkill, bytes: bytesOf(absolute), mimeType: mimeTypeOf(inSkill) });
    }
    checkLimits(own, skillFile);
    const text = decodeUtf8(own.get(SKILL_FILE)!.bytes, skillFile);
    const frontmatter = readFrontmatter(text, segments[segments.length - 1], skillFile);
    const skillPath = segments.join('/');
    const target: InvocationTarget = { kind: 'skill', name: skillPath, provider: SkillFolder, methodName: 'files' };
    return { path: skillPath, ...skillUris(skillPath), frontmatter, files: own, dynamic: false, target, origin: skillFile };
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

/**
 * Every file under `root` by its `/`-separated path: links followed only while they stay
 * inside the folder, each directory entered once.
 */
function listFiles(fs: NodeFs, path: NodePath, root: string): Map<string, string> {
  const files = new Map<string, string>();
  const entered = new Set<string>([root]);
  const walk = (directory: string, relative: string) => {
    for (const entry of fs.readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.')) continue;
      const absolute = path.join(directory, entry.name);
      const file = relative === '' ? entry.name : `${relative}/${entry.name}`;
      let real = absolute;
      if (entry.isSymbolicLink()) {
        real = fs.realpathSync(absolute);
        if (real !== root && !real.startsWith(root + path.sep)) {
          throw new DefinitionError('INVALID_SKILL', `${absolute}: links to ${real}, outside the skills folder ${root}; skills are served only from inside it`);
        }
      }
      const stat = fs.statSync(real);
      if (stat.isDirectory()) {
        if (entered.has(real)) continue;
        entered.add(real);
        walk(real, file);
      } else if (stat.isFile()) {
        files.set(file, real);
      }
    }
  };
  walk(root, '');
  return files;
}

function prefixSegments(prefix: string, where: string): string[] {
  const segments = prefix.split('/');
  // A prefix is checked as a skill path would be, with a placeholder for the name.
  checkSkillPath([...segments, 'skill'].join('/'), `${where}: prefix`);
  return segments;
}

function readBytes(fs: NodeFs, file: string): Uint8Array {
  const buffer = fs.readFileSync(file);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function decodeUtf8(bytes: Uint8Array, where: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new DefinitionError('INVALID_SKILL', `${where}: SKILL.md must be UTF-8 text`);
  }
}

