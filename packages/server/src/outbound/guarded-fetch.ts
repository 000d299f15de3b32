import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Limits and policy of the guarded client (config `cards.statusUrl`). */
export interface GuardedFetchSettings {
  /** The whole fetch, redirects included, must end within this. */
  timeoutMs: number;
  /** A body longer than this is refused while it streams in. */
  maxBytes: number;
  /** Redirects followed (each re-checked) before giving up. */
  maxRedirects: number;
  /**
   * Allow loopback, private, link-local and other non-public addresses. Off by default: a partner's
   * URL must not reach the service's own network. For a closed network where partners are local.
   */
  allowPrivateAddresses: boolean;
}

/** How a host name becomes addresses; `dns.lookup` by default (tests give their own). */
export type ResolveHost = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

/** What tests may put in place of DNS and of the address policy. */
export interface GuardedFetchOptions {
  resolve?: ResolveHost;
  /** Whether an address may be connected to; by default isAllowedAddress with the settings' allowPrivateAddresses. */
  isAllowed?: (address: string) => boolean;
}

/** Why a guarded fetch did not give a body, in words fit for a log or an answer. */
export class GuardedFetchError extends Error {
  override readonly name = 'GuardedFetchError';
}

const defaultResolve: ResolveHost = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Whether an address may be connected to: public unicast only, unless the settings allow others. */
export function isAllowedAddress(address: string, allowPrivateAddresses: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns an IPv4-mapped IPv6 address (::ffff:10.0.0.1) into the IPv4 one it carries.
  return allowPrivateAddresses || ipaddr.process(address).range() === 'unicast';
}

/**
 * The one client for server-side fetches of partner URLs (a card's status_url). Only http and https;
 * the host is resolved once per hop and the connection pinned to the address that was vetted, so
 * DNS cannot answer differently between the check and the connection; literal IP hosts are
 * checked the same way; redirects are followed by hand, each target checked again; the body is
 * refused past `maxBytes` as it arrives and the whole fetch past `timeoutMs`.
 *
 * @example
 * const body = await guardedFetchJson('https://partner.example/status/7', settings);
 */
export async function guardedFetchJson(url: string, settings: GuardedFetchSettings, options: GuardedFetchOptions = {}): Promise<unknown> {
  const resolve = options.resolve ?? defaultResolve;
  const isAllowed = options.isAllowed ?? ((address: string) => isAllowedAddress(address, settings.allowPrivateAddresses));
  const signal = AbortSignal.timeout(settings.timeoutMs);
  let current = parseTarget(url);
  for (let redirects = 0; ; redirects += 1) {
    const address = await vettedAddress(current, resolve, isAllowed);
    const response = await send(current, address, signal, { method: 'GET', headers: { accept: 'application/json' } });
    const location = response.headers.location;
    if (response.statusCode && response.statusCode >= 300 && response.statusCode < 400 && location) {
      response.resume();
      if (redirects >= settings.maxRedirects) throw new GuardedFetchError(`more than ${settings.maxRedirects} redirects`);
      current = parseTarget(new URL(location, current).toString());
      continue;
    }
    if (response.statusCode !== 200) {
      response.resume();
      throw new GuardedFetchError(`the URL answered HTTP ${response.statusCode}`);
    }
    const text = await readLimited(response, settings.maxBytes, signal);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new GuardedFetchError('the URL did not answer JSON');
    }
  }
}

/**
 * A POST of `body` to a partner's URL under the same rules (a webhook delivery). Redirects are not
 * followed: a delivery answered with one counts as not delivered. Resolves with the status and up to
 * `maxBytes` of the answer (a longer one is cut); throws GuardedFetchError when no answer came.
 *
 * @example
 * const { status } = await guardedPost('https://partner.example/hooks', { body, headers }, settings);
 */
export async function guardedPost(
  url: string,
  request: { body: string; headers: Record<string, string> },
  settings: Omit<GuardedFetchSettings, 'maxRedirects'>,
  options: GuardedFetchOptions = {},
): Promise<{ status: number; body: string }> {
  const resolve = options.resolve ?? defaultResolve;
  const isAllowed = options.isAllowed ?? ((address: string) => isAllowedAddress(address, settings.allowPrivateAddresses));
  const signal = AbortSignal.timeout(settings.timeoutMs);
  const target = parseTarget(url);
  const address = await vettedAddress(target, resolve, isAllowed);
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(request.body)), ...request.headers };
  const response = await send(target, address, signal, { method: 'POST', headers, body: request.body });
  let text = '';
  try {
    text = await readLimited(response, settings.maxBytes, signal);
  } catch {
    // The status is what counts; an answer too long or cut short is not kept.
  }
  return { status: response.statusCode ?? 0, body: text };
}

function parseTarget(url: string): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new GuardedFetchError('not a valid URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new GuardedFetchError(`${target.protocol} URLs are not fetched`);
  if (target.username || target.password) throw new GuardedFetchError('URLs with credentials are not fetched');
  return target;
}

async function vettedAddress(
  target: URL,
  resolve: ResolveHost,
  isAllowed: (address: string) => boolean,
): Promise<{ address: string; family: number }> {
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  let candidates: Array<{ address: string; family: number }>;
  if (family !== 0) {
    candidates = [{ address: host, family }];
  } else {
    try {
      candidates = await resolve(host);
    } catch {
      throw new GuardedFetchError(`${host} does not resolve`);
    }
  }
  if (candidates.length === 0) throw new GuardedFetchError(`${host} does not resolve`);
  // Every address must pass: a host that also resolves to a private address is refused outright.
  const refused = candidates.find((candidate) => !isAllowed(candidate.address));
  if (refused) throw new GuardedFetchError(`${host} resolves to ${refused.address}, which is not a public address`);
  return candidates[0]!;
}

function send(
  target: URL,
  pinned: { address: string; family: number },
  signal: AbortSignal,
  message: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Promise<IncomingMessage> {
  // Connect to the vetted address whatever the resolver would say now; TLS still checks the name.
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const open = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolvePromise, reject) => {
    const request = open(target, { method: message.method, lookup, signal, headers: message.headers }, resolvePromise);
    request.on('error', (error) =>
      reject(signal.aborted ? new GuardedFetchError('the URL did not answer in time') : new GuardedFetchError(`the URL could not be fetched: ${error.message}`)),
    );
    request.end(message.body);
  });
}

async function readLimited(response: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<string> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw new GuardedFetchError(`the answer is larger than ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > maxBytes) {
        response.destroy();
        throw new GuardedFetchError(`the answer is larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof GuardedFetchError) throw error;
    throw new GuardedFetchError(signal.aborted ? 'the URL did not answer in time' : 'the answer broke off');
  }
  return Buffer.concat(chunks).toString('utf8');
}
