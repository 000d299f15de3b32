import Type, { type Static } from 'typebox';
import { ErrorBody, described } from '../../http/schema.ts';

/** Longest long-poll, in seconds. */
export const MAX_WAIT_SECONDS = 30;

export const ResultQuery = Type.Object({
  request_key: Type.String({ description: 'the key prepare returned' }),
  wait: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_WAIT_SECONDS, description: 'hold the answer up to this many seconds until the state changes' }),
  ),
});

/** The body of a request key in error (expired, or failed when executed): B3 and the wallet-app API. */
export const KeyedErrorBody = Type.Object(
  {
    request_key: Type.String(),
    expiration_time: Type.Integer(),
    status: Type.Literal('error'),
    error: Type.Object({
      code: Type.Integer({ description: 'the code of docs/errors.md' }),
      err: Type.String({ description: "the registry's message" }),
      message: Type.String({ description: 'the detail (a revert reason), else the registry message' }),
    }),
  },
  {
    description: 'a request key in error',
    examples: [
      {
        request_key: '6f1b8a6e-1c1e-4b55-8a34-3c1f0e4d2b7a',
        expiration_time: 1722470400,
        status: 'error',
        error: { code: 6001, err: 'request key is expired', message: 'request key is expired' },
      },
    ],
  },
);

/** `result` of a completed request, by type (the B3 table); fields of other types are absent. */
export const RequestOutcome = Type.Object(
  {
    main_address: Type.Optional(Type.String({ description: 'auth' })),
    evm_address: Type.Optional(Type.String({ description: 'auth: the same as main_address' })),
    bitcoin_address: Type.Optional(Type.String({ description: 'auth' })),
    solana_address: Type.Optional(Type.String({ description: 'auth' })),
    tron_address: Type.Optional(Type.String({ description: 'auth' })),
    xrpl_address: Type.Optional(Type.String({ description: 'auth' })),
    tx_hash: Type.Optional(Type.String({ description: 'transaction types' })),
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('success'), Type.Literal('fail')], { description: 'transaction types' })),
    signature: Type.Optional(Type.String({ description: 'sign types (v is 27 or 28)' })),
    hash: Type.Optional(Type.String({ description: 'sign types: the digest signed' })),
  },
  { additionalProperties: true },
);

/** B3 answer (and the wallet-app's approve and cancel) for a request that is not in error. */
export const ResultResponse = Type.Object(
  {
    request_key: Type.String(),
    expiration_time: Type.Integer({ description: 'epoch seconds' }),
    status: Type.Union([Type.Literal('prepared'), Type.Literal('requested'), Type.Literal('completed'), Type.Literal('canceled')]),
    result: Type.Optional(RequestOutcome),
    ci_hash: Type.Optional(Type.String({ description: 'auth prepared with a service_key' })),
  },
  {
    examples: [
      {
        request_key: '6f1b8a6e-1c1e-4b55-8a34-3c1f0e4d2b7a',
        expiration_time: 1722470400,
        status: 'completed',
        result: { tx_hash: '0x9f0c4b3ad1e5f2a7c8b6d4e2f1a3c5b7d9e0f2a4c6b8d0e2f4a6c8b0d2e4f6a8', status: 'success' },
      },
    ],
  },
);
export type RequestOutcome = Static<typeof RequestOutcome>;

/** B3's refusals: 6000 bare, or the keyed body of a key in error. */
export const ResultRefusal = Type.Union([KeyedErrorBody, ErrorBody], { description: 'an unknown key (6000, bare), or a key in error (keyed)' });

/** B3's answers, and the wallet-app's approve and cancel. */
export const ResultResponses = { 200: described(ResultResponse, "The request's status, and its result once completed"), 400: ResultRefusal };
export type ResultBody = Static<typeof ResultResponse> | Static<typeof ResultRefusal>;
