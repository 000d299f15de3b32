import Type from 'typebox';
import { ErrorBody, type ErrorResponses } from '../http/schema.ts';
export { EmptyAnswer } from '../http/schema.ts';
import { KeyedErrorBody } from '../a2a/requests/schema.ts';
import { secret } from '../lib/secret.ts';

/** The wallet-app API's errors: the registry's body (with `message` when there is detail), or the keyed body of B3. */
export const walletAppErrors: ErrorResponses = {
  400: Type.Union([KeyedErrorBody, ErrorBody], { description: 'refused: the registry body, or the keyed body of a request key in error' }),
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
};

/** Member sign-in. */
export const SignInBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254 }),
  password: secret(Type.String({ description: 'SHA-256 hex of the password' })),
});
/** A PIN that is not SHA-256 hex is a client's mistake (400), not a guess: it is not counted. */
export const ApproveBody = Type.Object({ pin: secret(Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'SHA-256 hex of the PIN' })) });
export const RequestKeyParams = Type.Object({ request_key: Type.String() });

/** The member as the app shows it. */
export const MemberSummary = Type.Object({
  email: Type.String(),
  name: Type.String(),
  main_address: Type.String(),
  status: Type.Integer(),
});

/** A new session: its bearer token (API clients; the wallet app gets a cookie instead) and when it ends. */
export const SignedIn = Type.Object({
  session_token: Type.Optional(secret(Type.String({ description: 'send as `Authorization: Bearer <session_token>`; absent when the session went into the cookie' }))),
  expires_at: Type.Integer({ description: 'epoch seconds' }),
  member: MemberSummary,
});

const NullableString = Type.Union([Type.String(), Type.Null()]);
const BalanceChange = Type.Object({ before: Type.String(), after: Type.String({ description: 'negative when the balance does not cover it' }) });

/** What the app shows before the member approves: exactly what approval will do (request-view.ts). */
export const RequestView = Type.Object({
  request_key: Type.String(),
  type: Type.String(),
  chain: Type.String(),
  status: Type.String(),
  expiration_time: Type.Integer(),
  bapp: Type.Object({
    name: Type.String(),
    callback: Type.Union([Type.Object({ success: Type.Optional(Type.String()), fail: Type.Optional(Type.String()) }), Type.Null()]),
    impersonates_operator: Type.Optional(Type.Boolean({ description: "the name reads as the operator's own (request-facts.ts): the app refuses to approve it" })),
  }),
  summary: Type.String({ description: 'one line for the confirmation screen' }),
  from: NullableString,
  fee_delegated: Type.Boolean(),
  estimated_gas: Type.Union([Type.Integer(), Type.Null()]),
  estimated_fee: Type.Optional(Type.Union([Type.String({ description: 'wei, decimal: estimated gas times the gas price now' }), Type.Null()])),
  token: Type.Optional(Type.Object({ symbol: NullableString, decimals: Type.Integer() }, { description: "send_token: the token contract's own symbol and decimals" })),
  contracts: Type.Optional(
    Type.Array(Type.Object({ address: Type.String(), name: Type.String(), operated_by: Type.String({ description: "the partner's name, or this wallet" }) }), {
      description: 'contracts the request names that this service deployed (request-facts.ts)',
    }),
  ),
  warnings: Type.Optional(
    Type.Array(
      Type.Object({
        kind: Type.Union([
          Type.Literal('approval_for_all'),
          Type.Literal('unlimited_approval'),
          Type.Literal('moves_own_asset'),
          Type.Literal('permit'),
          Type.Literal('permit2'),
          Type.Literal('new_contract'),
        ]),
        reason: Type.String({ description: 'why it is dangerous, in words' }),
      }),
      { description: 'dangers the member acknowledges before the PIN; empty for a harmless request' },
    ),
  ),
  chain_display: Type.Optional(Type.Union([Type.Object({ name: Type.String(), ticker: Type.String() }), Type.Null()], { description: "the chain's name and coin ticker as people see them" })),
  coin_balance: Type.Optional(Type.Union([BalanceChange, Type.Null()], { description: "the member's coins (wei) now and after value and fee" })),
  token_balance: Type.Optional(Type.Union([BalanceChange, Type.Null()], { description: "send_token: the member's units of the token now and after" })),
  transaction: Type.Optional(
    Type.Object({
      from: NullableString,
      to: Type.String(),
      amount: Type.Optional(Type.String()),
      contract: Type.Optional(Type.String()),
      native_coin: Type.Optional(Type.Boolean()),
      decimals: Type.Optional(Type.Integer()),
      card_id: Type.Optional(Type.String()),
      value: Type.String({ description: 'wei sent with the call, decimal' }),
      function: Type.Optional(NullableString),
      params: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])),
      abi: Type.Optional(Type.Array(Type.Unknown())),
      data: Type.String({ description: 'the calldata that will be signed' }),
    }),
  ),
  message: Type.Optional(
    Type.Object({ from: NullableString, value: Type.String(), is_hex_encoded: Type.Boolean(), text: NullableString }),
  ),
  typed_data: Type.Optional(Type.Unknown({ description: 'the EIP-712 message' })),
});
