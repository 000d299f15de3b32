import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { buildApp } from '../app.ts';
import { openTestServices } from '../testing/test-services.ts';
import { serializerFactory, validatorCompiler } from './schema-compilers.ts';

function smallApp(atStart: boolean) {
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: serializerFactory({ atStart }) } } });
  app.setValidatorCompiler(validatorCompiler({ atStart }));
  return app;
}

const cardRoute = {
  schema: {
    querystring: { type: 'object', properties: { size: { type: 'integer', minimum: 1, maximum: 10 } }, required: ['size'], additionalProperties: false },
    body: { type: 'object', properties: { card_id: { type: 'integer' } }, required: ['card_id'], additionalProperties: false },
    response: { 200: { type: 'object', properties: { card_id: { type: 'integer' }, size: { type: 'integer' } } } },
  },
};

test('every route of the service compiles its validators and serializers when they are compiled at start', async () => {
  const services = await openTestServices();
  try {
    const app = await buildApp({ services, compileSchemasAtStart: true });
    // ready() throws FST_ERR_SCH_VALIDATION_BUILD or FST_ERR_SCH_SERIALIZATION_BUILD naming a route whose schema does not compile.
    await app.ready();
    assert.ok(app.printRoutes().includes('mint'));
    await app.close();
  } finally {
    await services.cleanup();
  }
});

test('schemas compiled at first use validate, coerce, refuse and serialize as those compiled at start', async () => {
  for (const atStart of [true, false]) {
    const app = smallApp(atStart);
    app.post('/cards', cardRoute, async (request) => ({ ...(request.body as object), size: (request.query as { size: number }).size, secret: 'not in the schema' }));
    await app.ready();
    for (let call = 0; call < 2; call += 1) {
      // The query's text coerced to an integer; the answer holds only what its schema names.
      const ok = await app.inject({ method: 'POST', url: '/cards?size=3', payload: { card_id: 7 } });
      assert.equal(ok.statusCode, 200, `atStart ${atStart}`);
      assert.deepEqual(ok.json(), { card_id: 7, size: 3 });
      // A body is taken as sent: "7" is not an integer. Ajv's message comes through the validator's `errors`.
      const refusedBody = await app.inject({ method: 'POST', url: '/cards?size=3', payload: { card_id: '7' } });
      assert.equal(refusedBody.statusCode, 400);
      assert.match(refusedBody.json().message, /body\/card_id must be integer/);
      const refusedQuery = await app.inject({ method: 'POST', url: '/cards?size=11', payload: { card_id: 7 } });
      assert.equal(refusedQuery.statusCode, 400);
      assert.match(refusedQuery.json().message, /querystring\/size must be <= 10/);
    }
    await app.close();
  }
});

test('a schema that does not compile stops the start when compiled at start, and is only compiled when first used otherwise', async () => {
  const broken = { schema: { body: { type: 'object', properties: { card_id: { type: 'no such type' } } } } };
  const atStart = smallApp(true);
  atStart.post('/cards', broken, async () => ({}));
  await assert.rejects(async () => atStart.ready(), { code: 'FST_ERR_SCH_VALIDATION_BUILD' });

  const atFirstUse = smallApp(false);
  atFirstUse.post('/cards', broken, async () => ({}));
  await atFirstUse.ready();
  const answer = await atFirstUse.inject({ method: 'POST', url: '/cards', payload: { card_id: 1 } });
  assert.equal(answer.statusCode, 500);
  await atFirstUse.close();
});
