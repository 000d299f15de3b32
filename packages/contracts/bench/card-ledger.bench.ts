/**
 * The card ledgers at a million cards. Run: node --import tsx packages/contracts/bench/card-ledger.bench.ts
 * (or `npm run bench -- card-ledger` from the repository root).
 *
 * On one anvil node (blocks of 1 billion gas), for CardNFT (balances counted at mint) and
 * LeanCardNFT (balances counted from the batches): BATCHES real `mintBatch` calls of BATCH_SIZE
 * recipients holding nothing, each batch in ascending order as the service sends them. To build
 * the state fast, the calls come from a small contract that owns the card contract and makes
 * MINTS_PER_TRANSACTION of them per transaction, generating the recipients itself (recipient i of
 * batch b: i in the top byte, then 19 bytes of keccak256(b, i)); the state is what the same calls
 * from the partner's account produce. Ownership then passes to the partner's account.
 *
 * Then, with eth_estimateGas (a transaction's gas, the 21,000 of any transaction and the calldata
 * included): `balanceOf` of a holder and of an address holding nothing, `ownerOf` of cards at the
 * start and end of the collection and of 1,024 consecutive cards in its middle (the largest is the figure). Then a
 * mint of 100 more fresh recipients from the partner's account (receipt gas / 100), and a card's
 * first move by its holder to an address holding nothing, and `ownerOf` of every card of 100 mints of
 * 3 from the partner's account (about 85 batches starting in each of their buckets); beside them PlainCardNFT (OpenZeppelin
 * `_mint`), for which neither depends on the number of cards. Lifetime gas: mint (per card) plus
 * first move. Targets: balanceOf <= 200,000, ownerOf <= 40,000, mint <= 12,000 per card.
 * Prints; asserts nothing.
 *
 * Env: CARD_LEDGER_BATCHES (10000), CARD_LEDGER_BATCH_SIZE (100), CARD_LEDGER_MINTS_PER_TRANSACTION (50),
 * CARD_LEDGER_LEDGERS (CardNFT,LeanCardNFT).
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import {
  type Abi,
  type Address,
  type Hex,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeAbiParameters,
  getAddress,
  http,
  keccak256,
  parseEther,
  toHex,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { cardNftAbi, cardNftBytecode, leanCardNftBytecode, plainCardNftBytecode } from '../src/index.ts';
import { TEST_MNEMONIC, freshAddresses, receiptOf, startAnvil } from '../src/testing/anvil.ts';

const BATCHES = Number(process.env.CARD_LEDGER_BATCHES ?? 10_000);
const BATCH_SIZE = Number(process.env.CARD_LEDGER_BATCH_SIZE ?? 100);
const MINTS_PER_TRANSACTION = Number(process.env.CARD_LEDGER_MINTS_PER_TRANSACTION ?? 50);
const LEDGERS = (process.env.CARD_LEDGER_LEDGERS ?? 'CardNFT,LeanCardNFT').split(',');
/** Mints of 3 cards made afterwards: many batches starting in one 256-id bucket. */
const SMALL_BATCHES = 100;

const TARGETS = { balanceOf: 200_000, ownerOf: 40_000, mintPerCard: 12_000 };

/** Owns a card contract while the bench fills it: real `mintBatch` calls, many per transaction. */
const BULK_MINTER_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

interface ICardContract {
    function mintBatch(address[] calldata to, bool sendable) external returns (uint256);
    function transferOwnership(address newOwner) external;
}

contract BulkMinter {
    uint256 private constant LOW_BYTES = (uint256(1) << 152) - 1;

    function mint(ICardContract nft, uint256 firstBatch, uint256 batches, uint256 size) external {
        address[] memory to = new address[](size);
        for (uint256 b = firstBatch; b < firstBatch + batches; ++b) {
            for (uint256 i; i < size; ++i) {
                to[i] = address(uint160((i << 152) | (uint256(keccak256(abi.encode(b, i))) & LOW_BYTES)));
            }
            nft.mintBatch(to, true);
        }
    }

    function handOver(ICardContract nft, address newOwner) external {
        nft.transferOwnership(newOwner);
    }
}
`;

const bulkMinterAbi = [
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'nft', type: 'address' },
      { name: 'firstBatch', type: 'uint256' },
      { name: 'batches', type: 'uint256' },
      { name: 'size', type: 'uint256' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'handOver',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'nft', type: 'address' },
      { name: 'newOwner', type: 'address' },
    ],
    outputs: [],
  },
] as const;

/** The address BulkMinter gives recipient `i` of batch `b`. */
function recipientOf(b: number, i: number): Address {
  const hash = BigInt(keccak256(encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [BigInt(b), BigInt(i)])));
  return getAddress(toHex((BigInt(i) << 152n) | (hash & ((1n << 152n) - 1n)), { size: 20 }));
}

function compileBulkMinter(): Hex {
  const solc = createRequire(import.meta.url)('solc');
  const input = {
    language: 'Solidity',
    sources: { 'BulkMinter.sol': { content: BULK_MINTER_SOURCE } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  return `0x${output.contracts['BulkMinter.sol'].BulkMinter.evm.bytecode.object}`;
}

const figure = (value: number) => Math.round(value).toLocaleString('en');
const verdict = (value: number, target: number) => `${figure(value)} (target <= ${figure(target)}: ${value <= target ? 'met' : 'NOT met'})`;

async function main() {
  console.log(`card-ledger: ${BATCHES.toLocaleString('en')} batches of ${BATCH_SIZE} per ledger; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  // Only the latest states are kept: the history of a million cards would hold gigabytes.
  const anvil = await startAnvil({ args: ['--gas-limit', '1000000000', '--prune-history', '4'] });
  try {
    const transport = http(anvil.url, { timeout: 600_000 });
    const publicClient = createPublicClient({ chain: anvil.chain, transport, pollingInterval: 20 });
    const testClient = createTestClient({ chain: anvil.chain, transport, mode: 'anvil' });
    const operator = createWalletClient({ chain: anvil.chain, transport, account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 0 }) });
    const partner = createWalletClient({ chain: anvil.chain, transport, account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 1 }) });
    const partnerAddress = partner.account.address;

    const sendAndWait = async (hash: Hex) => {
      const receipt = await receiptOf(publicClient, hash);
      if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
      return receipt;
    };
    const deploy = async (abi: Abi, bytecode: Hex, args: readonly unknown[]) =>
      getAddress((await sendAndWait(await operator.deployContract({ abi, bytecode, args } as any))).contractAddress!);
    const estimate = async (nft: Address, functionName: 'balanceOf' | 'ownerOf', args: readonly unknown[]) =>
      Number(await publicClient.estimateContractGas({ address: nft, abi: cardNftAbi, functionName, args, account: operator.account.address } as any));
    /** Mint of 100 fresh recipients from the partner's account, per card; then the first move of one of its cards. */
    const mintAndMove = async (nft: Address, label: string) => {
      const recipients = freshAddresses(100, `ledger-bench-${label}`).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
      const mint = await sendAndWait(await partner.writeContract({ address: nft, abi: cardNftAbi, functionName: 'mintBatch', args: [recipients, true], gas: 10_000_000n }));
      const first = BigInt(mint.logs[0]!.topics[3]!);
      const holder = recipients[0]!;
      await testClient.setBalance({ address: holder, value: parseEther('1') });
      await testClient.impersonateAccount({ address: holder });
      const [to] = freshAddresses(1, `ledger-bench-${label}-to`);
      const move = await sendAndWait(
        await partner.writeContract({ address: nft, abi: cardNftAbi, functionName: 'transferFrom', args: [holder, to!, first], account: holder, gas: 1_000_000n } as any),
      );
      await testClient.stopImpersonatingAccount({ address: holder });
      return { mintPerCard: Number(mint.gasUsed) / 100, firstMove: Number(move.gasUsed) };
    };

    const started = Date.now();
    const bulkMinter = await deploy([], compileBulkMinter(), []);
    const plain = await deploy(cardNftAbi, plainCardNftBytecode, ['Plain', 'PLAIN', 'https://cards.example/', partnerAddress, '0x0000000000000000000000000000000000000000']);
    const plainFigures = await mintAndMove(plain, 'plain');
    const plainReads = { balanceOf: await estimate(plain, 'balanceOf', [partnerAddress]), ownerOf: await estimate(plain, 'ownerOf', [1n]) };

    const rows: string[] = [];
    for (const name of LEDGERS) {
      const bytecode = name === 'CardNFT' ? cardNftBytecode : name === 'LeanCardNFT' ? leanCardNftBytecode : undefined;
      if (!bytecode) throw new Error(`unknown ledger ${name}`);
      const nft = await deploy(cardNftAbi, bytecode, [name, 'CARD', 'https://cards.example/', bulkMinter, '0x0000000000000000000000000000000000000000']);
      const buildStarted = Date.now();
      let gas = 0n;
      for (let batch = 0; batch < BATCHES; batch += MINTS_PER_TRANSACTION) {
        const batches = Math.min(MINTS_PER_TRANSACTION, BATCHES - batch);
        const hash = await operator.writeContract({
          address: bulkMinter,
          abi: bulkMinterAbi,
          functionName: 'mint',
          args: [nft, BigInt(batch), BigInt(batches), BigInt(BATCH_SIZE)],
          gas: 990_000_000n,
        });
        gas += (await sendAndWait(hash)).gasUsed;
      }
      await sendAndWait(await operator.writeContract({ address: bulkMinter, abi: bulkMinterAbi, functionName: 'handOver', args: [nft, partnerAddress] }));
      const cards = BATCHES * BATCH_SIZE;
      const next = await publicClient.readContract({ address: nft, abi: cardNftAbi, functionName: 'nextTokenId' });
      if (next !== BigInt(cards + 1)) throw new Error(`${name}: ${next - 1n} cards minted, expected ${cards}`);
      console.log(`${name}: ${figure(cards)} cards in ${figure(BATCHES)} batches built in ${((Date.now() - buildStarted) / 1000).toFixed(0)} s (${figure(Number(gas))} gas)`);

      // A holder from the middle of the collection, checked against ownerOf.
      const middleBatch = Math.floor(BATCHES / 2);
      const holder = recipientOf(middleBatch, 50);
      const holderCard = BigInt(middleBatch * BATCH_SIZE + 50 + 1);
      const owner = await publicClient.readContract({ address: nft, abi: cardNftAbi, functionName: 'ownerOf', args: [holderCard] });
      if (owner !== holder) throw new Error(`${name}: ownerOf(${holderCard}) is ${owner}, expected ${holder}`);
      const balance = await publicClient.readContract({ address: nft, abi: cardNftAbi, functionName: 'balanceOf', args: [holder] });
      if (balance !== 1n) throw new Error(`${name}: balanceOf(${holder}) is ${balance}, expected 1`);

      const balanceOf = Math.max(await estimate(nft, 'balanceOf', [holder]), await estimate(nft, 'balanceOf', [freshAddresses(1, 'nobody')[0]!]));
      // Every card of 1,024 in the middle (all positions in buckets and batches), and the edges.
      const middle = Math.floor(cards / 2);
      const probes = [1, 2, 255, 256, 257, cards - 1, cards, ...Array.from({ length: 1_024 }, (_, i) => middle + i)].map(BigInt);
      const ownerOfs: number[] = [];
      for (let i = 0; i < probes.length; i += 64) ownerOfs.push(...(await Promise.all(probes.slice(i, i + 64).map((id) => estimate(nft, 'ownerOf', [id])))));
      const ownerOf = Math.max(...ownerOfs);
      const ownerOfMedian = [...ownerOfs].sort((a, b) => a - b)[Math.floor(ownerOfs.length / 2)]!;
      const { mintPerCard, firstMove } = await mintAndMove(nft, name);
      // Small mints on the same contract: 100 batches of 3, about 85 of them starting in a bucket.
      const smallFirst = (await publicClient.readContract({ address: nft, abi: cardNftAbi, functionName: 'nextTokenId' })) as bigint;
      for (let batch = 0; batch < SMALL_BATCHES; batch += 1) {
        await sendAndWait(await partner.writeContract({ address: nft, abi: cardNftAbi, functionName: 'mintBatch', args: [freshAddresses(3, `ledger-bench-${name}-small-${batch}`), true] }));
      }
      const smallCards = Array.from({ length: SMALL_BATCHES * 3 }, (_, i) => smallFirst + BigInt(i));
      const smallOwnerOfs: number[] = [];
      for (let i = 0; i < smallCards.length; i += 64) smallOwnerOfs.push(...(await Promise.all(smallCards.slice(i, i + 64).map((id) => estimate(nft, 'ownerOf', [id])))));
      rows.push(
        [
          `${name} at ${figure(cards)} cards:`,
          `  balanceOf (largest of a holder and an address holding nothing): ${verdict(balanceOf, TARGETS.balanceOf)}`,
          `  ownerOf (largest of ${probes.length} cards that never moved):        ${verdict(ownerOf, TARGETS.ownerOf)}; median ${figure(ownerOfMedian)}`,
          `  ownerOf (largest of ${smallCards.length} cards of ${SMALL_BATCHES} mints of 3):            ${verdict(Math.max(...smallOwnerOfs), TARGETS.ownerOf)}`,
          `  mint of 100 fresh recipients, per card:                        ${verdict(mintPerCard, TARGETS.mintPerCard)}`,
          `  first move of a batch card:                                    ${figure(firstMove)}`,
          `  lifetime, mint + first move, per card:                         ${figure(mintPerCard + firstMove)} (PlainCardNFT ${figure(plainFigures.mintPerCard + plainFigures.firstMove)}: ${(((mintPerCard + firstMove) / (plainFigures.mintPerCard + plainFigures.firstMove)) * 100).toFixed(0)}%)`,
        ].join('\n'),
      );
    }
    console.log(
      [
        ...rows,
        'PlainCardNFT (OpenZeppelin _mint; its figures do not depend on the number of cards):',
        `  balanceOf ${figure(plainReads.balanceOf)}, ownerOf ${figure(plainReads.ownerOf)}, mint per card ${figure(plainFigures.mintPerCard)}, first move ${figure(plainFigures.firstMove)}`,
        `(gas of eth_estimateGas, the 21,000 of a transaction included; ${((Date.now() - started) / 1000).toFixed(0)} s in all)`,
      ].join('\n'),
    );
  } finally {
    await anvil.stop();
  }
}

await main();
