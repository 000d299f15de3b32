import Type from 'typebox';
import { ErrorBody, type ErrorResponses } from '../http/schema.ts';
import { KeyedErrorBody } from './requests/schema.ts';

/** Family B's bare error: the registry's pair, with `error` added for B1's refusals (a2a/family.ts). */
export const A2aErrorBody = Type.Object(
  {
    ...ErrorBody.properties,
    error: Type.Optional(
      Type.Object(
        { code: Type.Integer(), message: Type.String({ description: 'the field the refusal is about and what is wrong with it, or the revert reason (6414)' }), err: Type.String() },
        { description: "on B1's refusals: the specification's prepare error object" },
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
