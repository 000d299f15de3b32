import { numberToHex, toEventSelector, type Address, type Hex, type PublicClient } from 'viem';

/** topic0 of the ERC-721 (and ERC-20) Transfer event. */
export const TRANSFER_TOPIC = toEventSelector('Transfer(address,address,uint256)');

/** One ERC-721 Transfer log, decoded. Addresses are lower-case. */
export interface CardTransfer {
  contract: string;
  tokenId: number;
  from: string;
  to: string;
  txHash: string;
  blockNumber: number;
  logIndex: number;
  /** Epoch seconds of the block. */
  blockTime: number;
}

export type TransferRange =
  | { status: 'fetched'; transfers: CardTransfer[]; toBlockHash: Hex; skippedTokenIds: number }
  /** The chain changed while the range was read (a reorg, or a node that lost blocks): read nothing, check for a fork. */
  | { status: 'unstable' };

/** Addresses per eth_getLogs call: nodes and providers cap the filter size. */
const ADDRESSES_PER_CALL = 200;

/** Headers fetched at once for the block times of a range, when the node's logs lack them. */
const HEADERS_PER_BATCH = 100;

/**
 * The Transfer logs of `contracts` in [fromBlock, toBlock], in chain order, read so that they all
 * come from the chain the index already holds: fromBlock's parent must be the block the cursor
 * stands on (`parentHash`, when known), the hash of toBlock is read before and after the logs and
 * must not change, and every log and header must agree with them. ERC-20 Transfers (3 topics) are
 * ignored; ids above 2^53 - 1 are skipped and counted (the API's card_id is a JSON number).
 */
export async function fetchTransferRange(
  client: PublicClient,
  input: { contracts: string[]; fromBlock: number; toBlock: number; parentHash: string | null },
): Promise<TransferRange> {
  const [first, before] = await Promise.all([blockAt(client, input.fromBlock), blockHashAt(client, input.toBlock)]);
  if (!first || !before) return { status: 'unstable' };
  if (input.parentHash !== null && first.parentHash !== input.parentHash) return { status: 'unstable' };
  const calls: Array<Promise<RpcTransferLog[]>> = [];
  for (let start = 0; start < input.contracts.length; start += ADDRESSES_PER_CALL) {
    calls.push(
      client.request({
        method: 'eth_getLogs',
        params: [
          {
            address: input.contracts.slice(start, start + ADDRESSES_PER_CALL) as Address[],
            topics: [TRANSFER_TOPIC],
            fromBlock: numberToHex(input.fromBlock),
            toBlock: numberToHex(input.toBlock),
          },
        ],
      }) as Promise<RpcTransferLog[]>,
    );
  }
  const logs = (await Promise.all(calls)).flat().filter((log) => !log.removed && log.topics.length === 4);

  // Block times: from the logs when the node includes them, otherwise from the headers.
  const headerHashes = new Map<number, { hash: Hex; timestamp: number }>();
  const missing = [...new Set(logs.filter((log) => log.blockTimestamp == null).map((log) => Number(log.blockNumber)))];
  for (let start = 0; start < missing.length; start += HEADERS_PER_BATCH) {
    const numbers = missing.slice(start, start + HEADERS_PER_BATCH);
    const headers = await Promise.all(numbers.map((number) => blockAt(client, number)));
    for (const [index, number] of numbers.entries()) {
      const header = headers[index];
      if (!header?.hash) return { status: 'unstable' };
      headerHashes.set(number, { hash: header.hash, timestamp: Number(header.timestamp) });
    }
  }

  let skippedTokenIds = 0;
  const transfers: CardTransfer[] = [];
  for (const log of logs) {
    const blockNumber = Number(log.blockNumber);
    const header = headerHashes.get(blockNumber);
    if (
      (header && header.hash !== log.blockHash) ||
      (blockNumber === input.toBlock && log.blockHash !== before) ||
      (blockNumber === input.fromBlock && log.blockHash !== first.hash)
    ) {
      return { status: 'unstable' };
    }
    const tokenId = BigInt(log.topics[3]!);
    if (tokenId > BigInt(Number.MAX_SAFE_INTEGER)) {
      skippedTokenIds += 1;
      continue;
    }
    transfers.push({
      contract: log.address.toLowerCase(),
      tokenId: Number(tokenId),
      from: topicAddress(log.topics[1]!),
      to: topicAddress(log.topics[2]!),
      txHash: log.transactionHash.toLowerCase(),
      blockNumber,
      logIndex: Number(log.logIndex),
      blockTime: header ? header.timestamp : Number(log.blockTimestamp),
    });
  }
  const after = await blockHashAt(client, input.toBlock);
  if (after !== before) return { status: 'unstable' };
  transfers.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  return { status: 'fetched', transfers, toBlockHash: before, skippedTokenIds };
}

/** Hash of block `number` as the node sees it now; undefined when it has no such block. */
export async function blockHashAt(client: PublicClient, number: number): Promise<Hex | undefined> {
  return (await blockAt(client, number))?.hash ?? undefined;
}

/** Header of block `number`; undefined when the node has no such block (other errors are thrown). */
async function blockAt(client: PublicClient, number: number) {
  try {
    return await client.getBlock({ blockNumber: BigInt(number) });
  } catch (error) {
    if ((error as Error).name === 'BlockNotFoundError') return undefined;
    throw error;
  }
}

interface RpcTransferLog {
  address: Address;
  topics: Hex[];
  blockNumber: Hex;
  blockHash: Hex;
  transactionHash: Hex;
  logIndex: Hex;
  removed?: boolean;
  blockTimestamp?: Hex | null;
}

function topicAddress(topic: Hex): string {
  return `0x${topic.slice(-40)}`.toLowerCase();
}
