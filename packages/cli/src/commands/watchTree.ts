import fs from 'node:fs';
import path from 'node:path';

/** Folders whose changes never restart a server. */
const IGNORED = new Set(['node_modules', 'dist', '.git']);

export interface TreeWatcher {
  close(): void;
}

/**
 * Watches a folder and its subfolders, except node_modules, dist and .git, with one watcher per
 * folder. (Node 20's `recursive` option on Linux opens a handle for every file below, those
 * folders included.) Folders created later are watched as they appear.
 */
export function watchTree(root: string, onChange: (file: string) => void, onError: (error: Error) => void): TreeWatcher {
  const watchers = new Map<string, fs.FSWatcher>();

  const unwatch = (dir: string) => {
    for (const [watched, watcher] of watchers) {
      if (watched === dir || watched.startsWith(`${dir}${path.sep}`)) {
        watcher.close();
        watchers.delete(watched);
      }
    }
  };

  const watch = (dir: string) => {
    if (watchers.has(dir)) return;
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(dir, (_event, name) => {
        if (!name) return onChange(dir);
        if (IGNORED.has(name.toString())) return;
        const file = path.join(dir, name.toString());
        if (isDirectory(file)) watch(file);
        else if (watchers.has(file)) unwatch(file);
        onChange(file);
      });
    } catch (error) {
      // Gone before it could be watched: its parent reports the change.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onError(error as Error);
      return;
    }
    watcher.on('error', (error: NodeJS.ErrnoException) => {
      unwatch(dir);
      if (error.code !== 'ENOENT' && error.code !== 'EPERM') onError(error);
    });
    watchers.set(dir, watcher);
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      // Removed meanwhile.
    }
    for (const entry of entries) if (entry.isDirectory() && !IGNORED.has(entry.name)) watch(path.join(dir, entry.name));
  };

  watch(root);
  return { close: () => unwatch(root) };
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}
