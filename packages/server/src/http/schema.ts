import Type, { type TSchema } from 'typebox';

/** Schemas shared by routes of several resources. */

/** SHA-256 hex as clients send passwords and PINs (either case). */
export const Sha256Hex = Type.String({ pattern: '^[0-9a-fA-F]{64}$' });

/**
 * The registry's error body (docs/errors.md): `code` and `err` as the specification has them, and
 * `message` saying what was refused (always on a 400, with detail elsewhere in the wallet-app API).
 */
export const ErrorBody = Type.Object(
  {
    code: Type.Integer({ description: 'the code of docs/errors.md' }),
    err: Type.String({ description: "the registry's message for the code" }),
    message: Type.Optional(Type.String({ description: 'what was refused, or the detail of the failure' })),
  },
  { description: 'an error of the registry', examples: [{ code: 4001, err: 'invalid access token' }] },
);

/** Bodies of no JSON: a 500 with an empty body (most of Family A). */
export const EmptyFailure = Type.Unsafe<undefined>({ type: 'null', description: 'a failure outside the listed codes: an empty body' });

/** A plain-text failure body (A1 to A6), the route's fixed message as the specification has it. */
export function failureText(text: string) {
  return Type.Unsafe<string>({
    description: `a failure outside the listed codes: the plain text "${text}"`,
    content: { 'text/plain': { schema: { type: 'string', const: text } } },
  });
}

/** The fixed text of a route's plain-text failure (failureText), if its 500 answer is one. */
export function failureTextOf(response: unknown): string | undefined {
  const schema = (response as { content?: Record<string, { schema?: { const?: unknown } }> } | undefined)?.content?.['text/plain']?.schema;
  return typeof schema?.const === 'string' ? schema.const : undefined;
}

/** A body that is not JSON (files, QR codes, pages), for the document. */
export function binaryBody(types: string[], description: string) {
  const content = Object.fromEntries(types.map((type) => [type, { schema: { type: 'string', ...(type.startsWith('text/') ? {} : { contentMediaType: type }) } }]));
  return Type.Unsafe<unknown>({ description, content });
}

/**
 * `schema` with the description the document gives the answer it is the body of (OpenAPI requires
 * one; where a schema answers several operations each says what its answer means). A copy with the
 * schema's hidden properties, so it stays the TypeBox type it was.
 */
export function described<Schema extends TSchema>(schema: Schema, description: string): Schema {
  return Object.defineProperties(Object.create(Object.getPrototypeOf(schema)), { ...Object.getOwnPropertyDescriptors(schema), description: { value: description, enumerable: true, writable: true, configurable: true } });
}

/** The error answers of a family, keyed by HTTP status. */
export type ErrorResponses = Record<number, TSchema>;

/** The empty object some operations answer (A2, A3, sign-out). */
export const EmptyAnswer = Type.Object({}, { additionalProperties: false });
