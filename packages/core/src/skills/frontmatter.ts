import { DefinitionError } from '../errors';
import { isPlainObject } from '../protocol';
import { nameProblem } from './names';

/** The frontmatter block of a `SKILL.md`: an optional byte order mark, `---`, YAML, `---`. */
const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The most a `description` may hold, as the Agent Skills specification sets it. */
const MAX_DESCRIPTION = 1024;

/** The most a `compatibility` may hold. */
const MAX_COMPATIBILITY = 500;

/** Keys under this prefix in `metadata` belong to MCP extensions. */
const RESERVED_METADATA_PREFIX = 'io.modelcontextprotocol/';

type Yaml = typeof import('yaml');
let yaml: Yaml | undefined;

/** The YAML library, loaded by the first skill: servers without skills never pay for it. */
function yamlLibrary(): Yaml {
  return (yaml ??= require('yaml') as Yaml);
}

/**
 * The frontmatter of a `SKILL.md`, parsed as YAML 1.2 (core schema, as hosts parse it) into
 * the JSON object `skills/list` sends verbatim; checked for a `name` (equal to `expectedName`,
 * the skill's directory) and a `description`. `where` names the file in errors.
 */
export function readFrontmatter(text: string, expectedName: string, where: string): Record<string, unknown> {
  const block = FRONTMATTER.exec(text);
  if (!block) throw invalid(where, 'must begin with YAML frontmatter between two "---" lines');
  let parsed: unknown;
  try {
    parsed = yamlLibrary().parse(block[1], { schema: 'core', uniqueKeys: true, maxAliasCount: 0 });
  } catch (error) {
    throw invalid(where, `has malformed YAML frontmatter: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!isPlainObject(parsed)) throw invalid(where, 'must have a YAML mapping as its frontmatter');
  checkFrontmatter(parsed, expectedName, where);
  return parsed;
}

/** Checks frontmatter fields the Agent Skills specification and the Skills extension require. */
export function checkFrontmatter(frontmatter: Record<string, unknown>, expectedName: string, where: string): void {
  const problem = nameProblem(frontmatter.name);
  if (problem) throw invalid(where, problem);
  if (frontmatter.name !== expectedName) {
    throw invalid(where, `has "name" ${JSON.stringify(frontmatter.name)}, but a skill's name must be the name of its directory, ${JSON.stringify(expectedName)}`);
  }
  const description = frontmatter.description;
  if (typeof description !== 'string' || description.trim() === '') throw invalid(where, 'needs a non-empty "description" (what the skill does and when to use it)');
  if (characters(description) > MAX_DESCRIPTION) throw invalid(where, `has a "description" of ${characters(description)} characters; at most ${MAX_DESCRIPTION} are allowed`);
  const compatibility = frontmatter.compatibility;
  if (compatibility !== undefined && (typeof compatibility !== 'string' || compatibility === '' || characters(compatibility) > MAX_COMPATIBILITY)) {
    throw invalid(where, `has a "compatibility" that is not a string of 1 to ${MAX_COMPATIBILITY} characters`);
  }
  const metadata = frontmatter.metadata;
  if (metadata !== undefined) {
    if (!isPlainObject(metadata) || Object.values(metadata).some((value) => typeof value !== 'string')) {
      throw invalid(where, 'has a "metadata" that is not a mapping of strings to strings (quote numbers and booleans: version: "1.0")');
    }
    const reserved = Object.keys(metadata).find((key) => key.startsWith(RESERVED_METADATA_PREFIX));
    if (reserved !== undefined) throw invalid(where, `uses the metadata key ${JSON.stringify(reserved)}: keys under "${RESERVED_METADATA_PREFIX}" are reserved for MCP extensions`);
  }
  if (Object.prototype.hasOwnProperty.call(frontmatter, '__proto__')) throw invalid(where, 'has a "__proto__" field, which hosts refuse');
}

/** Length in Unicode characters (code points), as the Agent Skills limits count. */
function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** A `SKILL.md` of this frontmatter (written as YAML) and markdown body. */
export function writeSkillMarkdown(frontmatter: Record<string, unknown>, body: string): string {
  const block = yamlLibrary().stringify(frontmatter, { lineWidth: 0 });
  return `---\n${block}---\n\n${body}`;
}

function invalid(where: string, problem: string): DefinitionError {
  return new DefinitionError('INVALID_SKILL', `${where} ${problem}`);
}
