import Type from 'typebox';

/**
 * The body of B1. Every field is checked by the prepare command rather than by the schema, because
 * each rule answers its own code (6401, 6010, 6402, …); the schema documents the shape.
 */
export const PrepareBody = Type.Object({
  chain: Type.Optional(Type.Unknown({ description: 'main (default), ethereum or polygon; ignored for auth' })),
  bapp: Type.Optional(
    Type.Unknown({
      description: '{ name*, callback?: { success?, fail? }, kas_authorization_key?, service_key? }',
    }),
  ),
  type: Type.Optional(Type.Unknown({ description: 'auth, send_coin, send_token, send_card, execute_contract, sign_message, sign_message_eip191, sign_typedData_v4' })),
  transaction: Type.Optional(Type.Unknown({ description: 'for send_coin, send_token, send_card, execute_contract' })),
  message: Type.Optional(Type.Unknown({ description: 'for the sign types' })),
});

export const PreparedResponse = Type.Object({
  request_key: Type.String(),
  status: Type.Literal('prepared'),
  expiration_time: Type.Integer(),
  estimated_gas: Type.Optional(Type.Integer()),
});
