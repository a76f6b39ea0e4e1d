import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A URI scheme; two letters at least, so a Windows drive (`C:\…`) is not one. */
const SCHEME = /^[a-z][a-z0-9+.-]+:/i;

/**
 * Whether `target` (an absolute filesystem path or a `file://` URI) lies inside one of the
 * client's roots (`file://` URIs; other schemes are ignored). Both sides are compared as real
 * paths: symlinks resolved, for a target that does not exist yet through its deepest existing
 * ancestor. A path with a `..` segment (also when percent-encoded) is refused: through a
 * symlink it names another place than its text suggests.
 *
 * Answers false, rather than guessing, for relative paths (no working directory is the
 * client's), NUL bytes, non-file URIs, file URIs with a host or an encoded `/`, dangling
 * symlinks and anything the filesystem refuses to resolve. URIs are decoded exactly once.
 *
 * The answer holds for the filesystem as it is now: open the same path promptly, and do not
 * let the checked tree be writable by whoever picks the target.
 */
export async function isInsideRoots(target: string, roots: ReadonlyArray<{ uri: string }>): Promise<boolean> {
  const targetPath = toAbsolutePath(target);
  if (targetPath === undefined) return false;
  // Roots come from the client: skip entries that are not file URIs rather than trust their shape.
  const rootPaths = roots.map((root) =>
    typeof root?.uri === 'string' && /^file:/i.test(root.uri) ? toAbsolutePath(root.uri) : undefined,
  );
  if (!rootPaths.some((p) => p !== undefined)) return false;

  const realTarget = await realPathOf(targetPath);
  if (realTarget === undefined) return false;
  for (const rootPath of rootPaths) {
    if (rootPath === undefined) continue;
    const realRoot = await realPathOf(rootPath);
    if (realRoot !== undefined && contains(realRoot, realTarget)) return true;
  }
  return false;
}

/** A normalized absolute path, or undefined for anything that is not one. */
function toAbsolutePath(value: string): string | undefined {
  if (typeof value !== 'string' || value.includes('\0')) return undefined;
  let candidate = value;
  if (/^file:/i.test(value)) {
    // The URL parser resolves `..` (also as `%2e%2e`) textually; refuse it before parsing.
    const rawPath = value.replace(/[?#].*$/, '');
    if (rawPath.split('/').some((segment) => /^(\.|%2e){2}$/i.test(segment))) return undefined;
    try {
      // Decodes once; rejects encoded '/' and (on POSIX) any host but localhost.
      candidate = fileURLToPath(value);
    } catch {
      return undefined;
    }
    if (candidate.includes('\0')) return undefined;
  } else if (SCHEME.test(value)) {
    return undefined;
  }
  // `link/..` means the parent of the link's target to the filesystem, not the directory
  // that holds the link; normalizing it away textually would check a different path than
  // the one later opened. A path with `..` is refused instead of guessed at.
  if (candidate.split(/[\\/]/).includes('..')) return undefined;
  return path.isAbsolute(candidate) ? path.resolve(candidate) : undefined;
}

/**
 * The real path of an absolute, normalized path. A path that does not exist yet is its
 * deepest existing ancestor's real path plus the rest. An ancestor that exists but cannot be
 * resolved (a dangling symlink, a loop, no permission) gives undefined: whatever it points
 * to could be outside.
 */
async function realPathOf(absolute: string): Promise<string | undefined> {
  const rest: string[] = [];
  for (let current = absolute; ; ) {
    try {
      const real = await fs.realpath(current);
      return rest.length ? path.join(real, ...rest.reverse()) : real;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return undefined;
      if (await exists(current)) return undefined; // there, but its link leads nowhere
    }
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    rest.push(path.basename(current));
    current = parent;
  }
}

/** Whether the entry itself exists, without following a final symlink. */
async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch {
    return false;
  }
}

/** Segment-wise containment, so `/data` does not contain `/data-evil`. */
function contains(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  if (relative === '') return true;
  return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}
