import { DefinitionError } from '../errors';

/** The URI scheme skills are served under. */
export const SKILL_SCHEME = 'skill://';

/** Agent Skills naming: 1–64 lowercase letters, digits and hyphens, no hyphen first, last or twice in a row. */
const SKILL_NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;

/** The first segment is a URI authority (RFC 3986 reg-name: unreserved, sub-delims, percent-encoded). */
const REG_NAME = /^(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})+$/;

/** Why `name` breaks the Agent Skills naming rules, or undefined when it keeps them. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return 'needs a "name"';
  if (!SKILL_NAME.test(name)) {
    return `"name" ${JSON.stringify(name)} breaks the naming rules: 1 to 64 lowercase letters, digits and hyphens, not starting or ending with a hyphen, no two hyphens in a row`;
  }
  return undefined;
}

/**
 * Checks a skill path (`git-workflow`, `acme/billing/refunds`): `/`-separated segments, the
 * last the skill's name, the first fit for a URI authority. Returns its segments.
 */
export function checkSkillPath(path: string, where: string): string[] {
  const segments = typeof path === 'string' ? path.split('/') : [];
  if (segments.length === 0 || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new DefinitionError('INVALID_SKILL', `${where}: the skill path ${JSON.stringify(path)} needs one or more non-empty "/"-separated segments, none "." or ".."`);
  }
  const problem = nameProblem(segments[segments.length - 1]);
  if (problem) throw new DefinitionError('INVALID_SKILL', `${where}: the last segment of the skill path is the skill's name and ${problem.replace('needs a "name"', 'is empty')}`);
  if (!REG_NAME.test(segments[0])) {
    throw new DefinitionError('INVALID_SKILL', `${where}: the first segment of the skill path, ${JSON.stringify(segments[0])}, becomes the URI authority and may hold only letters, digits and -._~!$&'()*+,;=`);
  }
  return segments;
}

/** One path segment as it appears in a `skill://` URI: percent-encoded where it is not a plain URI character. */
export function encodeSegment(segment: string): string {
  return encodeURIComponent(segment);
}

/** `segments` joined into the URI path they name. */
export function encodePath(segments: readonly string[]): string {
  return segments.map(encodeSegment).join('/');
}

/**
 * The `skill://` URI a client sent, in the spelling this server uses (each segment decoded and
 * encoded again), or undefined when it cannot name anything served: another scheme, a query
 * or fragment, an empty, `.` or `..` segment, or a malformed escape.
 */
export function canonicalSkillUri(uri: string): string | undefined {
  if (!uri.startsWith(SKILL_SCHEME) || /[?#\\]/.test(uri)) return undefined;
  const segments = uri.slice(SKILL_SCHEME.length).split('/');
  try {
    const decoded = segments.map((s) => decodeURIComponent(s));
    if (decoded.some((s) => s === '' || s === '.' || s === '..' || s.includes('/'))) return undefined;
    return SKILL_SCHEME + encodePath(decoded);
  } catch {
    return undefined;
  }
}
