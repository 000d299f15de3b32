import Type, { type Static, type TSchema } from 'typebox';
import { CHAIN_NAMES } from '../../config/config.ts';
import { secret } from '../../lib/secret.ts';

/**
 * The body of B1: one object per `type` (a union discriminated by `type`). It validates the route
 * (see validation.ts: each field's violation answers that field's code) and documents it. Within
 * each object the properties are listed in the order they are checked: when several fields are
 * wrong, the first one listed answers. Rules that need the chain or span fields stay in commands.ts.
 */

/** Checked with viem's isAddress (strict), so mixed case must be a valid checksum. */
export const EVM_ADDRESS_FORMAT = 'evm-address';

const address = (description: string) =>
  Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', format: EVM_ADDRESS_FORMAT, description: `${description}; 0x hex, a valid checksum when mixed case` });

/** null, an empty string or an empty array: what "not given" means in B1. */
const NotGiven = Type.Union([Type.Null(), Type.Literal(''), Type.Array(Type.Unknown(), { maxItems: 0 })]);

export const Bapp = Type.Object(
  {
    name: Type.String({ pattern: '\\S', description: 'Name of the BApp, shown to the member (6401 when missing or blank)' }),
    callback: Type.Optional(
      Type.Union([
        Type.Object({
          success: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Link the wallet offers after approving' })),
          fail: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Link the wallet offers after a failure' })),
        }),
        NotGiven,
      ]),
    ),
    kas_authorization_key: Type.Optional(
      secret(Type.Union([Type.String(), Type.Null()], { description: 'Fee-delegation credential: the fee payer pays the fee (6416, 6418)' })),
    ),
    service_key: Type.Optional(secret(Type.Union([Type.String(), Type.Null()], { description: 'Operator-issued key: the auth result carries ci_hash' }))),
  },
  { description: 'The BApp asking' },
);

const Chain = Type.Optional(
  Type.Union([Type.Enum(CHAIN_NAMES), Type.Null(), Type.Literal('')], {
    description: 'main (default), ethereum or polygon; 6417 when not one of those served',
  }),
);

const From = Type.Optional(
  Type.Union([address('Only the member with this address may approve'), Type.Literal(''), Type.Null()], {
    description: 'When given, only the member with this address may approve (6411)',
  }),
);

const TRANSACTION = 'Required for send_coin, send_token, send_card and execute_contract (6402)';
const MESSAGE = 'Required for sign_message, sign_message_eip191 and sign_typedData_v4 (6402)';

/** Decimal amounts as the spec writes them ("1", "0.25"); zero, decimals and the uint256 bound are checked in code. */
const Amount = (description: string) =>
  Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', maxLength: 78 + 1 + 255, description: `${description} (6404)` });

export const SendCoinTransaction = Type.Object({
  from: From,
  to: address('Recipient (6403)'),
  amount: Amount('Coins as a decimal string, at most 18 decimals'),
}, { description: TRANSACTION });

export const SendTokenTransaction = Type.Object({
  contract: address('ERC-20 contract; the all-zero address selects the native coin (6405)'),
  from: From,
  to: address('Recipient (6403)'),
  amount: Amount("Whole tokens as a decimal string, converted by the contract's decimals()"),
}, { description: TRANSACTION });

export const SendCardTransaction = Type.Object({
  contract: address('ERC-721 card contract (6405)'),
  from: From,
  to: address('Recipient (6403)'),
  card_id: Type.Union([Type.String({ pattern: '^[0-9]+$', maxLength: 78 }), Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })], {
    description: 'Card id: a string of digits, or a number (6406)',
  }),
}, { description: TRANSACTION });

export const ExecuteContractTransaction = Type.Object({
  to: address('The contract called (6403)'),
  from: From,
  value: Type.Optional(
    Type.Union([Type.String({ pattern: '^[0-9]*$', maxLength: 78 }), Type.Null()], { description: 'Wei sent with the call, a whole number as a string; default "0" (6409)' }),
  ),
  abi: Type.Optional(
    Type.Union([Type.String(), Type.Object({}), Type.Array(Type.Unknown()), Type.Null()], {
      description: 'One function item, or an array holding exactly one function (error items beside it name custom reverts), or JSON text of either (6407)',
    }),
  ),
  params: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.Unknown()), Type.Null()], {
      description: 'The arguments, as an array or JSON text of one; tuples as arrays or objects by component name (6408)',
    }),
  ),
  encoded_function_call: Type.Optional(
    Type.Union([Type.String({ pattern: '^(0x([0-9a-fA-F]{2}){4,})?$' }), Type.Null()], {
      description: 'Calldata, 0x hex of at least 4 bytes: instead of abi and params (6402)',
    }),
  ),
}, { description: TRANSACTION });

export const SignMessageMessage = Type.Object({
  from: From,
  value: Type.String({ description: 'The text to sign, or 0x hex bytes with is_hex_encoded (6409)' }),
  is_hex_encoded: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'true: value is 0x hex bytes; default false (6402)' })),
}, { description: MESSAGE });

export const TypedDataMessage = Type.Object({
  from: From,
  value: Type.Union(
    [
      Type.String(),
      Type.Object({
        types: Type.Record(Type.String(), Type.Array(Type.Object({ name: Type.String(), type: Type.String() }))),
        primaryType: Type.String(),
        domain: Type.Optional(Type.Object({})),
        message: Type.Object({}),
      }),
    ],
    { description: 'EIP-712 typed data { types, primaryType, domain, message } as for eth_signTypedData_v4, or JSON text of it (6409)' },
  ),
}, { description: MESSAGE });

/** transaction or message on a type that takes the other one. */
const NotHere = Type.Optional(Type.Union(NotGiven.anyOf, { description: 'Not used by this type: absent, null or empty (6402)' }));

function transactionRequest<K extends string, T extends TSchema>(type: K, transaction: T, description: string) {
  return Type.Object({ bapp: Bapp, type: Type.Literal(type), chain: Chain, transaction, message: NotHere }, { description });
}

function messageRequest<K extends string, T extends TSchema>(type: K, message: T, description: string) {
  return Type.Object({ bapp: Bapp, type: Type.Literal(type), chain: Chain, message, transaction: NotHere }, { description });
}

export const AuthRequest = Type.Object(
  {
    bapp: Bapp,
    type: Type.Literal('auth'),
    chain: Type.Optional(Type.Unknown({ description: 'Ignored: every address is returned together' })),
    transaction: NotHere,
    message: NotHere,
  },
  { description: "Obtain the member's addresses" },
);

export const SendCoinRequest = transactionRequest('send_coin', SendCoinTransaction, 'Send the native coin');
export const SendTokenRequest = transactionRequest('send_token', SendTokenTransaction, 'Send an ERC-20 token, or the native coin');
export const SendCardRequest = transactionRequest('send_card', SendCardTransaction, 'Send a card (ERC-721)');
export const ExecuteContractRequest = transactionRequest('execute_contract', ExecuteContractTransaction, 'Call a contract');
export const SignMessageRequest = messageRequest('sign_message', SignMessageMessage, "Sign text with the main chain's signed-message prefix");
export const SignMessageEip191Request = messageRequest('sign_message_eip191', SignMessageMessage, 'Sign text with the EIP-191 personal-sign prefix');
export const SignTypedDataRequest = messageRequest('sign_typedData_v4', TypedDataMessage, 'Sign EIP-712 typed data');

/** Each request type's object, by `type`. */
export const PrepareRequests = {
  auth: AuthRequest,
  send_coin: SendCoinRequest,
  send_token: SendTokenRequest,
  send_card: SendCardRequest,
  execute_contract: ExecuteContractRequest,
  sign_message: SignMessageRequest,
  sign_message_eip191: SignMessageEip191Request,
  sign_typedData_v4: SignTypedDataRequest,
} as const;

export const PrepareBody = Type.Union(
  [AuthRequest, SendCoinRequest, SendTokenRequest, SendCardRequest, ExecuteContractRequest, SignMessageRequest, SignMessageEip191Request, SignTypedDataRequest],
  {
    discriminator: { propertyName: 'type' },
    description: 'B1: one object per type (auth, send_coin, send_token, send_card, execute_contract, sign_message, sign_message_eip191, sign_typedData_v4)',
  },
);
export type PrepareBody = Static<typeof PrepareBody>;

export const PreparedResponse = Type.Object({
  request_key: Type.String(),
  status: Type.Literal('prepared'),
  expiration_time: Type.Integer(),
  estimated_gas: Type.Optional(Type.Integer()),
});
