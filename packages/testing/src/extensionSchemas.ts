/**
 * JSON Schemas of the results of official extensions' methods, which the protocol's schema
 * files do not hold. Written from the extensions' specifications (the TypeScript interfaces
 * they define); `ref(name)` points into the protocol schema of the conversation's revision.
 */

/** The result schema of each extension method, for a revision (`modern`: 2026-07-28 and later). */
export function extensionResultSchemas(ref: (definition: string) => string, modern: boolean): Record<string, object> {
  const skillResource = {
    type: 'object',
    required: ['uri', 'digest', 'size'],
    properties: {
      uri: { type: 'string', minLength: 1 },
      digest: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
      size: { type: 'integer', minimum: 0 },
    },
  };
  const skill = {
    type: 'object',
    required: ['uri', 'frontmatter', 'resources'],
    properties: {
      uri: { type: 'string', pattern: '/SKILL\\.md$' },
      frontmatter: { type: 'object', required: ['name', 'description'], properties: { name: { type: 'string' }, description: { type: 'string' } } },
      resources: { anyOf: [{ type: 'array', items: skillResource }, { const: 'dynamic' }] },
      _meta: { type: 'object' },
    },
  };
  // ListSkillsResult extends PaginatedResult and CacheableResult, GetSkillResult CacheableResult,
  // ReadResourceDirectoryResult PaginatedResult: at 2026-07-28 those carry resultType and the caching fields.
  const paginated = { $ref: ref('PaginatedResult') };
  const cacheable = modern ? [{ $ref: ref('CacheableResult') }] : [{ $ref: ref('Result') }];
  return {
    // io.modelcontextprotocol/skills (SEP-2640)
    'skills/list': { allOf: [paginated, ...cacheable, { type: 'object', required: ['skills'], properties: { skills: { type: 'array', items: skill } } }] },
    'skills/get': { allOf: [...cacheable, { type: 'object', required: ['skill'], properties: { skill }, not: { required: ['nextCursor'] } }] },
    'resources/directory/read': {
      allOf: [paginated, { type: 'object', required: ['resources'], properties: { resources: { type: 'array', items: { $ref: ref('Resource') } } } }],
    },
  };
}
