/**
 * The inventory API's OpenAPI 3.1 document. Every call needs the gateway's key (`apiKey`);
 * restocking also needs the caller to hold `inventory:write`, a scope of the authorization
 * server the gateway trusts: the gateway checks it against its caller's token.
 */
export function inventoryDocument(tokenUrl: string): Record<string, unknown> {
  const item = { $ref: '#/components/schemas/Item' };
  const sku = { name: 'sku', in: 'path', required: true, description: 'The stock keeping unit, e.g. A-100', schema: { type: 'string', pattern: '^[A-Z]-\\d{3}$' } };
  const problem = { description: 'What went wrong', content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' } } } };
  return {
    openapi: '3.1.0',
    info: { title: 'inventory', version: '1.0.0', description: 'The stock of the office kitchen' },
    security: [{ apiKey: [] }],
    paths: {
      '/items': {
        get: {
          operationId: 'list_items',
          summary: 'Every item and its stock',
          responses: { 200: { description: 'The items', content: { 'application/json': { schema: { type: 'array', items: item } } } }, 401: problem },
        },
      },
      '/items/{sku}': {
        get: {
          operationId: 'get_item',
          summary: 'One item',
          parameters: [sku],
          responses: { 200: { description: 'The item', content: { 'application/json': { schema: item } } }, 404: problem },
        },
      },
      '/items/{sku}/restock': {
        post: {
          operationId: 'restock_item',
          summary: 'Adds to the stock of an item',
          parameters: [sku],
          // Both in one alternative: the gateway's key, and a caller holding the scope.
          security: [{ apiKey: [], gateway: ['inventory:write'] }],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { type: 'object', required: ['quantity'], additionalProperties: false, properties: { quantity: { type: 'integer', minimum: 1, maximum: 1000, description: 'How many arrived' } } },
              },
            },
          },
          responses: { 200: { description: 'The item, restocked', content: { 'application/json': { schema: item } } }, 400: problem, 404: problem },
        },
      },
    },
    components: {
      schemas: {
        Item: {
          type: 'object',
          required: ['sku', 'name', 'stock'],
          properties: {
            sku: { type: 'string' },
            name: { type: 'string' },
            stock: { type: 'integer', minimum: 0 },
            restockedBy: { type: 'string', description: 'Who restocked it last' },
          },
        },
        Problem: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
      },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: "The gateway's key" },
        gateway: {
          type: 'oauth2',
          description: "Tokens of the gateway's authorization server; the gateway checks the scopes of its callers",
          flows: { clientCredentials: { tokenUrl, scopes: { 'inventory:write': 'Restock items' } } },
        },
      },
    },
  };
}
