import Type from 'typebox';
import { Tags } from '../http/route-docs.ts';
import { described } from '../http/schema.ts';

/** The health answer: 200 when every check is ok, 503 otherwise, with each check's error. */
export const HealthAnswer = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    checks: Type.Record(Type.String(), Type.String(), { description: '`store` and `chain:<name>` (and `outbox` on readiness): ok, or why it did not answer' }),
  },
  { examples: [{ status: 'ok', checks: { store: 'ok', 'chain:main': 'ok' } }] },
);

export const HealthSchema = { summary: 'Health of the store and every chain', tags: [Tags.service], response: { 200: described(HealthAnswer, 'Every check is ok'), 503: described(HealthAnswer, 'A check failed: the store or a chain did not answer') } };

export const LivenessSchema = { summary: 'Liveness: the process answers', tags: [Tags.service], response: { 200: described(HealthAnswer, 'The process answers') } };

export const ReadinessSchema = {
  summary: 'Readiness: the store and every chain answer and no transaction waits past outbox.stuckAfterSeconds',
  tags: [Tags.service],
  response: {
    200: described(HealthAnswer, 'Ready: every check is ok'),
    503: described(HealthAnswer, 'Not ready: the store or a chain did not answer, or the outbox is stuck'),
  },
};
