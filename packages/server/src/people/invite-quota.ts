import type { Config } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import type { Db } from '../store/database.ts';
import { dayKey, monthKey } from '../lib/time.ts';
import { Errors } from '../errors/codes.ts';
import { addToInviteCounter, ensureInviteCounters, subtractFromInviteCounter, type CounterUse, type InviteCounter } from './store.ts';

export type { InviteCounter } from './store.ts';

type LimitCode = 4112 | 4114 | 4115;

/** The counters one call will take, in the order they are taken, and what each invite is charged. */
export interface InviteQuotaPlan {
  uses: Array<{ use: CounterUse; limit: number; code: LimitCode }>;
  /** Per phone of the call, in order: the counters its invite is charged (to give back one invite). */
  charges: InviteCounter[][];
}

/**
 * The invite quota of one call: one invite from `partnerId` to each of `phones` (a phone may come
 * more than once: one per invited person). Counters, in this order: the partner's day
 * (`senderDailyLimit`, 4112), each phone's day (`receiverDailyLimit`, 4114), each phone's month
 * (`receiverMonthlyLimit`, 4115); a limit of 0 is not counted. Phones are in one order for every
 * call: callers take the quota inside a DB transaction, and two calls locking the same counters in
 * different orders would deadlock on PostgreSQL.
 */
export function planInviteQuota(
  limits: Readonly<Config['invites']>,
  input: { partnerId: string; phones: readonly string[]; timeZone: string; now?: Date },
): InviteQuotaPlan {
  const now = input.now ?? new Date();
  const day = dayKey(now, input.timeZone);
  const month = monthKey(now, input.timeZone);
  const perPhone = new Map<string, number>();
  for (const phone of input.phones) perPhone.set(phone, (perPhone.get(phone) ?? 0) + 1);
  const phones = [...perPhone].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

  const uses: InviteQuotaPlan['uses'] = [];
  if (limits.senderDailyLimit > 0 && input.phones.length > 0) {
    const use: CounterUse = { kind: 'sender_day', subject: input.partnerId, period: day, count: input.phones.length };
    uses.push({ use, limit: limits.senderDailyLimit, code: 4112 });
  }
  const perReceiver = (kind: 'receiver_day' | 'receiver_month', period: string, limit: number, code: LimitCode) => {
    if (limit <= 0) return;
    for (const [phone, count] of phones) uses.push({ use: { kind, subject: phone, period, count }, limit, code });
  };
  perReceiver('receiver_day', day, limits.receiverDailyLimit, Errors.ReceiverDailyLimit);
  perReceiver('receiver_month', month, limits.receiverMonthlyLimit, Errors.ReceiverMonthlyLimit);
  const charged = (phone: string) =>
    uses.filter(({ use }) => use.kind === 'sender_day' || use.subject === phone).map(({ use }) => counterOf(use));
  return { uses, charges: input.phones.map(charged) };
}

/**
 * Takes a planned quota. Each counter is one conditional UPDATE (`count + n <= limit`) after an
 * insert-if-missing, so parallel calls in any number of processes never exceed a limit. When one
 * refuses, what this call took is given back before the AppError is thrown.
 */
export async function takeInviteQuota(db: Db, plan: InviteQuotaPlan): Promise<void> {
  await ensureInviteCounters(db, plan.uses.map(({ use }) => use));
  const taken: CounterUse[] = [];
  for (const { use, limit, code } of plan.uses) {
    if (!(await addToInviteCounter(db, use, limit))) {
      await giveBackCounts(db, taken);
      throw new AppError(code, { detail: limitDetail(use, limit) });
    }
    taken.push(use);
  }
}

/** Gives back one use of each counter listed (a counter may be listed once per invite it charged). */
export async function giveBackInviteQuota(db: Db, counters: readonly InviteCounter[]): Promise<void> {
  const uses = new Map<string, CounterUse>();
  for (const counter of counters) {
    const key = `${counter.kind}|${counter.subject}|${counter.period}`;
    const use = uses.get(key);
    if (use) use.count += 1;
    else uses.set(key, { ...counterOf(counter), count: 1 });
  }
  await giveBackCounts(db, [...uses.values()]);
}

async function giveBackCounts(db: Db, uses: readonly CounterUse[]): Promise<void> {
  for (const use of uses) await subtractFromInviteCounter(db, use);
}

function counterOf(use: InviteCounter): InviteCounter {
  return { kind: use.kind, subject: use.subject, period: use.period };
}

function limitDetail(use: CounterUse, limit: number): string {
  switch (use.kind) {
    case 'sender_day':
      return `a partner may send at most ${limit} invites a day`;
    case 'receiver_day':
      return `${use.subject} may receive at most ${limit} invites a day`;
    case 'receiver_month':
      return `${use.subject} may receive at most ${limit} invites a month`;
  }
}
