import Type from 'typebox';
import { MemberSummary } from '../schema.ts';

export const SessionIdParams = Type.Object({ session_id: Type.String({ maxLength: 64 }) });

/** One live session of the member. */
export const SessionSummary = Type.Object({
  id: Type.String(),
  created_at: Type.Integer({ description: 'epoch seconds' }),
  expires_at: Type.Integer({ description: 'epoch seconds' }),
  user_agent: Type.Union([Type.String(), Type.Null()], { description: 'the browser that signed in' }),
  current: Type.Boolean({ description: 'the session of this request' }),
});

export const SessionList = Type.Object({ sessions: Type.Array(SessionSummary) });

export const SignedOutEverywhere = Type.Object({ signed_out: Type.Integer({ description: 'how many sessions ended' }) });

/** Who is signed in: the member, or null (no session, or one that ended). */
export const CurrentSession = Type.Object({ member: Type.Union([MemberSummary, Type.Null()]) });
