import Type from 'typebox';

/** Longest long-poll, in seconds. */
export const MAX_WAIT_SECONDS = 30;

export const ResultQuery = Type.Object({
  request_key: Type.String({ description: 'the key prepare returned' }),
  wait: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_WAIT_SECONDS, description: 'hold the answer up to this many seconds until the state changes' }),
  ),
});
