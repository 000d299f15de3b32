import Type from 'typebox';

export const ChainsResponse = Type.Object({
  chains: Type.Array(
    Type.Object({
      chain: Type.String({ description: 'main, ethereum or polygon: the chain of App2App requests' }),
      chain_id: Type.Integer({ description: 'The EVM chain id' }),
      rpc_url: Type.String({ description: "The chain's read-only JSON-RPC endpoint on this service (POST /v2/a2a/rpc/{chain})" }),
    }),
  ),
});

export const RpcParams = Type.Object({ chain: Type.String() });

const RpcCall = Type.Object({
  jsonrpc: Type.Optional(Type.Literal('2.0')),
  id: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Integer(), Type.Null()])),
  method: Type.String({ maxLength: 100 }),
  params: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Object({})])),
});

/** Most calls one batch may carry. */
export const MAX_RPC_BATCH = 20;

export const RpcBody = Type.Union([RpcCall, Type.Array(RpcCall, { minItems: 1, maxItems: MAX_RPC_BATCH })], {
  description: `A JSON-RPC 2.0 call, or a batch of at most ${MAX_RPC_BATCH}`,
});

const RpcAnswer = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Type.String(), Type.Integer(), Type.Null()]),
    result: Type.Optional(Type.Unknown()),
    error: Type.Optional(Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) })),
  },
  { description: 'The node\'s answer; error -32601 for a method that is not a read' },
);

export const RpcResponse = Type.Union([RpcAnswer, Type.Array(RpcAnswer)]);
