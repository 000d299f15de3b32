/**
 * The chaos run's final check, against the chain: every answered operation happened exactly once,
 * no account is left with a nonce gap, the card index equals the chain, mint counts equal the cards
 * minted.
 */
import type { Address, Hex, PublicClient } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import type { Services } from '../../services.ts';
import { ABANDONED_BATCH_SECONDS, recoverMintBatches } from '../../cards/mint/recovery.ts';
import { sleep, type ChaosMember, type ChaosPartner } from './load.ts';
import { BURNED, type CardState, type LoadModel, type Timeline } from './model.ts';

export interface Verification {
  lost: number;
  duplicated: number;
  /** Every discrepancy found, one line each (lost and duplicated ones included). */
  discrepancies: string[];
  /** Every list (A13, A18, B4) showed each card where the chain's ownerOf has it. */
  indexEqualsChain: boolean;
  cardsOnChain: number;
  accountsChecked: number;
  settleSeconds: number;
}

const SETTLE_TIMEOUT_MS = 120_000;
const LISTS_TIMEOUT_MS = 30_000;

export async function verifyAgainstChain(options: {
  /** Opened on the run's store and chain; closed here. */
  services: Services;
  model: LoadModel;
  partners: ChaosPartner[];
  members: ChaosMember[];
  escrow: Address;
  timeline: Timeline;
  baseUrls: () => string[];
  stopInstances: () => Promise<void>;
  log: (line: string) => void;
}): Promise<Verification> {
  const { model, partners, members, escrow } = options;
  const discrepancies: string[] = [];
  let lost = 0;
  let duplicated = 0;
  const services = options.services;
  try {
    const settleStarted = Date.now();
    await settle(services, options.log);
    const settleSeconds = (Date.now() - settleStarted) / 1000;
    discrepancies.push(...(await unsettled(services)));
    const client = services.chains.get('main').client as PublicClient;

    // The chain's owners of every card of every partner contract.
    const owners = new Map<string, string>();
    let cardsOnChain = 0;
    for (const [index, partner] of partners.entries()) {
      const next = Number(await client.readContract({ address: partner.contract, abi: cardNftAbi, functionName: 'nextTokenId' }));
      cardsOnChain += next - 1;
      for (let id = 1; id < next; id++) {
        const owner = await client
          .readContract({ address: partner.contract, abi: cardNftAbi, functionName: 'ownerOf', args: [BigInt(id)] })
          .then((address) => address.toLowerCase(), () => BURNED);
        owners.set(`${index}:${id}`, owner);
      }
    }

    for (const [key, card] of model.cards) {
      const actual = owners.get(key);
      if (actual !== undefined && card.possible.has(actual)) continue;
      lost += 1;
      discrepancies.push(`lost: card ${key} is ${actual ?? 'not minted'} on chain; expected ${[...card.possible].join(' or ')}`);
      discrepancies.push(...(await describeCard(services, client, card, partners[card.partner]!.contract, options.timeline)).map((line) => `    ${line}`));
    }
    for (const [address, mint] of model.freshMintRecipients) {
      const held = Number(await client.readContract({ address: partners[mint.partner]!.contract, abi: cardNftAbi, functionName: 'balanceOf', args: [address] }));
      if (held > 1) {
        duplicated += 1;
        discrepancies.push(`duplicated: ${address} holds ${held} cards of one mint`);
      } else if (held === 0 && mint.answered) {
        lost += 1;
        discrepancies.push(`lost: ${address} holds no card of an answered mint`);
      }
    }
    for (const coin of model.coins) {
      const balance = await client.getBalance({ address: coin.address });
      if (balance === coin.wei || (balance === 0n && !coin.certain)) continue;
      if (balance > coin.wei) duplicated += 1;
      else lost += 1;
      discrepancies.push(`${balance > coin.wei ? 'duplicated' : 'lost'}: ${coin.address} holds ${balance} wei; sent ${coin.wei}`);
    }

    // No nonce gap: every account the service sent from has nothing pending on the node.
    const db = services.store.db;
    const senders = await db.selectFrom('outbox_transactions').select('from_address').distinct().execute();
    for (const { from_address: address } of senders) {
      const [latest, pending] = await Promise.all([
        client.getTransactionCount({ address: address as Address, blockTag: 'latest' }),
        client.getTransactionCount({ address: address as Address, blockTag: 'pending' }),
      ]);
      if (latest !== pending) discrepancies.push(`nonce gap: ${address} latest ${latest}, pending ${pending}`);
    }

    discrepancies.push(...(await staleReceipts(services, client)));

    const lists = await compareLists(options, owners);
    discrepancies.push(...lists.differences);
    // A card a list shows wrongly: what was done with it, and what the index applied.
    for (const key of lists.cards) {
      const card = model.cards.get(key);
      if (!card) continue;
      discrepancies.push(`listed wrongly: card ${key}, on chain ${owners.get(key) ?? 'not minted'}`);
      discrepancies.push(...(await describeCard(services, client, card, partners[card.partner]!.contract, options.timeline)).map((line) => `    ${line}`));
    }
    await options.stopInstances();

    // Mint counts: what a call left unsigned is given back as the recovery pass would, 10 minutes on.
    await recoverMintBatches(services, new Date(Date.now() + (ABANDONED_BATCH_SECONDS + 1) * 1000));
    const open = await db.selectFrom('card_mint_batches').select('id').where('status', 'not in', ['minted', 'failed']).execute();
    if (open.length > 0) discrepancies.push(`mint batches not settled: ${open.length}`);
    for (const [index, partner] of partners.entries()) {
      const row = await db.selectFrom('partners').select(['id', 'mint_count']).where('email', '=', partner.email).executeTakeFirstOrThrow();
      const batches = await db.selectFrom('card_mint_batches').select(['card_count']).where('partner_id', '=', row.id).where('status', '=', 'minted').execute();
      const minted = batches.reduce((sum, batch) => sum + Number(batch.card_count), 0);
      const onChain = [...owners.keys()].filter((key) => key.startsWith(`${index}:`)).length;
      if (Number(row.mint_count) !== minted || minted !== onChain) {
        discrepancies.push(`mint count of partner ${index}: mint_count ${row.mint_count}, minted batches ${minted} cards, on chain ${onChain}`);
      }
    }
    return { lost, duplicated, discrepancies, indexEqualsChain: lists.differences.length === 0, cardsOnChain, accountsChecked: senders.length, settleSeconds };
  } finally {
    await services.close();
  }
}

/** Waits until the outbox has mined everything (the instances replay what the kills left) and mint batches are settled. */
async function settle(services: Services, log: (line: string) => void): Promise<void> {
  const db = services.store.db;
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    // `included`: mined, its block not yet confirmed (chains with confirmations above 0).
    const unmined = await db.selectFrom('outbox_transactions').select('id').where('status', 'in', ['signed', 'included']).execute();
    const submitted = await db.selectFrom('card_mint_batches').select('id').where('status', '=', 'submitted').execute();
    if (unmined.length === 0 && submitted.length === 0) return;
    if (Date.now() > deadline) {
      log(`settle: gave up with ${unmined.length} transactions unmined, ${submitted.length} mint batches submitted`);
      return;
    }
    // A batch whose recorded receipt the node lost fails to settle until the outbox replays it.
    await recoverMintBatches(services).catch(() => {});
    await sleep(500);
  }
}

/** Transactions the outbox still has to mine after settling (each account's lowest nonce): a gap the service never filled. */
async function unsettled(services: Services): Promise<string[]> {
  const rows = await services.store.db
    .selectFrom('outbox_transactions')
    .select(['from_address', 'status'])
    .select((eb) => [eb.fn.min('nonce').as('lowest'), eb.fn.countAll().as('count')])
    .where('status', 'in', ['signed', 'included'])
    .groupBy(['from_address', 'status'])
    .execute();
  return rows.map((row) => `unmined: ${row.count} transaction(s) of ${row.from_address} still ${row.status} after settling, from nonce ${row.lowest}`);
}

/**
 * Every receipt the outbox recorded against the chain: the transaction is there, in the block
 * recorded (a reorg that moved or dropped it must have been noticed, or A20 and B3 answer from a
 * block that is gone).
 */
async function staleReceipts(services: Services, client: PublicClient): Promise<string[]> {
  const rows = await services.store.db
    .selectFrom('outbox_transactions')
    .select(['id', 'tx_hash', 'status', 'block_number', 'block_hash'])
    .where('block_hash', 'is not', null)
    .execute();
  const found: string[] = [];
  // A node may still answer for a block above its head (anvil after a reorg): such a receipt does not count.
  const head = await client.getBlockNumber({ cacheTime: 0 });
  for (let start = 0; start < rows.length; start += 20) {
    const chunk = rows.slice(start, start + 20);
    const receipts = await Promise.all(chunk.map((row) => client.getTransactionReceipt({ hash: row.tx_hash as Hex }).catch(() => undefined)));
    for (const [index, row] of chunk.entries()) {
      const receipt = receipts[index];
      if (receipt && receipt.blockNumber > head) {
        found.push(`stale receipt: outbox ${row.id} (${row.status}) recorded ${row.tx_hash} in block ${row.block_number}; the node answers a receipt in block ${receipt.blockNumber}, above its head ${head}`);
        continue;
      }
      if (receipt?.blockHash.toLowerCase() === row.block_hash!.toLowerCase()) continue;
      found.push(
        `stale receipt: outbox ${row.id} (${row.status}) recorded ${row.tx_hash} in block ${row.block_number} ${row.block_hash}; ` +
          (receipt ? `the chain has it in block ${receipt.blockNumber} ${receipt.blockHash}` : 'the chain has no receipt of it'),
      );
    }
  }
  return found;
}

/** The service's lists (A13, A18, B4) against the chain's owners, asked until they agree (the card index follows the chain). */
async function compareLists(
  options: { partners: ChaosPartner[]; members: ChaosMember[]; escrow: Address; baseUrls: () => string[] },
  owners: Map<string, string>,
): Promise<{ differences: string[]; cards: Set<string> }> {
  const deadline = Date.now() + LISTS_TIMEOUT_MS;
  for (;;) {
    const differences: string[] = [];
    const cards = new Set<string>();
    const baseUrl = options.baseUrls()[0];
    if (!baseUrl) return { differences: ['no instance running for the list check'], cards };
    for (const [index, partner] of options.partners.entries()) {
      const held = (owner: string) => [...owners].filter(([key, value]) => key.startsWith(`${index}:`) && value === owner).map(([key]) => Number(key.split(':')[1])).sort((a, b) => a - b);
      const auth = partner.token!;
      const lists: Array<[string, string, number[]]> = [
        [`A13 partner ${index}`, `/v2/wallet/nft/${partner.nftId}?isAll=true`, held(partner.address)],
        [`A18 partner ${index}`, `/v2/escrow?contract_address=${partner.contract}`, held(options.escrow)],
        ...options.members.map((member, m): [string, string, number[]] => [`B4 member ${m} contract ${index}`, `/v2/a2a/cards?sca=${partner.contract}&eoa=${member.address}`, held(member.address)]),
      ];
      for (const [name, path, expected] of lists) {
        const listed = await readAllPages(baseUrl, path, auth).catch((error: Error) => [`error ${error.message}`]);
        const actual = listed.map(Number).sort((a, b) => a - b);
        if (JSON.stringify(actual) === JSON.stringify(expected)) continue;
        differences.push(`index: ${name} lists [${listed.join(',')}], chain has [${expected.join(',')}]`);
        for (const id of [...actual.filter((id) => !expected.includes(id)), ...expected.filter((id) => !actual.includes(id))]) cards.add(`${index}:${id}`);
      }
    }
    if (differences.length === 0 || Date.now() > deadline) return { differences, cards };
    await sleep(1_000);
  }
}

async function readAllPages(baseUrl: string, path: string, auth: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '';
  for (let page = 0; page < 1_000; page++) {
    const url = `${baseUrl}${path}${cursor ? `${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await fetch(url, { headers: { authorization: auth }, signal: AbortSignal.timeout(30_000) });
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { cards: Array<{ card_id: number | string }>; next_cursor?: string };
    ids.push(...body.cards.map((card) => String(card.card_id)));
    cursor = body.next_cursor ?? '';
    if (!cursor || path.includes('isAll=true')) return ids;
  }
  return ids;
}

/**
 * What is known of a card that is lost or listed wrongly, to tell at once how: every call the load made on it
 * (instance, times, answer) with the starts and kills around it; for each transaction an answer
 * named, the outbox rows of its hash and of its account and nonce, and what the chain holds for
 * them; and the card index's transfers of the card.
 */
async function describeCard(services: Services, client: PublicClient, card: CardState, contract: Address, timeline: Timeline): Promise<string[]> {
  const db = services.store.db;
  const time = (at: number) => new Date(at).toISOString().slice(11, 23);
  const lines: string[] = [];
  for (const event of card.history) {
    lines.push(`${event.kind} -> ${event.to}: sent ${time(event.sentAt)}, ${event.outcome} ${time(event.doneAt)} by ${event.instance}: ${event.answer}`);
    for (const { at, line } of timeline) if (at >= event.sentAt - 5_000 && at <= event.doneAt + 5_000) lines.push(`  ${time(at)} ${line}`);
    if (!event.hash) continue;
    const row = await db.selectFrom('outbox_transactions').selectAll().where('tx_hash', '=', event.hash.toLowerCase()).executeTakeFirst();
    if (!row) {
      lines.push(`  outbox: no row of ${event.hash}`);
      continue;
    }
    const sameNonce = await db.selectFrom('outbox_transactions').selectAll().where('chain', '=', row.chain).where('from_address', '=', row.from_address).where('nonce', '=', row.nonce).execute();
    for (const other of sameNonce) {
      const receipt = await client.getTransactionReceipt({ hash: other.tx_hash as Hex }).catch(() => undefined);
      lines.push(
        `  outbox ${other.id === row.id ? 'row' : 'OTHER row, same nonce'} ${other.id} key ${other.idempotency_key}: ${other.from_address} nonce ${other.nonce}, ${other.status}` +
          ` block ${other.block_number ?? '-'} ${other.block_hash ?? ''}, created ${time(Number(other.created_ms))}, updated ${time(Number(other.updated_ms))}, attempts ${other.broadcast_attempts}` +
          `${other.error ? `, error ${other.error.slice(0, 200)}` : ''}; chain: ${receipt ? `receipt ${receipt.status} in block ${receipt.blockNumber} ${receipt.blockHash}` : 'no receipt'} of ${other.tx_hash}`,
      );
    }
    const [latest, pending, head] = await Promise.all([
      client.getTransactionCount({ address: row.from_address as Address, blockTag: 'latest' }),
      client.getTransactionCount({ address: row.from_address as Address, blockTag: 'pending' }),
      client.getBlockNumber({ cacheTime: 0 }),
    ]);
    const next = await db.selectFrom('account_nonces').select('next_nonce').where('chain', '=', row.chain).where('address', '=', row.from_address).executeTakeFirst();
    lines.push(`  account ${row.from_address}: chain nonce latest ${latest}, pending ${pending}; store next_nonce ${next?.next_nonce ?? '-'}; chain head ${head}`);
    if (row.block_number !== null) {
      const block = await client.getBlock({ blockNumber: BigInt(row.block_number) }).catch(() => undefined);
      lines.push(`  chain block ${row.block_number}: ${block ? `${block.hash}, ${block.transactions.length} tx(s): ${block.transactions.join(' ')}` : 'none'}`);
    }
  }
  const transfers = await db
    .selectFrom('indexed_card_transfers')
    .selectAll()
    .where('contract', '=', contract.toLowerCase())
    .where('token_id', '=', card.cardId)
    .orderBy('block_number')
    .execute();
  for (const transfer of transfers) lines.push(`index transfer: block ${transfer.block_number} log ${transfer.log_index} ${transfer.from_address} -> ${transfer.to_address} tx ${transfer.tx_hash}`);
  const indexed = await db.selectFrom('indexed_cards').selectAll().where('contract', '=', contract.toLowerCase()).where('token_id', '=', card.cardId).executeTakeFirst();
  lines.push(`index card: ${indexed ? `owner ${indexed.owner}, last tx ${indexed.last_tx_hash}, updated block ${indexed.updated_block}` : 'none'}`);
  return lines;
}
