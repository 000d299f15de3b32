import { ConfigSchema, type Config } from '../config/config.ts';
import { secretFieldsOf, type SecretField, type SecretKind } from '../lib/secret.ts';

/**
 * What the logger keeps out of its lines, built from the schemas' marks (lib/secret.ts):
 *
 * - by name: a field marked secret in a registered route's schema (request or answer) or in the
 *   configuration's, or one of the few below, has its value replaced by "[redacted]" wherever an
 *   object with that key is logged, at any depth (a body inside an error inside a log entry too);
 *   a URL marked `secretUrl` keeps its scheme and host only;
 * - by value: the configuration's secret values (the master key, tokens, the credentials inside
 *   RPC and database URLs) are replaced wherever they appear in a line, messages and stacks
 *   included (an RPC error that quotes its URL).
 */
export const REDACTED = '[redacted]';

/**
 * Secrets that no route or configuration schema declares: headers (the session cookie, the partner
 * token and the metrics bearer token travel in them) and the names the service's own records use.
 */
const FIELDS_OUTSIDE_SCHEMAS = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'passwordHash',
  'password_hash',
  'pinHash',
  'pin_hash',
  'privateKey',
  'private_key',
  'mnemonic',
  'sealed_secret',
  'encrypted_secret',
  'wrapped_data_key',
  'claim_secret',
  'credential',
  'fee_credential',
];

/** Secret field names known to this process, lower case, with their kind. */
const secretNames = new Map<string, SecretKind>();
/** Where each name was marked (for `secretFieldsKnown`). */
const markedAt = new Map<string, Set<string>>();
let namePattern: RegExp | undefined;

/** Adds fields marked secret (a route's, when it is registered); their names are redacted from then on. */
export function addSecretFields(fields: SecretField[], where = ''): void {
  for (const field of fields) {
    const name = field.name.toLowerCase();
    if (secretNames.get(name) !== true) {
      if (secretNames.get(name) !== field.kind) namePattern = undefined;
      secretNames.set(name, field.kind);
    }
    const places = markedAt.get(field.name) ?? new Set<string>();
    places.add(where ? `${where} ${field.path}` : field.path);
    markedAt.set(field.name, places);
  }
}

/** Adds the secret fields of one route's schemas (an onRoute hook: app.ts). */
export function addSecretFieldsOfRoute(route: { method: string | string[]; url: string; schema?: unknown }): void {
  if (route.schema) addSecretFields(secretFieldsOf(route.schema), `${[route.method].flat().join(',')} ${route.url}`);
}

/** Every secret field name this process knows, with where it was marked. */
export function secretFieldsKnown(): Map<string, string[]> {
  return new Map([...markedAt].map(([name, places]) => [name, [...places].sort()]));
}

addSecretFields(FIELDS_OUTSIDE_SCHEMAS.map((name) => ({ name, kind: true, path: name })), 'logging/redaction.ts');
addSecretFields(secretFieldsOf(ConfigSchema), 'configuration');

function secretNamePattern(): RegExp {
  namePattern ??= new RegExp(`"(?:${[...secretNames.keys()].map(escapeRegExp).join('|')})"\\s*:`, 'i');
  return namePattern;
}

/** `https://user:key@rpc.example.com/v3/abc?apikey=x` → `https://[redacted]@rpc.example.com/[redacted]?[redacted]`. */
export function maskUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return REDACTED;
  }
  const credentials = url.username || url.password ? `${REDACTED}@` : '';
  const path = url.pathname && url.pathname !== '/' ? `/${REDACTED}` : '';
  const query = url.search ? `?${REDACTED}` : '';
  return `${url.protocol}//${credentials}${url.host}${path}${query}`;
}

/**
 * The parts of a configuration that are secret, as they could appear in a line: each value marked
 * `secret`, and the credentials inside each URL marked `secretUrl` (password, a user name given
 * alone as a key, long path segments and query values, which is where providers put API keys).
 */
export function configSecretValues(config: Readonly<Config>): string[] {
  const kinds = new Map(secretFieldsOf(ConfigSchema).map((field) => [field.name, field.kind]));
  const values = new Set<string>();
  const pending: unknown[] = [config];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, value] of Object.entries(node)) {
      const kind = kinds.get(key);
      if (kind === true && typeof value === 'string') values.add(value);
      else if (kind === 'url' && typeof value === 'string') for (const part of urlCredentials(value)) values.add(part);
      else pending.push(value);
    }
  }
  // A short value would mask unrelated text; none of the secrets above is that short.
  return [...values].filter((value) => value.length >= 6);
}

function urlCredentials(text: string): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [text];
  }
  const parts = [url.password, url.password ? '' : url.username];
  parts.push(...url.pathname.split('/').filter((segment) => segment.length >= 16));
  parts.push(...[...url.searchParams.values()].filter((value) => value.length >= 8));
  return parts.filter(Boolean).flatMap((part) => [part, safeDecode(part)]);
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** A secret value as a JSON line holds it (escaped), for redactLine: computed once per logger. */
export function asWrittenInJson(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

/**
 * A log line (pino's JSON) with its secrets replaced: fields by name, then values (as
 * asWrittenInJson gives them). A line that names a secret field but cannot be read as JSON is
 * replaced as a whole.
 */
export function redactLine(line: string, writtenSecretValues: readonly string[] = []): string {
  let result = line;
  if (secretNamePattern().test(line)) {
    try {
      result = `${JSON.stringify(redactFields(JSON.parse(line)))}${line.endsWith('\n') ? '\n' : ''}`;
    } catch {
      result = `${JSON.stringify({ level: 50, time: Date.now(), msg: 'a log line that named a secret field was withheld: it could not be read as JSON' })}\n`;
    }
  }
  return maskSecretValues(result, writtenSecretValues);
}

/** `text` with each of `secretValues` replaced. */
export function maskSecretValues(text: string, secretValues: readonly string[]): string {
  let result = text;
  for (const value of secretValues) if (result.includes(value)) result = result.split(value).join(REDACTED);
  return result;
}

/** A copy of a logged value (pino's parsed line) with the values of secret fields replaced. */
export function redactFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactFields);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const kind = secretNames.get(key.toLowerCase());
    copy[key] = kind === undefined ? redactFields(inner) : kind === 'url' && typeof inner === 'string' ? maskUrl(inner) : REDACTED;
  }
  return copy;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
