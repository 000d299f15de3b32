import type { Address } from 'viem';
import type { Db } from '../../store/database.ts';

/** A card contract of this service (a row of nft_contracts) that an owner holds cards of. */
export interface HeldBapp {
  nftId: number;
  chain: string;
  contract: Address;
  /** service_name of the partner the contract belongs to. */
  serviceName: string;
  /** Unburned cards of the contract the owner holds, as the card index counts them. */
  cardCount: number;
}

export interface HeldBappsInput {
  /** Lower-case address. */
  owner: string;
  /** Only contracts on these chains (the configured ones). */
  chains: string[];
}

/**
 * The card contracts of nft_contracts that `owner` holds cards of, by nft_id ascending, after
 * `afterNftId`: one keyset page of at most `limit` and whether more follow. Contracts the card index
 * follows without being ours are not in nft_contracts and so never listed.
 */
export async function listHeldBapps(
  db: Db,
  input: HeldBappsInput & { afterNftId: number | undefined; limit: number },
): Promise<{ bapps: HeldBapp[]; more: boolean }> {
  if (input.chains.length === 0) return { bapps: [], more: false };
  let query = heldBapps(db, input)
    .innerJoin('partners as p', 'p.id', 'c.partner_id')
    .select(['c.id as nftId', 'c.chain as chain', 'h.contract as contract', 'p.service_name as serviceName', 'h.card_count as cardCount']);
  if (input.afterNftId !== undefined) query = query.where('c.id', '>', input.afterNftId);
  const rows = await query.orderBy('c.id').limit(input.limit + 1).execute();
  const bapps = rows.slice(0, input.limit).map((row) => ({
    nftId: Number(row.nftId),
    chain: row.chain,
    contract: row.contract as Address,
    serviceName: row.serviceName,
    cardCount: Number(row.cardCount),
  }));
  return { bapps, more: rows.length > input.limit };
}

/** How many of the contracts listHeldBapps lists come at or before `nftId`: where a page after it starts. */
export async function countHeldBappsThrough(db: Db, input: HeldBappsInput & { nftId: number }): Promise<number> {
  if (input.chains.length === 0) return 0;
  const row = await heldBapps(db, input)
    .where('c.id', '<=', input.nftId)
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

function heldBapps(db: Db, input: HeldBappsInput) {
  return db
    .selectFrom('nft_contracts as c')
    .innerJoin('indexed_card_holdings as h', (join) => join.onRef('h.chain', '=', 'c.chain').onRef('h.contract', '=', 'c.address'))
    .where('h.owner', '=', input.owner)
    .where('h.card_count', '>', 0)
    .where('c.chain', 'in', input.chains);
}
