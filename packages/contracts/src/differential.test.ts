// Differential test of CardNFT and LeanCardNFT (the two card ledgers) against PlainCardNFT (the
// same card contract on plain OpenZeppelin ERC-721 storage): random sequences of mints (repeated recipients, sorted or not, one card or
// hundreds), transfers, safe transfers, approvals, burns, escrow deposits, claims and cancels, and
// invalid calls, run on the three contracts on one anvil node. Every call must succeed on all with
// the same result and the same events, or revert on all with the same revert data; after every step
// the views of the cards it touched and of every address must agree, and all cards are compared
// every few steps and at the end of each sequence.
//
// CARD_DIFF_RUNS (default 10) sets the number of sequences and CARD_DIFF_SEED the seed (fixed by
// default, so `npm test` runs the same sequences every time); a failure prints the seed and the
// shrunk sequence. The bench `card-differential` runs many more sequences from a random seed.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  type Hex,
  type PublicClient,
  type TestClient,
  type WalletClient,
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeEventLog,
  encodePacked,
  getAddress,
  http,
  keccak256,
  toHex,
  zeroAddress,
  zeroHash,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import {
  cardEscrowAbi,
  cardEscrowBytecode,
  cardNftAbi,
  cardNftBytecode,
  leanCardNftBytecode,
  naiveCardNftAbi,
  naiveCardNftBytecode,
  plainCardNftBytecode,
} from './index.ts';
import { type Anvil, TEST_MNEMONIC, freshAddresses, receiptOf, startAnvil } from './testing/anvil.ts';

const RUNS = Number(process.env.CARD_DIFF_RUNS ?? 10);
const SEED = Number(process.env.CARD_DIFF_SEED ?? 5192);
/** Every this many steps (and at the end) all cards are compared, not only the touched ones. */
const FULL_CHECK_EVERY = 5;
/** Enough for the largest mint generated below (1,428 cards on PlainCardNFT: about 70 million);
 * given so no call is estimated twice. The node's blocks are made large enough for it. */
const GAS_LIMIT = 100_000_000n;

/** Keyed accounts: 0 is the escrow operator, 1 the partner (owner of the card contracts), 2-6 holders. */
const OPERATOR = 0;
const PARTNER = 1;
const KEYED = 7;
const SECRETS = [0, 1, 2, 3].map((i) => keccak256(toHex(`differential-secret-${i}`)));

// ---------------------------------------------------------------------------------------------
// operations, generated with indexes that are resolved against the state when they run

/** Who sends a call about a card: its holder, its approved account, or keyed account `index`. */
type SenderPick = { role: 'holder' } | { role: 'approved' } | { role: 'account'; index: number };

type Operation =
  | { kind: 'mint'; sender: number; recipients: number[]; sorted: boolean; sendable: boolean }
  | { kind: 'bulkMint'; cards: number; start: number }
  | { kind: 'transfer'; method: 'transferFrom' | 'safeTransferFrom' | 'safeTransferFromWithData'; token: number; fromHolder: boolean; from: number; to: number; sender: SenderPick }
  | { kind: 'approve'; token: number; spender: number; sender: SenderPick }
  | { kind: 'approveAll'; sender: number; operator: number; approved: boolean }
  | { kind: 'burn'; token: number; sender: SenderPick }
  | { kind: 'deposit'; sender: SenderPick; tokens: number[]; secrets: number[] }
  | { kind: 'claim'; token: number; secret: number; to: number; byOperator: boolean }
  | { kind: 'cancel'; sender: number; tokens: number[] };

const keyed = fc.integer({ min: 0, max: KEYED - 1 });
/** Index into the address pool (see `pool` below); the last entries are special. */
const poolIndex = fc.integer({ min: 0, max: 11 });
const token = fc.nat();
const senderPick: fc.Arbitrary<SenderPick> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ role: 'holder' as const }) },
  { weight: 2, arbitrary: fc.constant({ role: 'approved' as const }) },
  { weight: 2, arbitrary: keyed.map((index) => ({ role: 'account' as const, index })) },
);

const mint = fc.record({
  kind: fc.constant('mint' as const),
  // Mostly the partner; another account must be refused.
  sender: fc.oneof({ weight: 9, arbitrary: fc.constant(PARTNER) }, { weight: 1, arbitrary: keyed }),
  // Pool indexes with repeats; 12 stands for the zero address, which both must refuse.
  recipients: fc.oneof(
    { weight: 8, arbitrary: fc.array(poolIndex, { minLength: 1, maxLength: 12 }) },
    { weight: 1, arbitrary: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 0, maxLength: 6 }) },
  ),
  sorted: fc.boolean(),
  sendable: fc.boolean(),
});
const firstMint = fc.record({
  kind: fc.constant('mint' as const),
  sender: fc.constant(PARTNER),
  recipients: fc.array(poolIndex, { minLength: 2, maxLength: 12 }),
  sorted: fc.boolean(),
  sendable: fc.boolean(),
});

const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 6, arbitrary: mint },
  // Long mints of fresh addresses: they cross 256-id buckets and make many cards to look up; the
  // longest are split over two data contracts (at most 1,228 addresses each).
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('bulkMint' as const),
      cards: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 40, max: 300 }) }, { weight: 1, arbitrary: fc.integer({ min: 1_200, max: 1_428 }) }),
      start: fc.nat(1_000),
    }),
  },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('transfer' as const),
      method: fc.constantFrom('transferFrom' as const, 'safeTransferFrom' as const, 'safeTransferFromWithData' as const),
      token,
      fromHolder: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      from: poolIndex,
      to: fc.integer({ min: 0, max: 13 }),
      sender: senderPick,
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('approve' as const), token, spender: poolIndex, sender: senderPick }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('approveAll' as const), sender: keyed, operator: poolIndex, approved: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('burn' as const), token, sender: senderPick }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('deposit' as const),
      sender: senderPick,
      tokens: fc.array(token, { minLength: 1, maxLength: 3 }),
      // 4 stands for a zero claim hash, which the escrow skips.
      secrets: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 3, maxLength: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('claim' as const),
      token,
      secret: fc.integer({ min: 0, max: 3 }),
      to: poolIndex,
      byOperator: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), sender: keyed, tokens: fc.array(token, { minLength: 1, maxLength: 3 }) }) },
);

// ---------------------------------------------------------------------------------------------

/** What a call or read did: its result, or the raw data it reverted with. */
type Outcome = { ok: true; result: unknown; events?: unknown[] } | { ok: false; revert: Hex };

function revertData(error: unknown): Hex {
  if (error instanceof BaseError) {
    const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) return reverted.raw ?? '0x';
  }
  throw error;
}

/** ERC-165 ids every contract is asked about: ERC-165, ERC-721, its metadata, ERC-4906, ERC-5192, and none. */
const INTERFACE_IDS = ['0x01ffc9a7', '0x80ac58cd', '0x5b5e139f', '0x49064906', '0xb45a3c0e', '0xffffffff'] as const;

describe('CardNFT and LeanCardNFT against PlainCardNFT (OpenZeppelin ERC-721), random operations', () => {
  let anvil: Anvil;
  let publicClient: PublicClient;
  /** For the views' multicalls: their eth_calls are large, so a few go in one HTTP request. */
  let viewClient: PublicClient;
  let testClient: TestClient;
  let wallets: WalletClient[];
  let escrow: Address;
  /** The contracts under test (CardNFT, LeanCardNFT) and the baseline (PlainCardNFT), in this order. */
  let nfts: [Address, Address, Address];
  const BASELINE = 2;
  const NAMES = ['CardNFT', 'LeanCardNFT', 'PlainCardNFT'];
  let snapshot: Hex;
  /** Recipients and targets: keyed accounts 0-6, addresses without keys (7-9, 11), the escrow (10), then the special ones. */
  let pool: Address[];
  let bulkAddresses: Address[];
  let succeededCalls = 0;
  let revertedCalls = 0;
  let largestMint = 0;

  const keyedAddress = (index: number) => wallets[index]!.account!.address;

  before(async () => {
    anvil = await startAnvil({ args: ['--gas-limit', '300000000'] });
    // Batched JSON-RPC: the many reads of a check go out as one request.
    const transport = http(anvil.url, { batch: { batchSize: 2_000 } });
    publicClient = createPublicClient({ chain: anvil.chain, transport, pollingInterval: 5 });
    viewClient = createPublicClient({ chain: anvil.chain, transport: http(anvil.url, { batch: { batchSize: 8 } }) });
    testClient = createTestClient({ chain: anvil.chain, transport: http(anvil.url), mode: 'anvil' });
    wallets = Array.from({ length: KEYED }, (_, addressIndex) =>
      createWalletClient({ chain: anvil.chain, transport: http(anvil.url), account: mnemonicToAccount(TEST_MNEMONIC, { addressIndex }) }),
    );
    const deploy = async (abi: Abi, bytecode: Hex, args: readonly unknown[]) => {
      const hash = await wallets[OPERATOR]!.deployContract({ abi, bytecode, args, account: wallets[OPERATOR]!.account!, chain: anvil.chain });
      const receipt = await receiptOf(publicClient, hash);
      assert.equal(receipt.status, 'success');
      return getAddress(receipt.contractAddress!);
    };
    escrow = await deploy(cardEscrowAbi, cardEscrowBytecode, [keyedAddress(OPERATOR)]);
    const args = ['Cards', 'CARD', 'https://cards.example/', keyedAddress(PARTNER), escrow];
    nfts = [
      await deploy(cardNftAbi, cardNftBytecode, args),
      await deploy(cardNftAbi, leanCardNftBytecode, args),
      await deploy(cardNftAbi, plainCardNftBytecode, args),
    ];
    // As the service does: the partner lets the escrow take its cards.
    for (const nft of nfts) await send(PARTNER, nft, cardNftAbi, 'setApprovalForAll', [escrow, true]);
    const [x, y, z, w] = freshAddresses(4, 'differential');
    // A contract without onERC721Received: safe transfers to it must fail.
    const nonReceiver = await deploy(naiveCardNftAbi, naiveCardNftBytecode, [keyedAddress(OPERATOR)]);
    pool = [...Array.from({ length: KEYED }, (_, i) => keyedAddress(i)), x!, y!, z!, escrow, w!, zeroAddress, nonReceiver];
    bulkAddresses = freshAddresses(1_500, 'differential-bulk');
    snapshot = await testClient.snapshot();
  });

  after(async () => {
    await anvil?.stop();
  });

  /** Sends a call that a simulation showed succeeds; returns its decoded events. */
  async function send(sender: number, to: Address, abi: Abi, functionName: string, args: readonly unknown[]) {
    const wallet = wallets[sender]!;
    const hash = await wallet.writeContract({ address: to, abi, functionName, args, account: wallet.account!, chain: anvil.chain, gas: GAS_LIMIT } as any);
    const receipt = await receiptOf(publicClient, hash);
    assert.equal(receipt.status, 'success', `${functionName} was mined but reverted`);
    return receipt.logs.map((log) => {
      const decoded = decodeEventLog({ abi: [...cardNftAbi, ...cardEscrowAbi], data: log.data, topics: log.topics });
      const args = { ...(decoded.args as Record<string, unknown>) };
      // The escrow's events name the card contract, which is the only thing that may differ.
      if (log.address.toLowerCase() === escrow.toLowerCase() && typeof args.nft === 'string') args.nft = nftLabel(args.nft);
      return { emitter: log.address.toLowerCase() === escrow.toLowerCase() ? 'escrow' : nftLabel(log.address), event: decoded.eventName, args };
    });
  }

  function nftLabel(address: string): string {
    const index = nfts.findIndex((nft) => nft.toLowerCase() === address.toLowerCase());
    assert.ok(index >= 0, `event from an unexpected contract ${address}`);
    return 'card contract';
  }

  /**
   * Simulates the call; sends it if it succeeds. Revert data naming the card contract (the
   * escrow's errors do) has its address replaced, as that is the one thing that may differ.
   */
  async function execute(nft: Address, sender: number, to: Address, abi: Abi, functionName: string, args: readonly unknown[]): Promise<Outcome> {
    let result: unknown;
    try {
      ({ result } = await publicClient.simulateContract({ address: to, abi, functionName, args, account: wallets[sender]!.account!, gas: GAS_LIMIT } as any));
    } catch (error) {
      return { ok: false, revert: revertData(error).replaceAll(nft.slice(2).toLowerCase(), '<card contract>') as Hex };
    }
    return { ok: true, result, events: await send(sender, to, abi, functionName, args) };
  }

  async function read(nft: Address, functionName: string, args: readonly unknown[], abi: Abi = cardNftAbi): Promise<Outcome> {
    try {
      return { ok: true, result: await publicClient.readContract({ address: nft, abi, functionName, args } as any) };
    } catch (error) {
      return { ok: false, revert: revertData(error) };
    }
  }

  /** Runs the same call on every contract (or on the escrow for each) and requires the same outcome. */
  async function both(
    sender: number,
    call: (nft: Address) => { to: Address; abi: Abi; functionName: string; args: readonly unknown[] },
    label: string,
  ): Promise<Outcome> {
    const outcomes: Outcome[] = [];
    for (const nft of nfts) {
      const { to, abi, functionName, args } = call(nft);
      outcomes.push(await execute(nft, sender, to, abi, functionName, args));
    }
    const baseline = outcomes[BASELINE]!;
    for (const [i, outcome] of outcomes.entries()) assert.deepEqual(outcome, baseline, `${label}: ${NAMES[i]} and PlainCardNFT differ`);
    if (baseline.ok) succeededCalls += 1;
    else revertedCalls += 1;
    return baseline;
  }

  // -- resolving generated indexes against the baseline's state (all must agree anyway)

  async function nextTokenId(): Promise<bigint> {
    const result = await read(nfts[BASELINE], 'nextTokenId', []);
    assert.ok(result.ok);
    return result.result as bigint;
  }

  /** A card id from 0 to nextTokenId: ids 0 and nextTokenId never exist, burned ones may be picked. */
  async function tokenOf(pick: number): Promise<bigint> {
    return BigInt(pick) % ((await nextTokenId()) + 1n);
  }

  function keyedIndexOf(address: unknown): number | undefined {
    const index = typeof address === 'string' ? wallets.findIndex((w) => w.account!.address.toLowerCase() === address.toLowerCase()) : -1;
    return index >= 0 ? index : undefined;
  }

  async function senderOf(pick: SenderPick, tokenId: bigint, fallback: number): Promise<number> {
    if (pick.role === 'account') return pick.index;
    const owner = await read(nfts[BASELINE], pick.role === 'holder' ? 'ownerOf' : 'getApproved', [tokenId]);
    return (owner.ok ? keyedIndexOf(owner.result) : undefined) ?? fallback;
  }

  async function holderOf(tokenId: bigint): Promise<Address | undefined> {
    const owner = await read(nfts[BASELINE], 'ownerOf', [tokenId]);
    return owner.ok ? (owner.result as Address) : undefined;
  }

  // -- running one operation

  async function run(op: Operation, step: number): Promise<bigint[]> {
    const label = `step ${step} ${JSON.stringify(op)}`;
    const fallback = step % KEYED;
    switch (op.kind) {
      case 'mint':
      case 'bulkMint': {
        let recipients: Address[];
        if (op.kind === 'mint') {
          recipients = op.recipients.map((index) => pool[index]!);
          if (op.sorted) recipients.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
        } else {
          recipients = Array.from({ length: op.cards }, (_, i) => bulkAddresses[(op.start + i) % bulkAddresses.length]!);
        }
        const first = await nextTokenId();
        const outcome = await both(op.kind === 'mint' ? op.sender : PARTNER, (nft) => ({
          to: nft,
          abi: cardNftAbi,
          functionName: 'mintBatch',
          args: [recipients, op.kind === 'mint' ? op.sendable : true],
        }), label);
        if (!outcome.ok) return [];
        assert.equal(outcome.result, first);
        largestMint = Math.max(largestMint, recipients.length);
        return recipients.map((_, i) => first + BigInt(i));
      }
      case 'transfer': {
        const tokenId = await tokenOf(op.token);
        const from = op.fromHolder ? ((await holderOf(tokenId)) ?? pool[op.from]!) : pool[op.from]!;
        const to = pool[op.to]!;
        const sender = await senderOf(op.sender, tokenId, fallback);
        const args =
          op.method === 'safeTransferFromWithData' ? [from, to, tokenId, toHex(`data ${step}`)] : [from, to, tokenId];
        const functionName = op.method === 'transferFrom' ? 'transferFrom' : 'safeTransferFrom';
        await both(sender, (nft) => ({ to: nft, abi: cardNftAbi, functionName, args }), label);
        return [tokenId];
      }
      case 'approve': {
        const tokenId = await tokenOf(op.token);
        const sender = await senderOf(op.sender, tokenId, fallback);
        await both(sender, (nft) => ({ to: nft, abi: cardNftAbi, functionName: 'approve', args: [pool[op.spender]!, tokenId] }), label);
        return [tokenId];
      }
      case 'approveAll': {
        await both(op.sender, (nft) => ({ to: nft, abi: cardNftAbi, functionName: 'setApprovalForAll', args: [pool[op.operator]!, op.approved] }), label);
        return [];
      }
      case 'burn': {
        const tokenId = await tokenOf(op.token);
        const sender = await senderOf(op.sender, tokenId, fallback);
        await both(sender, (nft) => ({ to: nft, abi: cardNftAbi, functionName: 'burn', args: [tokenId] }), label);
        return [tokenId];
      }
      case 'deposit': {
        const tokenIds = await Promise.all(op.tokens.map(tokenOf));
        const sender = await senderOf(op.sender, tokenIds[0]!, fallback);
        const hashes = tokenIds.map((_, i) => {
          const secret = SECRETS[op.secrets[i]!];
          return secret ? keccak256(encodePacked(['bytes32'], [secret])) : zeroHash;
        });
        await both(sender, (nft) => ({ to: escrow, abi: cardEscrowAbi, functionName: 'deposit', args: [nft, tokenIds, hashes] }), label);
        return tokenIds;
      }
      case 'claim': {
        const tokenId = await tokenOf(op.token);
        const sender = op.byOperator ? OPERATOR : fallback === OPERATOR ? PARTNER : fallback;
        await both(sender, (nft) => ({ to: escrow, abi: cardEscrowAbi, functionName: 'claim', args: [nft, tokenId, SECRETS[op.secret]!, pool[op.to]!] }), label);
        return [tokenId];
      }
      case 'cancel': {
        const tokenIds = await Promise.all(op.tokens.map(tokenOf));
        await both(op.sender, (nft) => ({ to: escrow, abi: cardEscrowAbi, functionName: 'cancel', args: [nft, tokenIds] }), label);
        return tokenIds;
      }
    }
  }

  // -- comparing views

  /** Every view of the given cards, of every pool address and of every approval pair, on one contract. */
  /**
   * Reads many views in few eth_calls (viem's multicall, deployless, so no Multicall3 contract is
   * needed): the outcomes are the same as one `read` each, revert data included.
   */
  async function readMany(calls: readonly { address: Address; abi: Abi; functionName: string; args: readonly unknown[] }[]): Promise<Outcome[]> {
    const results = await viewClient.multicall({ contracts: calls as any, allowFailure: true, deployless: true, batchSize: 4_096 });
    return results.map((result) => (result.status === 'success' ? { ok: true, result: result.result } : { ok: false, revert: revertData(result.error) }));
  }

  /** Every view of the given cards, of every pool address and of every approval pair, on one contract. */
  async function views(nft: Address, tokenIds: readonly bigint[]) {
    const addresses = [...new Set([...pool, ...bulkAddresses.slice(0, 8)])];
    const pairs = pool.slice(0, KEYED).flatMap((owner) => [...pool.slice(0, KEYED), escrow].map((operator) => [owner, operator] as const));
    const card = (functionName: string, args: readonly unknown[]) => ({ address: nft, abi: cardNftAbi as Abi, functionName, args });
    const cardViews = ['ownerOf', 'getApproved', 'isSendable', 'locked', 'tokenURI'] as const;
    const outcomes = await readMany([
      card('nextTokenId', []),
      ...INTERFACE_IDS.map((id) => card('supportsInterface', [id])),
      ...tokenIds.flatMap((tokenId) => [
        ...cardViews.map((view) => card(view, [tokenId])),
        { address: escrow, abi: cardEscrowAbi as Abi, functionName: 'depositOf', args: [nft, tokenId] },
      ]),
      ...addresses.map((address) => card('balanceOf', [address])),
      ...pairs.map(([owner, operator]) => card('isApprovedForAll', [owner, operator])),
    ]);
    const take = (count: number) => outcomes.splice(0, count);
    const [next] = take(1);
    const interfaces = take(INTERFACE_IDS.length);
    const cards = tokenIds.map((tokenId) => {
      const [owner, approved, sendable, locked, uri, deposit] = take(cardViews.length + 1);
      return { tokenId, owner, approved, sendable, locked, uri, deposit };
    });
    const balances = take(addresses.length).map((balance, i) => [addresses[i], balance]);
    const operators = take(pairs.length).map((approved, i) => [...pairs[i]!, approved]);
    assert.equal(outcomes.length, 0);
    return { next, interfaces, cards, balances, operators };
  }

  async function compareViews(tokenIds: readonly bigint[], label: string): Promise<void> {
    const [card, lean, plain] = await Promise.all(nfts.map((nft) => views(nft, tokenIds)));
    assert.deepEqual(card, plain, `${label}: views of CardNFT and PlainCardNFT differ`);
    assert.deepEqual(lean, plain, `${label}: views of LeanCardNFT and PlainCardNFT differ`);
  }

  async function allTokenIds(): Promise<bigint[]> {
    const next = await nextTokenId();
    return Array.from({ length: Number(next) + 1 }, (_, i) => BigInt(i));
  }

  it(`agrees on every call and view over ${RUNS} random sequences`, async () => {
    let steps = 0;
    await fc.assert(
      // Each sequence starts with a mint, so the operations after it have cards to work on.
      fc.asyncProperty(fc.tuple(firstMint, fc.array(operation, { minLength: 10, maxLength: 40, size: 'max' })), async ([mint, rest]) => {
        const operations = [mint, ...rest];
        await testClient.revert({ id: snapshot });
        snapshot = await testClient.snapshot();
        for (const [step, op] of operations.entries()) {
          const touched = await run(op, step);
          steps += 1;
          const full = (step + 1) % FULL_CHECK_EVERY === 0 || step === operations.length - 1;
          const tokenIds = full ? await allTokenIds() : [...new Set([0n, ...touched, await nextTokenId()])];
          await compareViews(tokenIds, `after step ${step} ${JSON.stringify(op)}`);
        }
      }),
      { numRuns: RUNS, seed: SEED, includeErrorInReport: true },
    );
    console.log(
      `seed ${SEED}: ${steps} operations in ${RUNS} sequences: ${succeededCalls} calls succeeded and ${revertedCalls} reverted alike on all three contracts; largest mint ${largestMint} cards`,
    );
  });
});
