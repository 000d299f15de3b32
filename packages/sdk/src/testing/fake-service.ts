import type { ServiceChain } from '../provider/provider.ts';

/**
 * A fake wallet service for the provider's and the connector's unit tests: the App2App calls and
 * the chains' JSON-RPC endpoints, answered by a function of the path.
 */
export const BASE = 'https://wallet.example';
export const MEMBER = '0xe38beac1059dde9d3dce55b1416d147588b95bec';
export const OTHER = '0x2222222222222222222222222222222222222222';
export const CHAINS: ServiceChain[] = [
  { chain: 'main', chain_id: 31337, rpc_url: `${BASE}/v2/a2a/rpc/main` },
  { chain: 'polygon', chain_id: 31339, rpc_url: `${BASE}/v2/a2a/rpc/polygon` },
];
export const KEY = 'key-1';
export const SIGNATURE = `0x${'ab'.repeat(65)}`;
export const TX_HASH = `0x${'cd'.repeat(32)}`;

export interface Call {
  method: string;
  path: string;
  body: any;
}
export type Answer = { status?: number; body?: unknown } | 'hang' | 'fail';

/** The fake service: `answer(call)` per request; every call recorded. */
export function fakeService(answer: (call: Call) => Answer) {
  const calls: Call[] = [];
  const fetcher = async (input: string | URL | Request, init: RequestInit = {}) => {
    const call: Call = { method: init.method ?? 'GET', path: String(input).replace(BASE, ''), body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined };
    calls.push(call);
    // As fetch does: an aborted signal rejects.
    init.signal?.throwIfAborted();
    const reply = answer(call);
    if (reply === 'fail') throw new TypeError('fetch failed');
    if (reply === 'hang') {
      return new Promise<Response>((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true });
      });
    }
    return new Response(reply.body === undefined ? '' : JSON.stringify(reply.body), { status: reply.status ?? 200 });
  };
  return { fetch: fetcher as typeof fetch, calls, prepares: () => calls.filter((call) => call.path === '/v2/a2a/prepare').map((call) => call.body) };
}

/** A wallet that approves every request: auth gives MEMBER, transactions TX_HASH, signatures SIGNATURE. */
export function approvingWallet(outcome: (type: string) => Record<string, unknown> = () => ({ status: 'completed' })) {
  let type = '';
  return (call: Call): Answer => {
    if (call.path === '/v2/a2a/chains') return { body: { chains: CHAINS } };
    if (call.path === '/v2/a2a/prepare') {
      type = call.body.type;
      return { body: { request_key: KEY, status: 'prepared', expiration_time: 1 } };
    }
    if (call.path.startsWith('/v2/a2a/links')) return { body: { request_key: KEY, region: 'default', universal_link: `${BASE}/?target=/a2a?request_key=${KEY}`, ios_scheme_link: 'x', android_intent_link: 'y', qr_text: 'z', qr_png_url: '', qr_svg_url: '' } };
    if (call.path.startsWith('/v2/a2a/result')) {
      const state = outcome(type);
      if (state.status !== 'completed') return { body: { request_key: KEY, expiration_time: 1, ...state } };
      const result = type === 'auth' ? { main_address: MEMBER, evm_address: MEMBER } : type.startsWith('sign') ? { signature: SIGNATURE, hash: '0x00' } : { tx_hash: TX_HASH, status: 'pending' };
      return { body: { request_key: KEY, expiration_time: 1, status: 'completed', result } };
    }
    throw new Error(`unexpected ${call.method} ${call.path}`);
  };
}

