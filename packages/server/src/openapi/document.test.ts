import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { App } from '../app.ts';
import { openTestApp, type TestApp } from '../testing/test-services.ts';
import { committedOpenApiDocument, producedOpenApiDocument } from '../testing/openapi-document.ts';

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
