import type { TSchema } from 'typebox';

/**
 * The schema keyword that marks a field as secret, where the field is declared: in a route's
 * TypeBox schema (request or answer) or in the configuration's. The logger's redaction is built
 * from these marks (logging/redaction.ts), and the OpenAPI document shows them as they are (an
 * `x-` keyword, which OpenAPI 3.1 allows in a schema). Every Ajv that compiles such a schema is
 * told of the keyword (SECRET_AJV_KEYWORDS).
 *
 * `true`: the whole value is secret. `"url"`: a URL whose credentials are secret (user and password,
 * the path and the query, where providers put API keys); its scheme and host are not.
 */
export const SECRET_KEYWORD = 'x-secret';

export type SecretKind = true | 'url';

/** For Ajv's `keywords` option: the marks are annotations, not rules. */
export const SECRET_AJV_KEYWORDS = [SECRET_KEYWORD];

/** `schema`, marked secret: its value is never written to a log. */
export function secret<Schema extends TSchema>(schema: Schema): Schema {
  return marked(schema, true);
}

/** `schema` of a URL whose credentials (user, password, path, query) are never written to a log. */
export function secretUrl<Schema extends TSchema>(schema: Schema): Schema {
  return marked(schema, 'url');
}

/** A copy with the schema's hidden properties (TypeBox's kind, optional), so it stays the TypeBox type it was. */
function marked<Schema extends TSchema>(schema: Schema, kind: SecretKind): Schema {
  return Object.defineProperties(Object.create(Object.getPrototypeOf(schema)), {
    ...Object.getOwnPropertyDescriptors(schema),
    [SECRET_KEYWORD]: { value: kind, enumerable: true, writable: true, configurable: true },
  });
}

/** The mark of a schema, if it has one. */
export function secretKindOf(schema: unknown): SecretKind | undefined {
  const kind = (schema as Record<string, unknown> | null | undefined)?.[SECRET_KEYWORD];
  return kind === true || kind === 'url' ? kind : undefined;
}

/** A field marked secret: its name, its mark and where it is (`body.secure`, `response.200.access_token`). */
export interface SecretField {
  name: string;
  kind: SecretKind;
  path: string;
}

/**
 * The secret fields of a schema, or of a route's schemas ({ body, querystring, response, ... }):
 * every property, at any depth (objects, arrays, unions, records), whose schema is marked.
 */
export function secretFieldsOf(schema: unknown, at = ''): SecretField[] {
  const found: SecretField[] = [];
  const seen = new Set<object>();
  const pending: Array<[unknown, string]> = [[schema, at]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, path] = next;
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    const properties = (node as { properties?: unknown }).properties;
    for (const [key, value] of Object.entries(node)) {
      const where = path ? `${path}.${key}` : key;
      if (key === 'properties' && value === properties && typeof value === 'object' && value !== null) {
        for (const [name, property] of Object.entries(value)) {
          const fieldPath = path ? `${path}.${name}` : name;
          const kind = secretKindOf(property);
          if (kind) found.push({ name, kind, path: fieldPath });
          pending.push([property, fieldPath]);
        }
      } else {
        pending.push([value, where]);
      }
    }
  }
  return found;
}
