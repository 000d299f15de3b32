import { EmptyFailure, ErrorBody, type ErrorResponses } from '../http/schema.ts';

/**
 * What every Family A route can answer besides its success: the registry's body (440 and the token
 * codes are 401, the rate limit 429, a transaction not mined in time 503), and for a failure
 * outside the listed codes an empty 500 unless the route names its own (A1 to A6, escrow).
 */
export const partnerApiErrors: ErrorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
  500: EmptyFailure,
  503: ErrorBody,
};
