import type { Static } from 'typebox';
import { decodeFunctionData, type Address } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import type { Logger } from 'pino';
import type { Store } from '../../store/database.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { CardIndex } from '../../card-index/index.ts';
import { catchUpWithChain } from '../../cards/index-freshness.ts';
import type { UserRow } from '../../store/schema.ts';
import type { Action } from '../../a2a/requests/actions.ts';
import { findMintedCardDesign } from '../../cards/metadata/designs.ts';
import { describeRequest } from '../request-view.ts';
import { listCardSendsBy, listCardTransfersOf, listMemberRequests } from './store.ts';
import type { ActivityAnswer, ActivityCardTransfer, ActivityRequest } from './schema.ts';

/** How many requests and how many card transfers the activity list shows. */
export const ACTIVITY_LIMIT = 50;

/**
 * The member's recent App2App requests and card transfers, newest first. Transfers come from the
 * card index (mined) and, for the member's own sends, from the outbox: a send shows as pending
 * before it is mined, and as failed when it reverted.
 */
export async function listActivity(
  deps: { store: Store; chains: ChainRegistry; cardIndex: CardIndex; log: Logger },
  member: Pick<UserRow, 'id' | 'main_address'>,
): Promise<Static<typeof ActivityAnswer>> {
  const db = deps.store.db;
  await Promise.all(deps.chains.all().map((chain) => catchUpWithChain(deps, chain.name)));
  const address = member.main_address.toLowerCase();
  const [requestRows, transferRows, sendRows] = await Promise.all([
    listMemberRequests(db, member.id, ACTIVITY_LIMIT),
    listCardTransfersOf(db, address, ACTIVITY_LIMIT),
    listCardSendsBy(db, address, ACTIVITY_LIMIT),
  ]);

  const requests = requestRows.map((row): Static<typeof ActivityRequest> => {
    const outcome = row.result ? (JSON.parse(row.result) as { result?: { tx_hash?: unknown } }) : undefined;
    const txHash = outcome?.result?.tx_hash;
    return {
      request_key: row.request_key,
      type: row.type,
      chain: row.chain,
      status: row.status,
      bapp_name: row.bapp_name,
      summary: describeRequest(row, JSON.parse(row.action) as Action, address as Address).summary,
      created_at: Number(row.created_at),
      finished_at: row.finished_at === null ? null : Number(row.finished_at),
      ...(typeof txHash === 'string' ? { tx_hash: txHash } : {}),
      ...(row.error_code !== null ? { error: { code: row.error_code, message: row.error_message ?? '' } } : {}),
    };
  });

  const transfers: Array<Omit<Static<typeof ActivityCardTransfer>, 'card_name'>> = transferRows.map((row) => {
    const sent = row.from_address === address;
    return {
      chain: row.chain,
      contract: row.contract,
      nft_id: row.nft_id === null ? null : Number(row.nft_id),
      card_id: Number(row.token_id),
      direction: sent ? 'sent' : 'received',
      counterparty: sent ? row.to_address : row.from_address,
      tx_hash: row.tx_hash,
      state: 'mined',
      time: Number(row.block_time),
    };
  });
  const indexed = new Set(transferRows.map((row) => row.tx_hash));
  for (const row of sendRows) {
    if (indexed.has(row.tx_hash) || !row.to_address) continue;
    const call = decodeFunctionData({ abi: cardNftAbi, data: row.data as `0x${string}` });
    if (call.functionName !== 'transferFrom') continue;
    const [, to, tokenId] = call.args as readonly [Address, Address, bigint];
    transfers.push({
      chain: row.chain,
      contract: row.to_address,
      nft_id: row.nft_id === null ? null : Number(row.nft_id),
      card_id: Number(tokenId),
      direction: 'sent',
      counterparty: to.toLowerCase(),
      tx_hash: row.tx_hash,
      state: row.status === 'signed' ? 'pending' : row.status === 'mined' && row.receipt_status === 'success' ? 'mined' : 'failed',
      time: Math.floor(Number(row.created_ms) / 1000),
    });
  }
  transfers.sort((a, b) => b.time - a.time);

  const card_transfers = await Promise.all(
    transfers.slice(0, ACTIVITY_LIMIT).map(async (transfer) => {
      const design = await findMintedCardDesign(deps, { chain: transfer.chain, address: transfer.contract }, transfer.card_id);
      return { ...transfer, card_name: design?.metadata.name ?? null };
    }),
  );
  return { requests, card_transfers };
}
