import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { NPM_REGISTRY, PLACEHOLDER_NAMESPACE, PUBLISHER_META, SERVER_SCHEMA_URL, placeholderMessage } from './serverJson';
import type { PackageManifest } from './serverJson';

/** The vendored official schema (see schemas/SOURCE.md). */
export const SCHEMA_FILE = path.join(__dirname, '..', '..', 'schemas', 'server.schema.2025-12-11.json');
/** The registry's limit on the publisher-provided `_meta`, as JSON. */
const PUBLISHER_META_LIMIT = 4096;

/** What a check found: errors the registry would refuse, warnings about publishing. */
export interface ServerJsonReport {
  errors: string[];
  warnings: string[];
}

let compiled: ValidateFunction | undefined;
function schemaValidator(): ValidateFunction {
  if (!compiled) {
    // draft-07, as the schema declares; strict off for its `example` annotations.
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    compiled = ajv.compile(JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8')) as object);
  }
  return compiled;
}

/**
 * Checks `server.json` against the official schema (2025-12-11), then the rules the registry
 * enforces beyond it, against the project's package.json: the name is the package's `mcpName`
 * (and no placeholder), versions are exact (no range, not `latest`), npm packages come from
 * registry.npmjs.org and are this package at its version, and `_meta` holds only the
 * publisher-provided object (4 KB at most).
 */
export function checkServerJson(document: unknown, manifest: PackageManifest): ServerJsonReport {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return { errors: ['server.json must be a JSON object'], warnings };
  const doc = document as Record<string, unknown>;
  if (doc.$schema !== SERVER_SCHEMA_URL) errors.push(`$schema must be ${SERVER_SCHEMA_URL} (the version checked here), not ${JSON.stringify(doc.$schema)}`);
  const validate = schemaValidator();
  if (!validate(doc)) errors.push(...schemaErrors(validate.errors ?? []));

  const name = typeof doc.name === 'string' ? doc.name : undefined;
  if (name?.split('/')[0] === PLACEHOLDER_NAMESPACE) errors.push(placeholderMessage(name));
  if (!manifest.mcpName) errors.push('package.json has no "mcpName": add the server\'s name, "mcpName": ' + JSON.stringify(name ?? 'io.github.<user>/<server>'));
  else if (name !== undefined && name !== manifest.mcpName) errors.push(`name ${JSON.stringify(name)} is not package.json's mcpName ${JSON.stringify(manifest.mcpName)}: the registry checks the npm package carries the same`);

  if (typeof doc.version === 'string' && !isExactVersion(doc.version)) errors.push(`version ${JSON.stringify(doc.version)} must be one exact version (no range, not "latest")`);
  const packages = Array.isArray(doc.packages) ? (doc.packages as Array<Record<string, unknown>>) : [];
  packages.forEach((entry, index) => {
    const where = `packages[${index}]`;
    if (typeof entry?.version === 'string' && !isExactVersion(entry.version)) errors.push(`${where}.version ${JSON.stringify(entry.version)} must be one exact version (no range, not "latest")`);
    if (entry?.registryType !== 'npm') return;
    if (entry.registryBaseUrl !== undefined && entry.registryBaseUrl !== NPM_REGISTRY) errors.push(`${where}.registryBaseUrl must be ${NPM_REGISTRY}: the registry takes npm packages from there only, not ${JSON.stringify(entry.registryBaseUrl)}`);
    if (entry.fileSha256 !== undefined) errors.push(`${where}: an npm package has no fileSha256`);
    if (manifest.name !== undefined && entry.identifier !== manifest.name) errors.push(`${where}.identifier ${JSON.stringify(entry.identifier)} is not package.json's name ${JSON.stringify(manifest.name)}`);
    if (manifest.version !== undefined && entry.version !== manifest.version) errors.push(`${where}.version ${JSON.stringify(entry.version)} is not package.json's version ${JSON.stringify(manifest.version)}: run typemcp registry init --force after a version change`);
  });
  const remotes = Array.isArray(doc.remotes) ? (doc.remotes as Array<Record<string, unknown>>) : [];
  remotes.forEach((remote, index) => {
    if (typeof remote?.url === 'string' && !/^https:\/\//.test(remote.url)) errors.push(`remotes[${index}].url must be an https URL, not ${JSON.stringify(remote.url)}`);
  });

  if (doc._meta !== undefined && typeof doc._meta === 'object' && doc._meta !== null) {
    for (const key of Object.keys(doc._meta)) {
      if (key !== PUBLISHER_META) errors.push(`_meta.${key}: a publisher may send only _meta["${PUBLISHER_META}"]`);
    }
    const provided = (doc._meta as Record<string, unknown>)[PUBLISHER_META];
    const size = provided === undefined ? 0 : Buffer.byteLength(JSON.stringify(provided));
    if (size > PUBLISHER_META_LIMIT) errors.push(`_meta["${PUBLISHER_META}"] is ${size} bytes as JSON; the registry takes ${PUBLISHER_META_LIMIT} at most`);
  }

  if (packages.some((entry) => entry?.registryType === 'npm')) {
    if (manifest.private === true) warnings.push('package.json has "private": true, so npm publish refuses it: remove it before publishing');
    if (manifest.bin === undefined) warnings.push('package.json has no "bin": clients run the package with npx, which starts its bin');
  }
  return { errors, warnings };
}

/** One exact version: not `latest`, no comparator, hyphen or `||` range, no x or * part. */
export function isExactVersion(version: string): boolean {
  const text = version.trim();
  if (text === '' || text === 'latest') return false;
  if (/^(\^|~|[<>]=?|=)/.test(text) || text.includes('||') || /\s-\s/.test(text)) return false;
  const core = text.replace(/^v/, '').split(/[-+]/)[0];
  return !core.split('.').some((part) => part === 'x' || part === 'X' || part === '*');
}

/** ajv's errors as `/path: message`, the `if`/`anyOf` bookkeeping left out. */
function schemaErrors(errors: ErrorObject[]): string[] {
  const lines = errors
    .filter((error) => !['if', 'anyOf', 'oneOf', 'allOf'].includes(error.keyword))
    .map((error) => {
      const detail = error.keyword === 'additionalProperties' ? ` (${(error.params as { additionalProperty: string }).additionalProperty})` : error.keyword === 'enum' ? ` (${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : '';
      return `schema: ${error.instancePath || '/'} ${error.message ?? error.keyword}${detail}`;
    });
  return [...new Set(lines)];
}
