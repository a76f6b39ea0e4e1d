import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';

export interface Pet {
  id: number;
  name: string;
  tag?: string;
}

/** What the API saw of the calls made to it. */
export interface Seen {
  requests: Array<{ method: string; url: string; headers: Record<string, string | string[] | undefined> }>;
  /** Requests to /slow whose connection closed before an answer. */
  abandoned: number;
}

export interface Petstore {
  app: FastifyInstance;
  url: string;
  seen: Seen;
  /** The OpenAPI 3.0 document @fastify/swagger generates from the route schemas. */
  document: Record<string, unknown>;
  close(): Promise<void>;
}

/**
 * A small pet store over Fastify with route schemas; @fastify/swagger writes its OpenAPI
 * document. Listens on 127.0.0.1, a free port.
 */
export async function startPetstore(): Promise<Petstore> {
  const pets: Pet[] = [
    { id: 1, name: 'Rex', tag: 'dog' },
    { id: 2, name: 'Tom', tag: 'cat' },
    { id: 3, name: 'Fido', tag: 'dog' },
  ];
  const seen: Seen = { requests: [], abandoned: 0 };
  const app = Fastify();
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Petstore', version: '1.2.3' },
      components: {
        securitySchemes: {
          oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.example.com/token', scopes: { 'pets:write': 'Add and remove pets' } } } },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        },
      },
      security: [{ apiKey: [] }],
    },
  });
  app.addSchema({
    $id: 'Pet',
    type: 'object',
    required: ['id', 'name'],
    properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string', nullable: true } },
  });
  app.addHook('onRequest', async (request) => {
    seen.requests.push({ method: request.method, url: request.url, headers: { ...request.headers } });
  });

  app.get(
    '/pets',
    {
      schema: {
        operationId: 'listPets',
        summary: 'List the pets',
        tags: ['pets'],
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 100, description: 'At most this many' },
            tag: { type: 'array', items: { type: 'string' }, description: 'Only pets with one of these tags' },
          },
        },
        response: { 200: { type: 'array', items: { $ref: 'Pet#' } } },
      },
    },
    async (request) => {
      const { limit, tag } = request.query as { limit?: number; tag?: string[] };
      const chosen = tag ? pets.filter((pet) => pet.tag !== undefined && tag.includes(pet.tag)) : pets;
      return chosen.slice(0, limit ?? chosen.length);
    },
  );

  app.post(
    '/pets',
    {
      schema: {
        operationId: 'createPet',
        summary: 'Add a pet',
        tags: ['pets'],
        security: [{ oauth: ['pets:write'] }],
        body: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 }, tag: { type: 'string' } }, additionalProperties: false },
        response: { 201: { $ref: 'Pet#' } },
      },
    },
    async (request, reply) => {
      const body = request.body as { name: string; tag?: string };
      const pet = { id: pets.length + 1, ...body };
      pets.push(pet);
      return reply.code(201).send(pet);
    },
  );

  app.get(
    '/pets/:petId',
    {
      schema: {
        operationId: 'getPet',
        summary: 'One pet',
        tags: ['pets'],
        params: { type: 'object', required: ['petId'], properties: { petId: { type: 'integer', description: 'The pet' } } },
        response: { 200: { $ref: 'Pet#' }, 404: { type: 'object', properties: { message: { type: 'string' } } } },
      },
    },
    async (request, reply) => {
      const pet = pets.find((p) => p.id === (request.params as { petId: number }).petId);
      return pet ?? reply.code(404).send({ message: 'no such pet' });
    },
  );

  app.delete(
    '/pets/:petId',
    {
      schema: {
        operationId: 'deletePet',
        tags: ['pets'],
        security: [{ oauth: ['pets:write'] }],
        params: { type: 'object', required: ['petId'], properties: { petId: { type: 'integer' } } },
        response: { 204: { type: 'null', description: 'Gone' } },
      },
    },
    async (request, reply) => {
      const index = pets.findIndex((p) => p.id === (request.params as { petId: number }).petId);
      if (index >= 0) pets.splice(index, 1);
      return reply.code(204).send();
    },
  );

  app.get(
    '/pets/:petId/card',
    {
      schema: {
        operationId: 'petCard',
        summary: 'A pet as a line of text',
        params: { type: 'object', required: ['petId'], properties: { petId: { type: 'integer' } } },
        response: { 200: { type: 'string', description: 'The card' }, 404: { type: 'string', description: 'No such pet' } },
      },
    },
    async (request, reply) => {
      const pet = pets.find((p) => p.id === (request.params as { petId: number }).petId);
      if (!pet) return reply.code(404).type('text/plain').send('no such pet');
      return reply.type('text/plain').send(`${pet.name} (${pet.tag ?? 'no tag'})`);
    },
  );

  app.get(
    '/stats',
    {
      schema: {
        operationId: 'getStats',
        summary: 'How many pets',
        response: { 200: { type: 'object', properties: { count: { type: 'integer' } } } },
      },
    },
    async () => ({ count: pets.length }),
  );

  app.get(
    '/health',
    { schema: { operationId: 'health', security: [], response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } } } } } },
    async () => ({ ok: true }),
  );

  app.get(
    '/whoami',
    {
      schema: {
        operationId: 'whoami',
        summary: 'The credentials the API received',
        headers: { type: 'object', properties: { 'x-trace': { type: 'string', description: 'A trace id' } } },
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async (request) => ({ authorization: request.headers.authorization ?? null, apiKey: request.headers['x-api-key'] ?? null, trace: request.headers['x-trace'] ?? null }),
  );

  app.get('/slow', { schema: { operationId: 'slow' } }, (request, reply) => {
    request.raw.on('close', () => {
      if (!reply.sent) seen.abandoned++;
    });
    // Never answers: the caller gives up first.
  });

  app.get('/broken', { schema: { operationId: 'broken', response: { 200: { type: 'object', properties: { n: { type: 'integer' } } } } } }, (_request, reply) => {
    reply.type('application/json').send('{"n":"not a number"}');
  });

  app.get('/admin/reset', { schema: { operationId: 'adminReset' } }, async () => ({ reset: true }));

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  await app.ready();
  const document = JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>;
  return {
    app,
    url,
    seen,
    document,
    close: async () => {
      // /slow never answers: end its connection rather than wait for it.
      app.server.closeAllConnections();
      await app.close();
    },
  };
}
