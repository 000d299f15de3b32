/**
 * How the routes' schemas become validators and serializers.
 *
 * Validation: path and query values arrive as text, so they are coerced to the schema's types (and a
 * lone query value to an array where one is wanted). JSON bodies carry their own types and are taken
 * as sent: `"card_id": "3"`, `true` or `[3]` where a number belongs is refused (400), not read as
 * some card. Validation errors of every route become the registry's 400 body (app.ts).
 *
 * Compiled at first use by default: compiling every route's validators and serializers took about
 * 0.3 s of CPU each time an app was built, most of its start, while a process (a test file, a CLI
 * command, an instance) uses a few of its routes. `compileSchemasAtStart` compiles them all while
 * the app is built, as Fastify does; a test builds the app so, to prove that every schema compiles.
 */
import type { FastifySchemaCompiler } from 'fastify';
import { AjvCompiler } from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { SECRET_AJV_KEYWORDS } from '../lib/secret.ts';

const validators = AjvCompiler();
const ajvOptions = { allErrors: false, removeAdditional: false, keywords: SECRET_AJV_KEYWORDS } as const;
const coercingValidator = validators({}, { customOptions: { ...ajvOptions, coerceTypes: 'array' } }) as unknown as FastifySchemaCompiler<unknown>;
const exactValidator = validators({}, { customOptions: { ...ajvOptions, coerceTypes: false } }) as unknown as FastifySchemaCompiler<unknown>;
const compileValidator: FastifySchemaCompiler<unknown> = (route) => (route.httpPart === 'body' ? exactValidator : coercingValidator)(route);

type Validator = ((...args: unknown[]) => unknown) & { errors?: unknown; schemaEnv?: unknown };

/**
 * A validator compiled when a request first needs it. Fastify reads `schemaEnv` before each call (to
 * let Ajv coerce a root value) and `errors` after a refusal: both are the compiled validator's.
 */
function validatorAtFirstUse(compile: () => Validator): Validator {
  let compiled: Validator | undefined;
  const validator = () => (compiled ??= compile());
  const atFirstUse = ((...args: unknown[]) => validator()(...args)) as Validator;
  Object.defineProperty(atFirstUse, 'schemaEnv', { get: () => validator().schemaEnv });
  Object.defineProperty(atFirstUse, 'errors', { get: () => validator().errors });
  return atFirstUse;
}

export function validatorCompiler(options: { atStart: boolean }): FastifySchemaCompiler<unknown> {
  if (options.atStart) return compileValidator;
  return (route) => validatorAtFirstUse(() => compileValidator(route) as Validator) as ReturnType<FastifySchemaCompiler<unknown>>;
}

/** Fastify's own serializers (fast-json-stringify), each compiled at its first answer unless `atStart`. */
export function serializerFactory(options: { atStart: boolean }): SerializerSelector.SerializerFactory {
  const fastJsonStringify = SerializerSelector();
  if (options.atStart) return fastJsonStringify;
  return (externalSchemas, serializerOptions) => {
    const compile = fastJsonStringify(externalSchemas, serializerOptions);
    return (route) => {
      let compiled: SerializerSelector.Serializer | undefined;
      return (data: unknown) => (compiled ??= compile(route))(data);
    };
  };
}
