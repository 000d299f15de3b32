import { zeroAddress, type Address, type Hex } from 'viem';
import type { ChainContext } from '../../chain/chains.ts';
import { erc721Abi } from '../chain/token-contracts.ts';

/** One card an address holds, as the card query shows it. */
export interface OwnedCard {
  cardId: bigint;
  owner: Address;
  /** Who gave it to the owner: the `from` of the transfer, or the minting account for a mint. */
  sender: Address;
  /** Hash of the transaction that minted the card. */
  mintTransactionHash: Hex;
  /** Epoch seconds of the mint. */
  createdAt: number;
  /** Epoch seconds of the transfer that gave it to the owner. */
  updatedAt: number;
}

/**
 * Where the card query reads ownership from. The chain reader below works on any node; a card index
 * fed by Transfer logs replaces it with keyset reads of the store.
 */
/** Cards of `contract` that `owner` holds now, id ascending, ids above `afterCardId`, at most `limit`. */
export interface ListOwnedCardsInput {
  chain: ChainContext;
  contract: Address;
  owner: Address;
  afterCardId: bigint | null;
  limit: number;
}

export interface CardOwnershipReader {
  /** The page of cards, and whether more remain. */
  listOwnedCards(input: ListOwnedCardsInput): Promise<{ cards: OwnedCard[]; hasMore: boolean }>;
}

const transferEvent = erc721Abi.find((item) => item.type === 'event' && item.name === 'Transfer')!;

/**
 * Reads ownership from the chain: the Transfer logs to `owner` name the candidates, ownerOf confirms
 * each one still belongs to it, and the mint logs give the minting transaction and time. It reads
 * the whole log history of the contract, which is fine for the embedded node and small contracts;
 * the indexer is the answer for long histories.
 */
export class ChainCardOwnershipReader implements CardOwnershipReader {
  async listOwnedCards(input: ListOwnedCardsInput): Promise<{ cards: OwnedCard[]; hasMore: boolean }> {
    const client = input.chain.client;
    const received = await client.getLogs({
      address: input.contract,
      event: transferEvent,
      args: { to: input.owner },
      fromBlock: 0n,
      toBlock: 'latest',
    });
    // The latest transfer to the owner per card.
    const latest = new Map<bigint, (typeof received)[number]>();
    for (const log of received) {
      const id = log.args.tokenId!;
      const known = latest.get(id);
      if (!known || log.blockNumber! > known.blockNumber! || (log.blockNumber === known.blockNumber && log.logIndex! > known.logIndex!)) {
        latest.set(id, log);
      }
    }
    const candidates = [...latest.keys()]
      .filter((id) => input.afterCardId === null || id > input.afterCardId)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

    const held: bigint[] = [];
    const owner = input.owner.toLowerCase();
    // Checked in slices, so a long history does not mean one ownerOf per card ever received.
    for (let start = 0; start < candidates.length && held.length <= input.limit; start += input.limit + 1) {
      const slice = candidates.slice(start, start + input.limit + 1);
      const owners = await Promise.all(
        slice.map((id) =>
          client.readContract({ address: input.contract, abi: erc721Abi, functionName: 'ownerOf', args: [id] }).catch(() => undefined),
        ),
      );
      slice.forEach((id, index) => {
        if (owners[index]?.toLowerCase() === owner) held.push(id);
      });
    }
    const page = held.slice(0, input.limit);
    const hasMore = held.length > input.limit;
    if (page.length === 0) return { cards: [], hasMore: false };

    const mints = await client.getLogs({
      address: input.contract,
      event: transferEvent,
      args: { from: zeroAddress, tokenId: page },
      fromBlock: 0n,
      toBlock: 'latest',
    });
    const mintOf = new Map(mints.map((log) => [log.args.tokenId!, log]));
    const blocks = new Set<bigint>();
    for (const id of page) {
      blocks.add(latest.get(id)!.blockNumber!);
      const mint = mintOf.get(id);
      if (mint) blocks.add(mint.blockNumber!);
    }
    const times = new Map<bigint, number>();
    await Promise.all(
      [...blocks].map(async (blockNumber) => {
        const block = await client.getBlock({ blockNumber });
        times.set(blockNumber, Number(block.timestamp));
      }),
    );
    const minters = new Map<Hex, Address>();
    await Promise.all(
      page.map(async (id) => {
        const transfer = latest.get(id)!;
        if (transfer.args.from === zeroAddress && !minters.has(transfer.transactionHash!)) {
          const transaction = await client.getTransaction({ hash: transfer.transactionHash! });
          minters.set(transfer.transactionHash!, transaction.from.toLowerCase() as Address);
        }
      }),
    );

    const cards = page.map((id): OwnedCard => {
      const transfer = latest.get(id)!;
      const mint = mintOf.get(id) ?? transfer;
      const sender = transfer.args.from === zeroAddress ? minters.get(transfer.transactionHash!)! : (transfer.args.from!.toLowerCase() as Address);
      return {
        cardId: id,
        owner: owner as Address,
        sender,
        mintTransactionHash: mint.transactionHash!,
        createdAt: times.get(mint.blockNumber!) ?? 0,
        updatedAt: times.get(transfer.blockNumber!) ?? 0,
      };
    });
    return { cards, hasMore };
  }
}
