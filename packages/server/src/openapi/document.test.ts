import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { App } from '../app.ts';
import { openTestApp, type TestApp } from '../testing/test-services.ts';
import { committedOpenApiDocument, producedOpenApiDocument } from '../testing/openapi-document.ts';
// @ts-expect-error: a plain .mjs script, no declarations
import { GENERATED_PATH as APP_GENERATED_PATH, generatedAppTypes } from '../../../wallet-app/scripts/generate-types.mjs';
import { IDEMPOTENCY_HEADER, IDEMPOTENT_ROUTES } from '../partner-api/idempotency/hook.ts';

let opened: TestApp;
let app: App;

before(async () => {
  opened = await openTestApp();
  app = opened.app;
  await app.ready();
});
after(async () => {
  await opened?.cleanup();
});

test('docs/openapi.json is the document the code produces (npm run openapi writes it)', async () => {
  const produced = await producedOpenApiDocument();
  assert.ok(committedOpenApiDocument() === produced, 'docs/openapi.json differs from the routes\' schemas: run npm run openapi and commit it');
});

test('the wallet app\'s generated wire types are what docs/openapi.json generates (npm run openapi writes both)', async () => {
  const generated = await generatedAppTypes(committedOpenApiDocument());
  assert.ok(readFileSync(APP_GENERATED_PATH, 'utf8') === generated, 'packages/wallet-app/src/generated/openapi.ts is stale: run npm run openapi');
});

test('the document lints with no errors (Redocly, recommended rules)', async () => {
  const config = await createConfig({
    extends: ['recommended'],
    // A2's path is /v2/partner/ in the specification, and the example BApp is a directory.
    rules: { 'no-path-trailing-slash': 'off' },
  });
  const problems = await lintFromString({ source: JSON.stringify(app.swagger()), absoluteRef: 'openapi.json', config });
  const errors = problems.filter((problem) => problem.severity === 'error');
  assert.deepEqual(
    errors.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`),
    [],
  );
});

test('GET /openapi.json and /openapi.yaml serve the document; every family has its tag and security', async () => {
  const json = await app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(json.statusCode, 200);
  assert.match(String(json.headers['content-type']), /^application\/json/);
  const document = json.json();
  assert.equal(document.openapi, '3.1.0');
  assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['memberSession', 'partnerAccessToken']);
  assert.deepEqual(document.paths['/v2/partner/auth'].post.security, []);
  assert.deepEqual(document.paths['/v2/wallet/mint'].post.security, [{ partnerAccessToken: [] }]);
  assert.deepEqual(document.paths['/v2/wallet-app/me'].get.security, [{ memberSession: [] }]);
  assert.deepEqual(document.paths['/v2/a2a/prepare'].post.security, []);
  assert.deepEqual(document.paths['/v2/a2a/result'].get.tags, ['Family B: App2App']);
  // The plain-text 500 of A1, as the specification shows it.
  assert.deepEqual(document.paths['/v2/partner/auth'].post.responses['500'].content['text/plain'].schema, { type: 'string', enum: ['failed to sign in'] });

  const yaml = await app.inject({ method: 'GET', url: '/openapi.yaml' });
  assert.equal(yaml.statusCode, 200);
  assert.match(yaml.body, /^openapi: 3\.1\.0$/m);
});

test('every answer of every operation says what it is (no "Default Response")', () => {
  const undescribed: string[] = [];
  for (const [path, operations] of Object.entries(app.swagger().paths ?? {})) {
    for (const [method, operation] of Object.entries(operations as Record<string, { responses?: Record<string, { description?: string }> }>)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!response.description?.trim() || response.description === 'Default Response') undescribed.push(`${method.toUpperCase()} ${path} ${status}`);
      }
    }
  }
  assert.deepEqual(undescribed, []);
});

test('the docs page at /docs loads nothing from another host', async () => {
  const page = await app.inject({ method: 'GET', url: '/docs' });
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  const references = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
  assert.ok(references.length > 0);
  for (const reference of references) {
    assert.doesNotMatch(reference, /^(?:https?:)?\/\//, `${reference} is on another host`);
    const asset = await app.inject({ method: 'GET', url: new URL(reference, 'http://service/docs/').pathname });
    assert.equal(asset.statusCode, 200, reference);
  }
  const initializer = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  assert.equal(initializer.statusCode, 200);
  // What it loads: the document beside it; no URL of another host outside comments and inline images.
  assert.match(initializer.body, /url: resolveUrl\('\.\/json'\)/);
  const code = initializer.body.replace(/^\s*\/\/.*$/gm, '').replace(/data:[^'"]*/g, '');
  assert.doesNotMatch(code, /https?:\/\//);
});

test('exactly the operations that take an Idempotency-Key document it, and Idempotent-Replayed on their answers below 500', () => {
  const keyed: string[] = [];
  const replayedWithoutKey: string[] = [];
  for (const [path, operations] of Object.entries(app.swagger().paths ?? {})) {
    for (const [method, operation] of Object.entries(operations as Record<string, OperationDocs>)) {
      const name = `${method.toUpperCase()} ${path}`;
      const parameter = operation.parameters?.find((one) => one.in === 'header' && one.name.toLowerCase() === IDEMPOTENCY_HEADER);
      const answers = Object.entries(operation.responses ?? {});
      if (!parameter) {
        if (answers.some(([, answer]) => answer.headers?.['Idempotent-Replayed'])) replayedWithoutKey.push(name);
        continue;
      }
      keyed.push(name);
      assert.equal(parameter.name, 'Idempotency-Key', name);
      assert.notEqual(parameter.required, true, name);
      assert.equal(parameter.schema?.type, 'string', name);
      for (const words of ['255 printable ASCII', '24 hours', 'Idempotent-Replayed: true', '4090']) assert.ok(parameter.description?.includes(words), `${name}: ${words}`);
      for (const [status, answer] of answers) {
        assert.equal(Boolean(answer.headers?.['Idempotent-Replayed']), Number(status) < 500, `${name} ${status}`);
      }
    }
  }
  // Fastify's routes are `:param`, the document's `{param}`.
  const expected = [...IDEMPOTENT_ROUTES].map((route) => route.replace(/:(\w+)/g, '{$1}'));
  assert.deepEqual(keyed.sort(), expected.sort());
  assert.deepEqual(replayedWithoutKey, []);
});

interface OperationDocs {
  parameters?: Array<{ in: string; name: string; required?: boolean; description?: string; schema?: { type?: string } }>;
  responses?: Record<string, { headers?: Record<string, unknown> }>;
}
