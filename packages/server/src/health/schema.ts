import Type from 'typebox';
import { Tags } from '../http/route-docs.ts';

/** The health answer: 200 when every check is ok, 503 otherwise, with each check's error. */
export const HealthAnswer = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    checks: Type.Record(Type.String(), Type.String(), { description: '`store` and `chain:<name>`: ok, or why it did not answer' }),
  },
  { examples: [{ status: 'ok', checks: { store: 'ok', 'chain:main': 'ok' } }] },
);

export const HealthSchema = { summary: 'Health of the store and every chain', tags: [Tags.service], response: { 200: HealthAnswer, 503: HealthAnswer } };
