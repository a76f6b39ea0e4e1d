import { DefinitionError } from '../errors';
import type { AppResourceUi, ToolUi } from '../metadata';
import { isPlainObject } from '../protocol';

/** The MCP Apps extension (SEP-1865). */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of an app's UI resource: an HTML document for the host to render. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The flat key older hosts read the tool's UI from; sent beside `_meta.ui` until hosts drop it. */
const LEGACY_RESOURCE_URI_META = 'ui/resourceUri';

const VISIBILITIES = ['model', 'app'];
const CSP_LISTS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'];
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'];

/** Checks `@Tool({ ui })`; the resource it names is checked once the server serves (checkAppLinks). */
export function checkToolUi(ui: ToolUi, where: string): void {
  if (!isPlainObject(ui) || typeof ui.resourceUri !== 'string' || !ui.resourceUri.startsWith('ui://') || ui.resourceUri.length === 'ui://'.length) {
    throw new DefinitionError('INVALID_OPTION', `${where}: ui.resourceUri must be the ui:// URI of the app's UI resource, e.g. @Tool({ ui: { resourceUri: 'ui://counter/app.html' } })`);
  }
  const visibility = ui.visibility;
  if (visibility !== undefined && !(Array.isArray(visibility) && visibility.length > 0 && visibility.every((v) => VISIBILITIES.includes(v)) && new Set(visibility).size === visibility.length)) {
    throw new DefinitionError('INVALID_OPTION', `${where}: ui.visibility must list "model", "app" or both, once each, not ${JSON.stringify(visibility)}`);
  }
  for (const key of Object.keys(ui)) {
    if (key !== 'resourceUri' && key !== 'visibility') {
      throw new DefinitionError('INVALID_OPTION', `${where}: ui.${key} is not a tool setting; csp, permissions, domain and prefersBorder belong on the UI resource: @Resource({ uri, ui: { ${key}: … } })`);
    }
  }
}

/** Checks `@Resource({ ui })`: a fixed `ui://` URI and well-formed settings. */
export function checkResourceUi(ui: AppResourceUi, uri: string, where: string): void {
  if (!uri.startsWith('ui://') || uri.includes('{')) {
    throw new DefinitionError('INVALID_OPTION', `${where}: an app's UI resource needs a fixed ui:// URI, not "${uri}"`);
  }
  if (!isPlainObject(ui)) throw new DefinitionError('INVALID_OPTION', `${where}: ui must be an object of UI settings (csp, permissions, domain, prefersBorder), or {}`);
  if (ui.csp !== undefined) {
    if (!isPlainObject(ui.csp)) throw new DefinitionError('INVALID_OPTION', `${where}: ui.csp must be an object of origin lists`);
    for (const list of CSP_LISTS) {
      const origins = (ui.csp as Record<string, unknown>)[list];
      if (origins !== undefined && !(Array.isArray(origins) && origins.every((o) => typeof o === 'string' && o !== ''))) {
        throw new DefinitionError('INVALID_OPTION', `${where}: ui.csp.${list} must be a list of origins such as "https://api.example.com"`);
      }
    }
  }
  if (ui.permissions !== undefined) {
    if (!isPlainObject(ui.permissions) || Object.entries(ui.permissions).some(([name, value]) => !PERMISSIONS.includes(name) || !isPlainObject(value))) {
      throw new DefinitionError('INVALID_OPTION', `${where}: ui.permissions maps ${PERMISSIONS.join(', ')} to {} (e.g. { camera: {} })`);
    }
  }
  if (ui.domain !== undefined && (typeof ui.domain !== 'string' || ui.domain === '')) throw new DefinitionError('INVALID_OPTION', `${where}: ui.domain must be a non-empty string`);
  if (ui.prefersBorder !== undefined && typeof ui.prefersBorder !== 'boolean') throw new DefinitionError('INVALID_OPTION', `${where}: ui.prefersBorder must be true or false`);
}

/** A tool listing's `_meta` with its UI: `ui` and the flat key older hosts read, beside the author's own `_meta`. */
export function toolUiMeta(ui: ToolUi, own: Record<string, unknown> | undefined): Record<string, unknown> {
  const shown: Record<string, unknown> = { resourceUri: ui.resourceUri };
  if (ui.visibility !== undefined) shown.visibility = ui.visibility;
  return { ...own, ui: { ...(own?.ui as Record<string, unknown> | undefined), ...shown }, [LEGACY_RESOURCE_URI_META]: ui.resourceUri };
}

/** A tool listing as a client that cannot show apps gets it: without its UI in `_meta`. */
export function withoutToolUi(entry: Record<string, unknown>): Record<string, unknown> {
  const meta = entry._meta as Record<string, unknown> | undefined;
  if (!meta) return entry;
  const { ui: _ui, [LEGACY_RESOURCE_URI_META]: _legacy, ...rest } = meta;
  const { _meta: _dropped, ...plain } = entry;
  return Object.keys(rest).length > 0 ? { ...plain, _meta: rest } : plain;
}

/** An app-only tool: the UI may call it, the model may not. */
export function isAppOnly(ui: ToolUi | undefined): boolean {
  return ui?.visibility !== undefined && !ui.visibility.includes('model');
}

/** Whether a client can show apps: it declared the extension with the HTML profile among its MIME types. */
export function clientShowsApps(capabilities: Record<string, unknown> | undefined): boolean {
  const extensions = capabilities?.extensions;
  const apps = isPlainObject(extensions) ? extensions[APPS_EXTENSION] : undefined;
  return isPlainObject(apps) && Array.isArray(apps.mimeTypes) && apps.mimeTypes.includes(APP_MIME_TYPE);
}
