import { DefinitionError } from '../errors';
import type { Icon, IconFile } from '../metadata';
import { bytesToBase64 } from '../platform';

/** The largest icon file taken: it travels in `initialize`, `server/discover` and the server card. */
export const MAX_ICON_FILE_BYTES = 64 * 1024;

/** Where a bundle keeps its icon files as data URIs, by the path the server gives (written by `typemcp build`). */
export const BUNDLED_ICONS_KEY = Symbol.for('typemcp.bundledIcons.v1');
/** Where `typemcp build` hears, while it loads an application, the icon files its servers read. */
export const ICON_COLLECTOR_KEY = Symbol.for('typemcp.iconCollector.v1');

const MIME_TYPES: Readonly<Record<string, string>> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', svg: 'image/svg+xml', webp: 'image/webp' };

/** How icon files are read: given by the Node entry (Node, Bun, Deno); a Worker reads none. */
let readIcon: ((file: string) => Uint8Array) | undefined;

/** @internal Called by the Node entry, and by `typemcp build` before it loads an application. */
export function provideIconReader(read: (file: string) => Uint8Array): void {
  readIcon ??= read;
}

type Slots = { [BUNDLED_ICONS_KEY]?: Record<string, string>; [ICON_COLLECTOR_KEY]?: Map<string, string> };

/** The server's icons with every file turned into a `data:` URI; a missing, unknown or oversize file throws INVALID_OPTION. */
export function resolveIcons(icons: ReadonlyArray<Icon | IconFile> | undefined): Icon[] | undefined {
  if (icons === undefined) return undefined;
  if (!Array.isArray(icons)) throw new DefinitionError('INVALID_OPTION', 'McpServer: icons must be a list of { src } or { file }');
  return icons.map((icon) => {
    if (typeof icon !== 'object' || icon === null || !('file' in icon)) return icon as Icon;
    const { file, ...rest } = icon;
    return { src: dataUriOf(file, icon.mimeType), ...rest };
  });
}

function dataUriOf(file: unknown, mimeType: string | undefined): string {
  const where = `McpServer: the icon file ${JSON.stringify(file)}`;
  if (typeof file !== 'string' || file === '') throw new DefinitionError('INVALID_OPTION', 'McpServer: an icon\'s file must be a path ("./icon.png")');
  const slots = globalThis as Slots;
  const bundled = slots[BUNDLED_ICONS_KEY]?.[file];
  if (bundled !== undefined) return bundled;
  const type = mimeType ?? MIME_TYPES[file.slice(file.lastIndexOf('.') + 1).toLowerCase()];
  if (type === undefined) throw new DefinitionError('INVALID_OPTION', `${where}: give its mimeType, or use a .png, .jpg, .svg or .webp file`);
  if (readIcon === undefined) throw new DefinitionError('INVALID_OPTION', `${where} is not in the bundle, and this runtime reads no files: bundle the server with \`typemcp build\`, making the server when the module loads`);
  let bytes: Uint8Array;
  try {
    bytes = readIcon(file);
  } catch (error) {
    throw new DefinitionError('INVALID_OPTION', `${where} cannot be read (a path is relative to the folder the server runs from): ${(error as Error).message}`);
  }
  if (bytes.byteLength > MAX_ICON_FILE_BYTES) {
    throw new DefinitionError('INVALID_OPTION', `${where} is ${Math.ceil(bytes.byteLength / 1024)} KiB; an icon file may be ${MAX_ICON_FILE_BYTES / 1024} KiB at most (it travels in every handshake): make it smaller, or host it and give its https URL as src`);
  }
  const uri = `data:${type};base64,${bytesToBase64(bytes)}`;
  slots[ICON_COLLECTOR_KEY]?.set(file, uri);
  return uri;
}
