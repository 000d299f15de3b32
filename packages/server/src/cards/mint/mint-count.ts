import type { PartnerRow } from '../../store/schema.ts';
import { monthKey } from '../../lib/time.ts';

/** Cards a partner minted in the month of `now` (mint_count resets on the 1st, configured time zone). */
export function currentMintCount(partner: Pick<PartnerRow, 'mint_count' | 'mint_period'>, timeZone: string, now = new Date()): number {
  return partner.mint_period === monthKey(now, timeZone) ? Number(partner.mint_count) : 0;
}
