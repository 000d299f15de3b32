/**
 * The one schema of the configuration, put together from its sections (chains.ts, partner-api.ts,
 * app2app.ts, http.ts), and the embedded defaults: everything on this machine, nothing to set up.
 */
import Type, { type Static } from 'typebox';
import { secret, secretUrl } from '../lib/secret.ts';
import { DEFAULT_SCRYPT_COST, MAX_SCRYPT_COST, MIN_SCRYPT_COST } from './scrypt-cost.ts';
import { app2AppDefaults, App2AppSections } from './app2app.ts';
import { chainDefaults, ChainSections, type ChainName } from './chains.ts';
import { httpDefaults, HttpSections } from './http.ts';
import { partnerApiDefaults, PartnerApiSections } from './partner-api.ts';

const ServiceSettings = Type.Object({
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  /**
   * Behind a reverse proxy: true trusts X-Forwarded-For from any hop, a string lists the proxy
   * addresses/CIDRs to trust. Rate limits and sign-in back-off count the client address it yields.
   */
  trustProxy: Type.Union([Type.Boolean(), Type.String({ minLength: 1 })]),
  /** Base URL that clients reach the service at; used in card URIs and links. */
  publicUrl: Type.String({ pattern: '^https?://' }),
  dataDir: Type.String({ minLength: 1 }),
  databaseUrl: secretUrl(Type.Union([Type.String({ pattern: '^postgres(ql)?://' }), Type.Null()])),
  /** 32-byte master key as 64 hex characters; when null it is created in the data directory. */
  masterKey: secret(Type.Union([Type.String({ pattern: '^[0-9a-fA-F]{64}$' }), Type.Null()])),
  logLevel: Type.Union([
    Type.Literal('fatal'),
    Type.Literal('error'),
    Type.Literal('warn'),
    Type.Literal('info'),
    Type.Literal('debug'),
    Type.Literal('trace'),
    Type.Literal('silent'),
  ]),
  /** IANA time zone of monthly and daily limits. */
  timeZone: Type.String({ minLength: 1 }),
  /** ISO 3166 country assumed for phone numbers written without a country code. */
  phoneDefaultCountry: Type.String({ pattern: '^[A-Z]{2}$' }),
  custody: Type.Object({
    /**
     * scrypt's N (a power of two) for password hashes and PIN keys made from now on; each keeps the
     * N it was made with. 2^15 by default; lower values are for test installations (a start below
     * the default says so in its log).
     */
    scryptCost: Type.Integer({ minimum: MIN_SCRYPT_COST, maximum: MAX_SCRYPT_COST }),
  }),
});

export const ConfigSchema = Type.Object(
  {
    ...ServiceSettings.properties,
    ...ChainSections.properties,
    ...PartnerApiSections.properties,
    ...App2AppSections.properties,
    ...HttpSections.properties,
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;
export type ChainSettings = NonNullable<Config['chains'][ChainName]>;

export function defaultConfig(): Config {
  return {
    host: '127.0.0.1',
    port: 3000,
    publicUrl: 'http://127.0.0.1:3000',
    trustProxy: false,
    dataDir: './data',
    databaseUrl: null,
    masterKey: null,
    logLevel: 'info',
    timeZone: 'UTC',
    phoneDefaultCountry: 'US',
    custody: { scryptCost: DEFAULT_SCRYPT_COST },
    ...chainDefaults(),
    ...partnerApiDefaults(),
    ...app2AppDefaults(),
    ...httpDefaults(),
  };
}

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object | null ? DeepPartial<NonNullable<T[K]>> | null : T[K] };
/** Settings given over the defaults (a file, the environment, tests, CLI flags). */
export type ConfigOverrides = DeepPartial<Config>;
