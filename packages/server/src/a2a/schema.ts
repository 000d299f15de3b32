import Type from 'typebox';
import { ErrorBody, type ErrorResponses } from '../http/schema.ts';
import { KeyedErrorBody } from './requests/schema.ts';

/** Family B's bare error: the registry's pair, with `error` added for 6408 and 6414 (prepare). */
export const A2aErrorBody = Type.Object(
  {
    ...ErrorBody.properties,
    error: Type.Optional(
      Type.Object(
        { code: Type.Integer(), message: Type.String({ description: 'the argument and mismatch, or the revert reason' }), err: Type.String() },
        { description: 'on 6408 and 6414' },
      ),
    ),
  },
  {
    description: 'an error of the registry',
    examples: [{ code: 6401, err: 'bapp name is required' }],
  },
);

/** Family B answers 400 (a bare error, or the keyed body for a key in error) or 500. */
export const a2aErrors: ErrorResponses = {
  400: Type.Union([KeyedErrorBody, A2aErrorBody], { description: 'refused: a bare error, or the keyed body of a request key in error' }),
  500: ErrorBody,
};
