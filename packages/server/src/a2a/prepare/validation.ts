import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import Type from 'typebox';
import { isAddress } from 'viem';
import { AppError, isAppError } from '../../errors/app-error.ts';
import { Errors, type ErrorCode } from '../../errors/codes.ts';
import { Bapp, EVM_ADDRESS_FORMAT, PrepareRequests } from './schema.ts';
import { SECRET_AJV_KEYWORDS } from '../../lib/secret.ts';

type Validator = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

/**
 * B1's body validator. The schema is checked in two steps, so that errors name one field of one
 * type: first bapp and type, then the object of that type (a dispatch on `type`, the union's
 * discriminator). Each step reports all its errors (the schema is bounded: abi, params and typed
 * data values are free-form, so no error list grows with an array), sorted so that the first
 * field in the schema's order comes first, as prepareSchemaError answers it.
 */
const compile = AjvCompiler()(
  {},
  {
    customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false, keywords: SECRET_AJV_KEYWORDS },
    onCreate: (ajv: { addFormat: (name: string, format: { type: 'string'; validate: (value: string) => boolean }) => void }) =>
      ajv.addFormat(EVM_ADDRESS_FORMAT, { type: 'string', validate: (value) => isAddress(value, { strict: true }) }),
  } as never,
) as unknown as (route: { schema: unknown }) => Validator;

const Head = Type.Object({ bapp: Bapp, type: Type.String({ pattern: '\\S', description: 'The request type' }) });
const head = compile({ schema: Head });
const byType = new Map(Object.entries(PrepareRequests).map(([type, schema]) => [type, { schema, validate: compile({ schema }) }]));

/** The route's validatorCompiler: the schema it is given is PrepareBody, checked as above. */
export const prepareValidatorCompiler: FastifySchemaCompiler<unknown> = () => {
  const validate: Validator = (body) => {
    validate.errors = null;
    if (!head(body)) {
      validate.errors = inSchemaOrder(Head, head.errors ?? []);
      return false;
    }
    const type = (body as { type: string }).type;
    const branch = byType.get(type);
    if (!branch) {
      validate.errors = [{ keyword: 'enum', instancePath: '/type', schemaPath: '#/discriminator', params: { type }, message: `must be one of ${[...byType.keys()].join(', ')}` }];
      return false;
    }
    if (!branch.validate(body)) {
      validate.errors = inSchemaOrder(branch.schema, branch.validate.errors ?? []);
      return false;
    }
    return true;
  };
  return validate;
};

/** The code of each field of the body, by its path; a path not listed is a plain 400. */
const FIELD_CODES: Record<string, ErrorCode> = {
  '': Errors.BadRequest,
  bapp: Errors.BappNameRequired,
  'bapp/name': Errors.BappNameRequired,
  'bapp/callback': Errors.BadRequest,
  'bapp/kas_authorization_key': Errors.InvalidFeeCredential,
  'bapp/service_key': Errors.BadRequest,
  type: Errors.InvalidRequestType,
  chain: Errors.ChainNotSupported,
  transaction: Errors.InvalidTransaction,
  message: Errors.InvalidTransaction,
  'transaction/from': Errors.InvalidFrom,
  'transaction/to': Errors.InvalidTo,
  'transaction/amount': Errors.InvalidAmount,
  'transaction/contract': Errors.InvalidContract,
  'transaction/card_id': Errors.InvalidCardId,
  'transaction/value': Errors.InvalidValue,
  'transaction/abi': Errors.InvalidAbi,
  'transaction/params': Errors.InvalidParams,
  'transaction/encoded_function_call': Errors.InvalidTransaction,
  'message/from': Errors.InvalidFrom,
  'message/value': Errors.InvalidValue,
  'message/is_hex_encoded': Errors.InvalidTransaction,
};

/**
 * The route's schemaErrorFormatter: the refusal of the first wrong field (in the schema's order),
 * with the code the specification gives that field and a detail naming it
 * ("body/transaction/to must match format \"evm-address\"").
 */
export function prepareSchemaError(errors: FastifySchemaValidationError[], dataVar = 'body'): AppError {
  const error = errors[0];
  if (!error) return new AppError(Errors.BadRequest);
  const path = fieldPath(error);
  // A type that is a non-empty string but none of the types is 6410; any other bad type is 6010.
  const code = path.join('/') === 'type' && error.keyword === 'enum' ? Errors.UnknownRequestType : codeOf(path);
  const field = [dataVar, ...path].join('/');
  const detail = error.keyword === 'required' ? `${field} is required` : `${field} ${error.message ?? 'is not valid'}`;
  return new AppError(code, { detail, field });
}

/**
 * A refusal of B1's rules beyond the schema (they need the chain, the store or several fields),
 * given the field of the body it is about: the one the specification gives its code, in the
 * transaction or the message as the type has; for 6500, the field holding the blacklisted address.
 * Refusals about no one field (6200, 6412, 6414) and those naming one already pass unchanged.
 */
export function refusalAboutField(error: unknown, body: { type: string; transaction?: unknown; message?: unknown }): unknown {
  if (!isAppError(error) || error.field) return error;
  const part = body.type.startsWith('sign_') ? 'message' : 'transaction';
  let field = ({
    [Errors.BappNameRequired]: 'bapp/name',
    [Errors.InvalidRequestType]: 'type',
    [Errors.UnknownRequestType]: 'type',
    [Errors.ChainNotSupported]: 'chain',
    [Errors.InvalidTransaction]: part,
    [Errors.InvalidTo]: 'transaction/to',
    [Errors.InvalidAmount]: 'transaction/amount',
    [Errors.InvalidContract]: 'transaction/contract',
    [Errors.InvalidCardId]: 'transaction/card_id',
    [Errors.InvalidAbi]: 'transaction/abi',
    [Errors.InvalidParams]: 'transaction/params',
    [Errors.InvalidValue]: `${part}/value`,
    [Errors.InvalidFrom]: `${part}/from`,
    [Errors.InvalidFeeCredential]: 'bapp/kas_authorization_key',
    [Errors.FeeCredentialNotForRequest]: 'bapp/kas_authorization_key',
  } as Partial<Record<ErrorCode, string>>)[error.code];
  if (error.code === Errors.Blacklisted) {
    const fields = Object.entries(Object(body[part]) as Record<string, unknown>);
    const held = fields.find(([, value]) => typeof value === 'string' && value.length > 2 && error.detail?.toLowerCase().includes(value.toLowerCase()));
    field = held && `${part}/${held[0]}`;
  }
  return field ? new AppError(error.code, { ...(error.detail ? { detail: error.detail } : {}), field: `body/${field}`, cause: error }) : error;
}

/** The code of the deepest listed field that holds the path (transaction/abi/0 is abi's). */
function codeOf(path: string[]): ErrorCode {
  for (let length = path.length; length >= 0; length -= 1) {
    const code = FIELD_CODES[path.slice(0, length).join('/')];
    if (code !== undefined) return code;
  }
  return Errors.BadRequest;
}

/** The path of the field an error is about: its instance path, and the property a `required` names. */
function fieldPath(error: FastifySchemaValidationError): string[] {
  const path = error.instancePath.split('/').slice(1);
  const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined;
  return missing ? [...path, missing] : path;
}

/**
 * The errors sorted by where their field comes in the schema: at each level, the order of the
 * object's properties (an object before its own fields, an unknown property last). The sort is
 * stable, so a field's own errors keep Ajv's order.
 */
function inSchemaOrder(schema: unknown, errors: FastifySchemaValidationError[]): FastifySchemaValidationError[] {
  const rank = (error: FastifySchemaValidationError) => {
    const positions: number[] = [];
    let current = schema as { properties?: Record<string, unknown> } | undefined;
    for (const segment of fieldPath(error)) {
      const keys = Object.keys(current?.properties ?? {});
      const index = keys.indexOf(segment);
      positions.push(index === -1 ? keys.length : index);
      current = current?.properties?.[segment] as typeof current;
    }
    return positions;
  };
  const ranked = errors.map((error) => ({ error, rank: rank(error) }));
  ranked.sort((a, b) => compareRanks(a.rank, b.rank));
  return ranked.map(({ error }) => error);
}

function compareRanks(a: number[], b: number[]): number {
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const left = a[index] ?? -1;
    const right = b[index] ?? -1;
    if (left !== right) return left - right;
  }
  return 0;
}
