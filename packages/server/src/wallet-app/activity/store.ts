import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../../store/database.ts';

/**
 * A position in one of the activity's lists, newest first: the values of its ordering columns of
 * the last row a page showed. The next page reads rows strictly before it.
 */
export type Position = Array<string | number>;

/**
 * `(columns) < (values)` in the list's order, written out so both stores use their indexes the same
 * way; the first column's bound stated on its own too, so a later page starts its index range at
 * its position rather than reading past every newer row.
 */
function before(columns: string[], values: Position | undefined): Expression<SqlBool> {
  if (!values) return sql<SqlBool>`1 = 1`;
  return sql<SqlBool>`${sql.ref(columns[0]!)} <= ${values[0]} and ${strictlyBefore(columns, values)}`;
}

function strictlyBefore(columns: string[], values: Position): Expression<SqlBool> {
  const [column, ...rest] = columns;
  const [value, ...others] = values;
  if (rest.length === 0) return sql<SqlBool>`${sql.ref(column!)} < ${value}`;
  return sql<SqlBool>`(${sql.ref(column!)} < ${value} or (${sql.ref(column!)} = ${value} and ${strictlyBefore(rest, others)}))`;
}

/** The member's App2App requests (those she opened), newest first. */
export async function listMemberRequests(db: Db, userId: string, limit: number, after?: Position) {
  return db
    .selectFrom('a2a_requests')
    .selectAll()
    .where('user_id', '=', userId)
    .where(before(['created_at', 'request_key'], after))
    .orderBy('created_at', 'desc')
    .orderBy('request_key', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Indexed card transfers from or to `address` (lower-case), newest first, with the contract's nft_id
 * and BApp of this service. Each side is read along its own index in the list's order and stops at
 * a page (a transfer to oneself counts as sent); only the two pages are merged and sorted.
 */
export async function listCardTransfersOf(db: Db, address: string, limit: number, after?: Position) {
  const side = (column: 'from_address' | 'to_address') => {
    let page = db
      .selectFrom('indexed_card_transfers')
      .select(['chain', 'contract', 'token_id', 'from_address', 'to_address', 'tx_hash', 'log_index', 'block_time'])
      .where(column, '=', address)
      .where(before(['block_time', 'tx_hash', 'log_index'], after));
    if (column === 'to_address') page = page.where('from_address', '!=', address);
    return db.selectFrom(page.orderBy('block_time', 'desc').orderBy('tx_hash', 'desc').orderBy('log_index', 'desc').limit(limit).as(column)).selectAll();
  };
  return db
    .selectFrom(side('from_address').unionAll(side('to_address')).as('t'))
    .leftJoin('nft_contracts as c', (join) => join.onRef('c.chain', '=', 't.chain').onRef('c.address', '=', 't.contract'))
    .leftJoin('partners as p', 'p.id', 'c.partner_id')
    .select(['t.chain', 't.contract', 't.token_id', 't.from_address', 't.to_address', 't.tx_hash', 't.log_index', 't.block_time', 'c.id as nft_id', 'p.service_name as bapp_name'])
    .orderBy('t.block_time', 'desc')
    .orderBy('t.tx_hash', 'desc')
    .orderBy('t.log_index', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Card sends `address` signed from the wallet app (outbox keys `member-card-send:`) that the index
 * does not show as done: still pending, or failed or reverted. Newest first.
 */
export async function listUnfinishedCardSendsBy(db: Db, address: string, limit: number, after?: Position) {
  return db
    .selectFrom('outbox_transactions as o')
    .leftJoin('nft_contracts as c', (join) => join.onRef('c.chain', '=', 'o.chain').onRef('c.address', '=', 'o.to_address'))
    .leftJoin('partners as p', 'p.id', 'c.partner_id')
    .select(['o.id', 'o.chain', 'o.to_address', 'o.data', 'o.tx_hash', 'o.status', 'o.receipt_status', 'o.created_ms', 'c.id as nft_id', 'p.service_name as bapp_name'])
    .where('o.from_address', '=', address)
    // The condition of the index that holds only these rows (migration 028), as literals: a store
    // uses a partial index only for a query whose condition is its own.
    .where(sql<SqlBool>`o.idempotency_key like '%card-send:%' and (o.status <> 'mined' or o.receipt_status <> 'success')`)
    .where(before(['o.created_ms', 'o.id'], after))
    .orderBy('o.created_ms', 'desc')
    .orderBy('o.id', 'desc')
    .limit(limit)
    .execute();
}

/** The member's coin and token sends and the test coins sent to her, with their transaction's state, newest first. */
export async function listMemberTransfers(db: Db, userId: string, limit: number, after?: Position) {
  return db
    .selectFrom('member_transfers as m')
    .leftJoin('outbox_transactions as o', 'o.idempotency_key', 'm.outbox_key')
    .select(['m.id', 'm.kind', 'm.chain', 'm.token', 'm.to_address', 'm.units', 'm.created_ms', 'o.tx_hash', 'o.status', 'o.receipt_status', 'o.from_address'])
    .where('m.user_id', '=', userId)
    .where(before(['m.created_ms', 'm.id'], after))
    .orderBy('m.created_ms', 'desc')
    .orderBy('m.id', 'desc')
    .limit(limit)
    .execute();
}

/** Escrow claim links the member claimed, newest first, with the card's BApp. */
export async function listMemberClaims(db: Db, userId: string, limit: number, after?: Position) {
  return db
    .selectFrom('escrow_claims as e')
    .leftJoin('partners as p', 'p.id', 'e.partner_id')
    .select(['e.id', 'e.chain', 'e.nft_id', 'e.contract', 'e.token_id', 'e.claimed_to', 'e.escrow_address', 'e.updated_ms', 'p.service_name as bapp_name'])
    .where('e.claimed_by', '=', userId)
    .where(before(['e.updated_ms', 'e.id'], after))
    .orderBy('e.updated_ms', 'desc')
    .orderBy('e.id', 'desc')
    .limit(limit)
    .execute();
}

/** Who the addresses (lower-case) are, as far as this service knows: members, people whose wallet it keeps, BApps, escrow contracts. */
export async function namesOf(db: Db, addresses: string[]): Promise<Map<string, { name: string; kind: 'member' | 'person' | 'bapp' | 'claim_link' | 'operator' }>> {
  const names = new Map<string, { name: string; kind: 'member' | 'person' | 'bapp' | 'claim_link' | 'operator' }>();
  if (addresses.length === 0) return names;
  // Addresses are stored lower-case, so they are matched as they are, along their indexes.
  const [members, people, partners, escrows] = await Promise.all([
    db.selectFrom('users').select(['main_address', 'name']).where('main_address', 'in', addresses).execute(),
    db.selectFrom('reserved_wallets').select(['address', 'name']).where('address', 'in', addresses).execute(),
    db.selectFrom('partners').select(['main_address', 'service_name']).where('main_address', 'in', addresses).execute(),
    // Each chain's escrow contract, deployed once (operator/escrow.ts): not every claim link's row.
    db.selectFrom('service_settings').select('value').where('key', 'like', 'escrow_address:%').execute(),
  ]);
  const asked = new Set(addresses);
  for (const { value } of escrows) if (asked.has(value.toLowerCase())) names.set(value.toLowerCase(), { name: 'a claim link', kind: 'claim_link' });
  for (const row of partners) names.set(row.main_address.toLowerCase(), { name: row.service_name, kind: 'bapp' });
  for (const row of people) names.set(row.address, { name: row.name, kind: 'person' });
  for (const row of members) names.set(row.main_address.toLowerCase(), { name: row.name, kind: 'member' });
  return names;
}
