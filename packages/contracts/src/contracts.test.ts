// Integration test of CardNFT and CardEscrow on a local anvil node, plus the gas benchmark
// of batch minting against the one-card-per-transaction baseline (NaiveCardNFT).

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type Abi,
  type Address,
  type Hex,
  BaseError,
  ContractFunctionRevertedError,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
  createPublicClient,
  createWalletClient,
  encodePacked,
  getAddress,
  getContract,
  type GetContractReturnType,
  http,
  keccak256,
  maxUint256,
  parseEventLogs,
  toHex,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { defineChain } from 'viem';
import {
  cardEscrowAbi,
  cardEscrowBytecode,
  cardNftAbi,
  cardNftBytecode,
  naiveCardNftAbi,
  naiveCardNftBytecode,
} from './index.ts';

const MNEMONIC = 'test test test test test test test test test test test junk';
const BASE_URI = 'https://cards.example/meta/';
const BENCHMARK_CARDS = 100;

// ---------------------------------------------------------------------------------------------
// anvil process

function anvilBinary(): string {
  const packageJson = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json');
  return path.join(path.dirname(packageJson), 'bin', 'anvil');
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  server.close();
  await once(server, 'close');
  return address.port;
}

// A chain id of our own: a free port can be taken by another process's node between the probe and
// anvil's bind, and the chain id tells whether the node that answers is ours.
const CHAIN_ID = 100_000 + Math.floor(Math.random() * 1_000_000_000);
const testChain = defineChain({ ...foundry, id: CHAIN_ID });

async function startAnvil(): Promise<{ process: ChildProcess; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(anvilBinary(), ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(CHAIN_ID), '--silent'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`anvil exited with code ${child.exitCode}: ${stderr}`);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      const { result } = (await response.json()) as { result?: string };
      if (result !== undefined && Number(result) === CHAIN_ID) return { process: child, url };
      if (result !== undefined) {
        child.kill('SIGKILL');
        return startAnvil();
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`anvil did not answer on ${url} within 10 s: ${stderr}`);
}

// ---------------------------------------------------------------------------------------------
// helpers

/** The custom error a contract call reverted with, or undefined if it failed otherwise. */
function revertOf(error: unknown): { errorName?: string; args?: readonly unknown[] } | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  return reverted instanceof ContractFunctionRevertedError ? reverted.data : undefined;
}

/** Asserts `call` reverts with the custom error `errorName` (and `args`, if given). */
async function assertReverts(call: Promise<unknown>, errorName: string, args?: readonly unknown[]): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    const data = revertOf(error);
    assert.equal(data?.errorName, errorName, `expected revert ${errorName}, got: ${String(error)}`);
    if (args) assert.deepEqual(data?.args, args);
    return true;
  });
}

function secretOf(label: string): Hex {
  return keccak256(toHex(label));
}

function claimHashOf(secret: Hex): Hex {
  return keccak256(encodePacked(['bytes32'], [secret]));
}

/** Deterministic fresh addresses that hold nothing yet (like new custodial accounts). */
function freshAddresses(count: number, salt: string): Address[] {
  return Array.from({ length: count }, (_, i) => getAddress(keccak256(toHex(`${salt}-${i}`)).slice(0, 42)));
}

// ---------------------------------------------------------------------------------------------

describe('card contracts on anvil', () => {
  let anvil: ChildProcess;
  let publicClient: PublicClient;
  let operator: WalletClient; // service operator: deploys contracts, submits claims
  let partner: WalletClient; // owner of the card contract
  let alice: WalletClient;
  let bob: WalletClient;
  let carol: WalletClient;
  let nft: Address;
  let escrow: Address;
  let card: GetContractReturnType<typeof cardNftAbi, PublicClient>;
  let cardEscrow: GetContractReturnType<typeof cardEscrowAbi, PublicClient>;

  const addressOf = (wallet: WalletClient): Address => wallet.account!.address;

  type ContractCall = { address: Address; abi: Abi; functionName: string; args?: readonly unknown[] };

  /** Simulates, sends and mines a contract call; returns the simulated result and the receipt. */
  async function send(wallet: WalletClient, call: ContractCall): Promise<{ result: any; receipt: TransactionReceipt }> {
    const { result, request } = await simulate(wallet, call);
    const hash = await wallet.writeContract(request as any);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    return { result, receipt };
  }

  /** Runs a call with eth_call only: checks a revert without sending a transaction. */
  function simulate(wallet: WalletClient, call: ContractCall) {
    // The helpers take calls of any ABI; typed calls are checked where viem infers them (reads, mints below).
    return publicClient.simulateContract({ ...call, account: wallet.account! } as any);
  }

  async function deploy(wallet: WalletClient, abi: Abi, bytecode: Hex, args: readonly unknown[]): Promise<Address> {
    const hash = await wallet.deployContract({ abi, bytecode, args, account: wallet.account!, chain: testChain } as any);
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.ok(receipt.contractAddress);
    return getAddress(receipt.contractAddress);
  }

  async function mintBatch(to: readonly Address[], sendable: boolean): Promise<bigint> {
    const { result } = await send(partner, { address: nft, abi: cardNftAbi, functionName: 'mintBatch', args: [to, sendable] });
    return result as bigint;
  }

  const transfer = (wallet: WalletClient, from: Address, to: Address, tokenId: bigint) =>
    send(wallet, { address: nft, abi: cardNftAbi, functionName: 'transferFrom', args: [from, to, tokenId] });

  before(async () => {
    const started = await startAnvil();
    anvil = started.process;
    const transport = http(started.url);
    // Short polling: anvil mines on every transaction.
    publicClient = createPublicClient({ chain: testChain, transport, pollingInterval: 10 });
    const wallet = (addressIndex: number) =>
      createWalletClient({ chain: testChain, transport, account: mnemonicToAccount(MNEMONIC, { addressIndex }) });
    operator = wallet(0);
    partner = wallet(1);
    alice = wallet(2);
    bob = wallet(3);
    carol = wallet(4);

    escrow = await deploy(operator, cardEscrowAbi, cardEscrowBytecode, [addressOf(operator)]);
    nft = await deploy(operator, cardNftAbi, cardNftBytecode, ['Partner Cards', 'PCARD', BASE_URI, addressOf(partner), escrow]);
    card = getContract({ address: nft, abi: cardNftAbi, client: publicClient });
    cardEscrow = getContract({ address: escrow, abi: cardEscrowAbi, client: publicClient });
    await send(partner, { address: nft, abi: cardNftAbi, functionName: 'setApprovalForAll', args: [escrow, true] });
  });

  after(async () => {
    if (anvil && anvil.exitCode === null && anvil.signalCode === null) {
      anvil.kill('SIGTERM');
      await once(anvil, 'exit');
    }
  });

  it('is configured by its constructor', async () => {
    assert.equal(await card.read.owner(), addressOf(partner));
    assert.equal(await card.read.escrow(), escrow);
    assert.equal(await card.read.name(), 'Partner Cards');
    assert.equal(await card.read.baseURI(), BASE_URI);
    assert.equal(await cardEscrow.read.operator(), addressOf(operator));
    assert.equal(await card.read.supportsInterface(['0x49064906']), true); // ERC-4906
    assert.equal(await card.read.supportsInterface(['0x80ac58cd']), true); // ERC-721
    assert.equal(await card.read.supportsInterface(['0xffffffff']), false);
  });

  it('mints a batch with sequential ids, owners and token URIs', async () => {
    const recipients = [addressOf(alice), addressOf(bob), addressOf(carol), addressOf(alice)];
    // The first mint of the contract: ids start at 1.
    assert.equal(await card.read.nextTokenId(), 1n);
    const first = await mintBatch(recipients, true);
    assert.equal(first, 1n);
    await assertReverts(card.read.ownerOf([0n]), 'ERC721NonexistentToken', [0n]);
    assert.equal(await card.read.nextTokenId(), first + BigInt(recipients.length));

    for (const [i, recipient] of recipients.entries()) {
      const tokenId: bigint = first + BigInt(i);
      assert.equal(await card.read.ownerOf([tokenId]), recipient);
      assert.equal(await card.read.tokenURI([tokenId]), `${BASE_URI}${tokenId}`);
      assert.equal(await card.read.isSendable([tokenId]), true);
    }
    // Sendable cards move freely between holders.
    await transfer(alice, addressOf(alice), addressOf(bob), first);
    assert.equal(await card.read.ownerOf([first]), addressOf(bob));
  });

  it('only lets the owner mint, and refuses empty batches', async () => {
    await assertReverts(
      simulate(alice, { address: nft, abi: cardNftAbi, functionName: 'mintBatch', args: [[addressOf(alice)], true] }),
      'OwnableUnauthorizedAccount',
      [addressOf(alice)],
    );
    await assertReverts(
      simulate(operator, { address: nft, abi: cardNftAbi, functionName: 'mintBatch', args: [[addressOf(alice)], true] }),
      'OwnableUnauthorizedAccount',
    );
    await assertReverts(
      simulate(partner, { address: nft, abi: cardNftAbi, functionName: 'mintBatch', args: [[], true] }),
      'EmptyBatch',
    );
  });

  it('reverts tokenURI and isSendable for nonexistent cards', async () => {
    const next = await card.read.nextTokenId();
    await assertReverts(card.read.tokenURI([next]), 'ERC721NonexistentToken', [next]);
    await assertReverts(card.read.isSendable([next]), 'ERC721NonexistentToken', [next]);
  });

  it('keeps non-sendable cards with their holder, but lets the owner send them', async () => {
    const first = await mintBatch([addressOf(alice), addressOf(partner)], false);
    const aliceCard = first;
    const partnerCard = first + 1n;
    assert.equal(await card.read.isSendable([aliceCard]), false);
    assert.equal(await card.read.isSendable([partnerCard]), false);

    // The holder cannot send it, directly or through an approved account.
    await assertReverts(transfer(alice, addressOf(alice), addressOf(bob), aliceCard), 'CardNotSendable', [aliceCard]);
    await send(alice, { address: nft, abi: cardNftAbi, functionName: 'approve', args: [addressOf(bob), aliceCard] });
    await assertReverts(transfer(bob, addressOf(alice), addressOf(bob), aliceCard), 'CardNotSendable', [aliceCard]);
    await assertReverts(
      send(alice, {
        address: nft,
        abi: cardNftAbi,
        functionName: 'safeTransferFrom',
        args: [addressOf(alice), addressOf(bob), aliceCard],
      }),
      'CardNotSendable',
      [aliceCard],
    );

    // The owner (partner) can send a non-sendable card it holds; the recipient then cannot.
    await transfer(partner, addressOf(partner), addressOf(bob), partnerCard);
    assert.equal(await card.read.ownerOf([partnerCard]), addressOf(bob));
    await assertReverts(transfer(bob, addressOf(bob), addressOf(carol), partnerCard), 'CardNotSendable', [partnerCard]);

    // Neighbouring batches keep their own sendability (bits are set per token range).
    const next = await mintBatch([addressOf(alice)], true);
    assert.equal(await card.read.isSendable([next]), true);
  });

  it('marks long non-sendable batches across bitmap buckets', async () => {
    // 300 ids starting wherever the counter is spans at least two 256-bit buckets.
    const recipients = freshAddresses(300, 'bucket');
    const first = await mintBatch(recipients, false);
    const nextBatch = await mintBatch([addressOf(alice)], true);
    for (const tokenId of [first, first + 1n, first + 255n, first + 256n, first + 299n]) {
      assert.equal(await card.read.isSendable([tokenId]), false, `token ${tokenId}`);
    }
    assert.equal(await card.read.isSendable([first - 1n]), true);
    assert.equal(await card.read.isSendable([nextBatch]), true);
  });

  it('moves non-sendable cards through the escrow', async () => {
    const cardId = await mintBatch([addressOf(partner)], false);
    const secret = secretOf('escrow-non-sendable');
    const { result: failCount } = await send(partner, {
      address: escrow,
      abi: cardEscrowAbi,
      functionName: 'deposit',
      args: [nft, [cardId], [claimHashOf(secret)]],
    });
    assert.equal(failCount, 0n);
    await send(operator, { address: escrow, abi: cardEscrowAbi, functionName: 'claim', args: [nft, cardId, secret, addressOf(carol)] });
    assert.equal(await card.read.ownerOf([cardId]), addressOf(carol));
    await assertReverts(transfer(carol, addressOf(carol), addressOf(bob), cardId), 'CardNotSendable', [cardId]);

    // A holder cannot get a non-sendable card out through the escrow either.
    await send(carol, { address: nft, abi: cardNftAbi, functionName: 'setApprovalForAll', args: [escrow, true] });
    const { result: carolFails } = await send(carol, {
      address: escrow,
      abi: cardEscrowAbi,
      functionName: 'deposit',
      args: [nft, [cardId], [claimHashOf(secretOf('carol'))]],
    });
    assert.equal(carolFails, 1n);
    assert.equal(await card.read.ownerOf([cardId]), addressOf(carol));
  });

  it('lets holders burn cards, including non-sendable ones', async () => {
    const first = await mintBatch([addressOf(alice), addressOf(alice)], false);
    const balanceBefore = await card.read.balanceOf([addressOf(alice)]);
    await send(alice, { address: nft, abi: cardNftAbi, functionName: 'burn', args: [first] });
    assert.equal(await card.read.balanceOf([addressOf(alice)]), balanceBefore - 1n);
    await assertReverts(card.read.ownerOf([first]), 'ERC721NonexistentToken', [first]);
    await assertReverts(card.read.tokenURI([first]), 'ERC721NonexistentToken', [first]);
    // Only the holder (or an approved account) can burn.
    await assertReverts(
      send(bob, { address: nft, abi: cardNftAbi, functionName: 'burn', args: [first + 1n] }),
      'ERC721InsufficientApproval',
      [addressOf(bob), first + 1n],
    );
    // Burned ids are not reused.
    const next = await mintBatch([addressOf(alice)], true);
    assert.ok(next > first + 1n);
  });

  describe('escrow', () => {
    let cards: bigint[];
    const secrets = ['claim-a', 'claim-b', 'claim-c', 'claim-d'].map(secretOf);

    before(async () => {
      const first = await mintBatch([addressOf(partner), addressOf(partner), addressOf(partner), addressOf(partner)], true);
      cards = [first, first + 1n, first + 2n, first + 3n];
    });

    it('deposits a batch and reports the tokens that failed', async () => {
      const [a, b, c, d] = cards as [bigint, bigint, bigint, bigint];
      const [hashA, hashB, hashC, hashD] = secrets.map(claimHashOf) as [Hex, Hex, Hex, Hex];
      const aliceCard = await mintBatch([addressOf(alice)], true); // not the partner's to deposit
      const missing = 1_000_000n; // does not exist

      const tokenIds = [a, b, c, missing, aliceCard, a, d];
      const hashes = [hashA, hashB, `0x${'00'.repeat(32)}` as Hex, hashD, hashD, hashA, hashD];
      const { result: failCount, receipt } = await send(partner, {
        address: escrow,
        abi: cardEscrowAbi,
        functionName: 'deposit',
        args: [nft, tokenIds, hashes],
      });
      // c: zero claim hash; missing: transfer reverts; aliceCard: not the caller's; second a: already deposited.
      assert.equal(failCount, 4n);

      const events = parseEventLogs({ abi: cardEscrowAbi, logs: receipt.logs });
      const deposited = events.filter((e) => e.eventName === 'Deposited').map((e) => e.args);
      const failed = events.filter((e) => e.eventName === 'DepositFailed').map((e) => e.args);
      assert.deepEqual(deposited, [
        { nft, tokenId: a, depositor: addressOf(partner), claimHash: hashA },
        { nft, tokenId: b, depositor: addressOf(partner), claimHash: hashB },
        { nft, tokenId: d, depositor: addressOf(partner), claimHash: hashD },
      ]);
      assert.deepEqual(failed, [
        { nft, tokenId: c },
        { nft, tokenId: missing },
        { nft, tokenId: aliceCard },
        { nft, tokenId: a },
      ]);

      for (const tokenId of [a, b, d]) assert.equal(await card.read.ownerOf([tokenId]), escrow);
      assert.equal(await card.read.ownerOf([c]), addressOf(partner));
      assert.equal(await card.read.ownerOf([aliceCard]), addressOf(alice));
      assert.deepEqual(await cardEscrow.read.depositOf([nft, a]), [addressOf(partner), hashA]);
      assert.deepEqual(await cardEscrow.read.depositOf([nft, c]), [
        '0x0000000000000000000000000000000000000000',
        `0x${'00'.repeat(32)}`,
      ]);
    });

    it('refuses mismatched lengths, batches over 100 and non-contract NFT addresses', async () => {
      const call = (tokenIds: bigint[], hashes: Hex[]) =>
        simulate(partner, { address: escrow, abi: cardEscrowAbi, functionName: 'deposit', args: [nft, tokenIds, hashes] });
      await assertReverts(call([1n, 2n], [claimHashOf(secretOf('x'))]), 'LengthMismatch', [2n, 1n]);
      const ids = Array.from({ length: 101 }, (_, i) => BigInt(i + 1));
      await assertReverts(call(ids, ids.map(() => claimHashOf(secretOf('x')))), 'BatchTooLarge', [101n, 100n]);
      await assertReverts(
        simulate(partner, {
          address: escrow,
          abi: cardEscrowAbi,
          functionName: 'deposit',
          args: [addressOf(bob), [1n], [claimHashOf(secretOf('x'))]],
        }),
        'NotAContract',
        [addressOf(bob)],
      );
      await assertReverts(
        simulate(partner, { address: escrow, abi: cardEscrowAbi, functionName: 'cancel', args: [nft, ids] }),
        'BatchTooLarge',
        [101n, 100n],
      );
    });

    it('releases a card only to the operator presenting the right secret', async () => {
      const a = cards[0]!;
      const claim = (wallet: WalletClient, secret: Hex, to: Address) =>
        send(wallet, { address: escrow, abi: cardEscrowAbi, functionName: 'claim', args: [nft, a, secret, to] });

      // Someone else who learned the secret cannot claim it.
      await assertReverts(claim(bob, secrets[0]!, addressOf(bob)), 'NotOperator', [addressOf(bob)]);
      await assertReverts(claim(operator, secrets[1]!, addressOf(bob)), 'InvalidSecret');
      await assertReverts(claim(operator, secrets[0]!, '0x0000000000000000000000000000000000000000'), 'ZeroAddress');

      const { receipt } = await claim(operator, secrets[0]!, addressOf(bob));
      const events = parseEventLogs({ abi: cardEscrowAbi, logs: receipt.logs, eventName: 'Claimed' });
      assert.deepEqual(
        events.map((e) => e.args),
        [{ nft, tokenId: a, to: addressOf(bob) }],
      );
      assert.equal(await card.read.ownerOf([a]), addressOf(bob));
      assert.deepEqual(await cardEscrow.read.depositOf([nft, a]), ['0x0000000000000000000000000000000000000000', `0x${'00'.repeat(32)}`]);

      // A claimed card cannot be claimed again.
      await assertReverts(claim(operator, secrets[0]!, addressOf(carol)), 'NotDeposited', [nft, a]);
    });

    it('returns unclaimed cards to their depositor only', async () => {
      const [a, b, c, d] = cards as [bigint, bigint, bigint, bigint];
      // Not the depositor: nothing moves.
      const { result: aliceFails } = await send(alice, { address: escrow, abi: cardEscrowAbi, functionName: 'cancel', args: [nft, [b]] });
      assert.equal(aliceFails, 1n);
      assert.equal(await card.read.ownerOf([b]), escrow);

      // a was claimed and c never deposited: both fail, b and d come back.
      const { result: failCount, receipt } = await send(partner, {
        address: escrow,
        abi: cardEscrowAbi,
        functionName: 'cancel',
        args: [nft, [b, a, c, d]],
      });
      assert.equal(failCount, 2n);
      const events = parseEventLogs({ abi: cardEscrowAbi, logs: receipt.logs });
      assert.deepEqual(
        events.map((e) => [e.eventName, e.args]),
        [
          ['Canceled', { nft, tokenId: b, depositor: addressOf(partner) }],
          ['CancelFailed', { nft, tokenId: a }],
          ['CancelFailed', { nft, tokenId: c }],
          ['Canceled', { nft, tokenId: d, depositor: addressOf(partner) }],
        ],
      );
      assert.equal(await card.read.ownerOf([b]), addressOf(partner));
      assert.equal(await card.read.ownerOf([d]), addressOf(partner));
      assert.deepEqual(await cardEscrow.read.depositOf([nft, b]), ['0x0000000000000000000000000000000000000000', `0x${'00'.repeat(32)}`]);
    });
  });

  it('lets only the owner change the base URI', async () => {
    await assertReverts(
      simulate(alice, { address: nft, abi: cardNftAbi, functionName: 'setBaseURI', args: ['https://evil.example/'] }),
      'OwnableUnauthorizedAccount',
      [addressOf(alice)],
    );
    const newBase = 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/';
    const { receipt } = await send(partner, { address: nft, abi: cardNftAbi, functionName: 'setBaseURI', args: [newBase] });
    const events = parseEventLogs({ abi: cardNftAbi, logs: receipt.logs, eventName: 'BatchMetadataUpdate' });
    assert.deepEqual(
      events.map((e) => e.args),
      [{ _fromTokenId: 1n, _toTokenId: maxUint256 }],
    );
    assert.equal(await card.read.tokenURI([1n]), `${newBase}1`);
  });

  it(`mints ${BENCHMARK_CARDS} cards in one batch for at most half the gas per card of one-by-one URI-storage mints`, async () => {
    const naive = await deploy(partner, naiveCardNftAbi, naiveCardNftBytecode, [addressOf(partner)]);
    let naiveGas = 0n;
    for (const [i, to] of freshAddresses(BENCHMARK_CARDS, 'naive').entries()) {
      // A per-card metadata URI as it would be pinned on IPFS (CIDv1, 59 characters).
      const uri = `ipfs://${'bafkrei' + keccak256(toHex(i)).slice(2, 54)}`;
      const hash = await partner.writeContract({
        address: naive,
        abi: naiveCardNftAbi,
        functionName: 'mint',
        args: [to, uri],
        account: partner.account!,
        chain: testChain,
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      assert.equal(receipt.status, 'success');
      naiveGas += receipt.gasUsed;
    }

    const batch = await send(partner, {
      address: nft,
      abi: cardNftAbi,
      functionName: 'mintBatch',
      args: [freshAddresses(BENCHMARK_CARDS, 'batch'), true],
    });
    const nonSendableBatch = await send(partner, {
      address: nft,
      abi: cardNftAbi,
      functionName: 'mintBatch',
      args: [freshAddresses(BENCHMARK_CARDS, 'batch-non-sendable'), false],
    });

    const perCard = (gas: bigint) => Number(gas) / BENCHMARK_CARDS;
    const naivePerCard = perCard(naiveGas);
    const batchPerCard = perCard(batch.receipt.gasUsed);
    const nonSendablePerCard = perCard(nonSendableBatch.receipt.gasUsed);
    const ratio = batchPerCard / naivePerCard;
    console.log(
      [
        `gas per card, ${BENCHMARK_CARDS} cards to fresh addresses (total transaction gas / cards):`,
        `  NaiveCardNFT.mint, one card per transaction: ${naivePerCard.toFixed(0)}`,
        `  CardNFT.mintBatch, sendable:                 ${batchPerCard.toFixed(0)} (${(ratio * 100).toFixed(1)}% of naive)`,
        `  CardNFT.mintBatch, non-sendable:             ${nonSendablePerCard.toFixed(0)} (${((nonSendablePerCard / naivePerCard) * 100).toFixed(1)}% of naive)`,
      ].join('\n'),
    );
    assert.ok(ratio <= 0.5, `batch mint costs ${(ratio * 100).toFixed(1)}% of the naive mint per card; expected at most 50%`);
    assert.ok(nonSendablePerCard / naivePerCard <= 0.5);
  });
});
