import type { PeopleResolution } from '../../people/index.ts';

/**
 * Runs the transactions of a call to people, then sends the invites of those whose card arrived
 * and gives back the invite quota of the rest (all of it when the call fails).
 */
export async function settleInvites<T>(
  resolution: PeopleResolution,
  cardName: string,
  partnerServiceName: string,
  run: () => Promise<{ result: T; done: boolean[] }>,
): Promise<T> {
  const all = resolution.recipients.map((_, index) => index);
  let outcome: { result: T; done: boolean[] };
  try {
    outcome = await run();
  } catch (error) {
    await resolution.releaseInvites(all);
    throw error;
  }
  const arrived = all.filter((index) => outcome.done[index]);
  try {
    await resolution.sendInvites(arrived, { cardName, partnerServiceName });
  } finally {
    // Even when the messenger refuses (501), the quota of those whose card did not arrive goes back.
    await resolution.releaseInvites(all.filter((index) => !outcome.done[index]));
  }
  return outcome.result;
}
