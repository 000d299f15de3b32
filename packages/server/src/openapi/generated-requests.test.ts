/**
 * Property test driven by the OpenAPI document: for every operation, fast-check generates requests
 * the document calls malformed (a field of the wrong type, a required one missing, a huge string,
 * an unknown field where none is allowed, a bad path or query parameter, a body that is not the
 * declared kind) from the operation's own parameter and body schemas, and each must answer a
 * status the document lists for it with a body matching that status's schema and carrying a
 * registry code: never a 5xx. The store is the same afterwards. Sessions are valid, so the
 * requests reach the routes' own checks.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { isAddress } from 'viem';
import { buildApp, type App } from '../app.ts';
import { errorCodes } from '../errors/codes.ts';
import { signedInPartner } from '../partner-api/testing/partner-session.ts';
import { signedInMember } from '../a2a/testing/support.ts';
import { openTestServices, type TestServices } from '../testing/test-services.ts';
import { storeSnapshot } from '../testing/store-snapshot.ts';

/** Runs per operation: about 40 operations with something to malform, so some 3,000 requests a run. */
const RUNS = Number(process.env.GENERATED_REQUESTS_RUNS ?? 100);

type Schema = Record<string, any>;
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  security?: Array<Record<string, string[]>>;
}

/** One generated request: the path's parameters, the query's, and the body (JSON, or another kind). */
interface Generated {
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  body?: { type: string; payload: string; value?: unknown };
}

function compiler(coerceTypes: false | 'array') {
  const ajv = new Ajv2020({ strict: false, allErrors: false, coerceTypes, useDefaults: false });
  ajv.addFormat('evm-address', { type: 'string', validate: (value: string) => isAddress(value, { strict: true }) });
  return ajv;
}
// As the app validates: path and query coerced from text, bodies taken with their JSON types.
const coercing = compiler('array');
const exact = compiler(false);
const answerAjv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const answerValidators = new Map<object, ValidateFunction>();

/** A value the schema describes, as far as a simple reading of it gives one (examples first). */
function sampleOf(schema: Schema | undefined): unknown {
  if (!schema) return 'x';
  if (Array.isArray(schema.examples) && schema.examples.length) return structuredClone(schema.examples[0]);
  if (schema.example !== undefined) return structuredClone(schema.example);
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return sampleOf(branches.find((branch: Schema) => branch.type !== 'null') ?? branches[0]);
  const type = Array.isArray(schema.type) ? schema.type.find((kind: string) => kind !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([key, property]) => [key, sampleOf(property)]));
    case 'array':
      return [sampleOf(schema.items)];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return schema.format === 'evm-address' ? '0x0000000000000000000000000000000000000001' : 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  }
}

/** Every place in a JSON value, as a list of keys from the root. */
function pathsOf(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return [path, ...value.flatMap((item, index) => pathsOf(item, [...path, index]))];
  if (value && typeof value === 'object') return [path, ...Object.entries(value).flatMap(([key, item]) => pathsOf(item, [...path, key]))];
  return [path];
}

/**
 * `value` with what is at `path` replaced (`undefined`: removed); the root is replaced whole. A path
 * an earlier change took away (its parent is no longer an object) leaves the value as it is.
 */
function withAt(value: unknown, path: Array<string | number>, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value);
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) {
    if (!parent || typeof parent !== 'object') return value;
    parent = parent[key] as typeof parent;
  }
  if (!parent || typeof parent !== 'object') return value;
  const last = path.at(-1)!;
  // JSON has no named members of an array (a key such as "length" would not be sent, and setting it throws).
  if (Array.isArray(parent) && !/^\d+$/.test(String(last))) return copy;
  if (replacement === undefined) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else parent[last] = replacement;
  return copy;
}

const huge = 'x'.repeat(100_000);
/** JSON values of every kind, the hostile ones often. */
const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 0.5, -1e308, 2 ** 53 + 2, '', ' ', '\u0000', 'null', '-1', '1e309', '0x', '__proto__', huge, [], {}, [null], { __proto__: { polluted: 1 } }),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.jsonValue({ maxDepth: 2 }),
);
/** Text for a path or query parameter (sent percent-encoded, or raw where it is a hostile encoding). */
const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0', '-1', '1e309', 'Infinity', 'NaN', '2147483648', '9007199254740993', (2n ** 256n).toString(), '0x', 'true', '%00', '%zz', '%E0%A4%A', '..%2F..%2Fetc%2Fpasswd', '__proto__', 'a'.repeat(5_000)),
  fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map(encodeURIComponent),
  fc.integer().map(String),
  fc.double({ noNaN: true }).map(String),
);
const unknownKey = fc.string({ minLength: 1, maxLength: 12 }).filter((key) => !['__proto__', 'constructor', 'prototype'].includes(key));

/** The generator of one operation's requests: its sample request, changed one to three times. */
function requestsOf(operation: Operation): fc.Arbitrary<Generated> | undefined {
  const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in !== 'header');
  const content = operation.requestBody?.content ?? {};
  const jsonSchema = content['application/json']?.schema;
  const otherKind = !jsonSchema && Object.keys(content).length > 0;
  if (parameters.length === 0 && !jsonSchema && !otherKind) return undefined;

  const base: Generated = { params: {}, query: {} };
  for (const parameter of parameters) (parameter.in === 'path' ? base.params : base.query)[parameter.name] = encodeURIComponent(String(sampleOf(parameter.schema)));
  const body = jsonSchema ? sampleOf(jsonSchema) : undefined;
  const bodyPaths = jsonSchema ? pathsOf(body) : [];
  const objectPaths = bodyPaths.filter((path) => path.reduce<any>((value, key) => value?.[key], body) instanceof Object);

  type Change = (request: Generated & { json: unknown }) => void;
  const changes: Array<fc.Arbitrary<Change>> = [];
  const path = parameters.filter((parameter) => parameter.in === 'path');
  const query = parameters.filter((parameter) => parameter.in === 'query');
  if (path.length) changes.push(fc.tuple(fc.constantFrom(...path), hostileText).map(([parameter, text]) => (request) => void (request.params[parameter.name] = text)));
  if (query.length) {
    changes.push(fc.tuple(fc.constantFrom(...query), hostileText).map(([parameter, text]) => (request) => void (request.query[parameter.name] = text)));
    changes.push(fc.tuple(fc.constantFrom(...query), fc.array(hostileText, { minLength: 2, maxLength: 3 })).map(([parameter, texts]) => (request) => void (request.query[parameter.name] = texts)));
    changes.push(fc.constantFrom(...query).map((parameter) => (request) => void delete request.query[parameter.name]));
  }
  if (jsonSchema) {
    changes.push(fc.tuple(fc.constantFrom(...bodyPaths), hostileJson).map(([at, value]) => (request) => void (request.json = withAt(request.json, at, value))));
    changes.push(fc.constantFrom(...bodyPaths.filter((at) => at.length > 0)).map((at) => (request) => void (request.json = withAt(request.json, at, undefined))));
    if (objectPaths.length) {
      changes.push(fc.tuple(fc.constantFrom(...objectPaths), unknownKey, hostileJson).map(([at, key, value]) => (request) => void (request.json = withAt(request.json, [...at, key], value))));
    }
  }
  if (otherKind || jsonSchema) {
    // A body that is not JSON, or not the kind the operation takes.
    changes.push(
      fc.constantFrom<[string, string]>(['application/json', '{'], ['application/json', '[1,'], ['text/plain', 'hello'], ['application/x-www-form-urlencoded', 'a=1&a=2'], ['multipart/form-data; boundary=x', '--x\r\nbroken']).map(
        ([type, payload]) => (request) => void (request.body = { type, payload }),
      ),
    );
  }
  if (changes.length === 0) return undefined;
  return fc.array(fc.oneof(...changes), { minLength: 1, maxLength: 3 }).map((chosen) => {
    const request = { params: { ...base.params }, query: { ...base.query }, json: structuredClone(body) } as Generated & { json: unknown };
    for (const change of chosen) change(request);
    const generated: Generated = { params: request.params, query: request.query };
    if (request.body) generated.body = request.body;
    else if (jsonSchema && request.json !== undefined) generated.body = { type: 'application/json', payload: JSON.stringify(request.json), value: request.json };
    return generated;
  });
}

/** Whether the document itself calls the request malformed (the app may refuse more; never less). */
function malformedByDocument(operation: Operation, request: Generated, validators: { params?: ValidateFunction; query?: ValidateFunction; body?: ValidateFunction }): boolean {
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return undefined;
    }
  };
  const params: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(request.params)) {
    const decoded = decode(text);
    if (decoded === undefined) return true;
    params[name] = decoded;
  }
  if (validators.params && !validators.params(params)) return true;
  const query: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(request.query)) {
    const decoded = (Array.isArray(value) ? value : [value]).map(decode);
    if (decoded.includes(undefined)) return true;
    query[name] = decoded.length === 1 ? decoded[0] : decoded;
  }
  if (validators.query && !validators.query(query)) return true;
  if (request.body) {
    const declared = Object.keys(operation.requestBody?.content ?? {});
    if (!declared.includes(request.body.type.split(';')[0]!)) return true;
    if (request.body.type === 'application/json' && validators.body && !validators.body(structuredClone(request.body.value))) return true;
    return request.body.value === undefined && request.body.type === 'application/json';
  }
  // No body where the operation needs one.
  return Boolean(operation.requestBody && (operation.requestBody as { required?: boolean }).required);
}

function objectSchemaOf(parameters: Parameter[]): Schema {
  return {
    type: 'object',
    properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.schema])),
    required: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
  };
}

/** What is wrong with an answer by the document, or undefined. */
function answerProblem(operation: Operation, status: number, type: string, body: string): string | undefined {
  if (status >= 500) return `answered ${status}: ${body.slice(0, 200)}`;
  if (status < 400) return `accepted (${status}) a request the document calls malformed: ${body.slice(0, 200)}`;
  const documented = operation.responses[String(status)];
  if (!documented) return `answered ${status}, which the document does not list: ${body.slice(0, 200)}`;
  const media = documented.content?.[type];
  if (!media) return `answered ${status} as ${type || 'nothing'}; the document says ${Object.keys(documented.content ?? {}).join(', ') || 'no body'}`;
  if (type !== 'application/json') return undefined;
  const parsed = JSON.parse(body) as { code?: unknown; error?: { code?: unknown } };
  let validate = answerValidators.get(media.schema);
  if (!validate) answerValidators.set(media.schema, (validate = answerAjv.compile(media.schema)));
  if (!validate(parsed)) return `answered a ${status} body outside its schema (${answerAjv.errorsText(validate.errors)}): ${body.slice(0, 200)}`;
  const code = typeof parsed.code === 'number' ? parsed.code : parsed.error?.code;
  if (typeof code !== 'number' || !(code in errorCodes)) return `answered a code outside the registry: ${body.slice(0, 200)}`;
  return undefined;
}

let services: TestServices;
let app: App;
let headersBySecurity: Record<string, Record<string, string>>;

before(async () => {
  services = await openTestServices();
  app = await buildApp({ services });
  await app.ready();
  const partner = await signedInPartner(app, services);
  const member = await signedInMember(app, services);
  headersBySecurity = { partnerAccessToken: { authorization: partner.token }, memberSession: { authorization: `Bearer ${member.token}` } };
});
after(async () => {
  await app?.close();
  await services?.cleanup();
});

test('requests the document calls malformed answer a documented refusal and change nothing', async () => {
  const document = app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> };
  const head = await services.chains.get('main').client.getBlockNumber({ cacheTime: 0 });
  await services.cardIndex.waitUntilIndexed('main', head);
  const storeBefore = await storeSnapshot(services);

  let sent = 0;
  const covered: string[] = [];
  const nothingToMalform: string[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const name = `${method.toUpperCase()} ${path}`;
      const requests = requestsOf(operation);
      if (!requests) {
        nothingToMalform.push(name);
        continue;
      }
      const parameters = operation.parameters ?? [];
      const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
      const queryParameters = parameters.filter((parameter) => parameter.in === 'query');
      const bodySchema = operation.requestBody?.content['application/json']?.schema;
      const validators = {
        ...(pathParameters.length ? { params: coercing.compile(objectSchemaOf(pathParameters)) } : {}),
        ...(queryParameters.length ? { query: coercing.compile(objectSchemaOf(queryParameters)) } : {}),
        ...(bodySchema ? { body: exact.compile(bodySchema) } : {}),
      };
      const scheme = Object.keys(operation.security?.[0] ?? {})[0];
      const headers = scheme ? headersBySecurity[scheme] ?? {} : {};
      let malformed = 0;
      await fc.assert(
        fc.asyncProperty(requests, async (request) => {
          if (!malformedByDocument(operation, request, validators)) return;
          malformed += 1;
          const url =
            path.replace(/\{([^}]+)\}/g, (_whole, parameter: string) => request.params[parameter] ?? 'x') +
            (Object.keys(request.query).length
              ? `?${Object.entries(request.query)
                  .flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((text) => `${key}=${text}`))
                  .join('&')}`
              : '');
          const response = await app.inject({
            // Each from an address of its own, so no per-address back-off answers instead of the route.
            remoteAddress: `10.${(sent >> 16) & 255}.${(sent >> 8) & 255}.${sent & 255}`,
            method: method.toUpperCase() as 'GET',
            url,
            headers: { ...headers, ...(request.body ? { 'content-type': request.body.type } : {}) },
            ...(request.body ? { payload: request.body.payload } : {}),
          });
          sent += 1;
          const type = String(response.headers['content-type'] ?? '').split(';')[0]!.trim();
          const problem = answerProblem(operation, response.statusCode, type, response.body);
          assert.equal(problem, undefined, `${method.toUpperCase()} ${url.slice(0, 200)} ${request.body ? `${request.body.type}: ${request.body.payload.slice(0, 200)}` : ''}\n${problem}`);
        }),
        { numRuns: RUNS, seed: Number(process.env.GENERATED_REQUESTS_SEED ?? Date.now() % 2 ** 31), endOnFailure: true },
      );
      // Requests the document allows are not sent (they may do what they ask). Where it allows any
      // text (a request key in the path), only a broken percent-encoding is malformed, now and then.
      (malformed > 0 ? covered : nothingToMalform).push(name);
    }
  }
  console.log(`# ${sent} malformed requests to ${covered.length} operations; none generated for ${nothingToMalform.join(', ')}`);
  assert.ok(covered.length >= 35, `only ${covered.length} operations had requests generated`);
  assert.ok(sent >= covered.length * RUNS * 0.6, `only ${sent} malformed requests were sent`);
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was polluted');
  const storeAfter = await storeSnapshot(services);
  const changed = [...storeAfter].filter(([table, rows]) => storeBefore.get(table) !== rows).map(([table]) => table);
  assert.deepEqual(changed, [], `malformed requests changed ${changed.join(', ')}`);
});
