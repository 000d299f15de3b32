/**
 * Test helpers of the App2App tests: contracts compiled at test time, members with funds, and
 * short-hands for the HTTP calls. Not used by the service.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeDeployData, parseEther, type Abi, type Address, type Hex } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import type { FastifyInstance } from 'fastify';
import { sha256Hex } from '../../custody/passwords.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import type { Operator } from '../../operator/operator.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { KeyVault } from '../../custody/key-vault.ts';
import { buildApprovedPartner, buildUser } from '../../testing/factories.ts';
import { createHash, randomUUID } from 'node:crypto';

const FIXTURE_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A small ERC-20 for tests; the deployer holds the supply.
contract TestToken {
    string public name;
    string public symbol;
    uint8 public decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 value);
    error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 supply) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        totalSupply = supply;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        uint256 balance = balanceOf[msg.sender];
        if (balance < amount) revert ERC20InsufficientBalance(msg.sender, balance, amount);
        balanceOf[msg.sender] = balance - amount;
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }

    mapping(address => mapping(address => uint256)) public allowance;
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }
}

/// A contract for execute_contract: a require with a reason, a custom error, a tuple argument.
contract Target {
    struct Order { address buyer; uint256 amount; string memo; }
    uint256 public total;
    Order public lastOrder;
    mapping(address => uint256) public paid;
    error Refused(uint256 code);

    function add(uint256 x) external payable {
        require(x < 100, "x must be below 100");
        total += x;
        paid[msg.sender] += msg.value;
    }

    function place(Order calldata order, uint8 flag) external {
        if (flag == 9) revert Refused(7);
        lastOrder = order;
        total += order.amount;
    }
}
`;

/**
 * The app the HTTP short-hands call: typed by what they use (inject), so that test support does not
 * import app.ts, which imports every family B routes file. The built App is one.
 */
type App = Pick<FastifyInstance, 'inject'>;

export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

let compiled: { token: CompiledContract; target: CompiledContract } | undefined;

/**
 * TestToken and Target, compiled with solc-js once per machine: the output is kept in the temporary
 * directory under the hash of the source and of solc's version, so the test files after the first
 * neither compile nor load solc (9 MB of JavaScript, most of a second to load).
 */
export function fixtureContracts(): { token: CompiledContract; target: CompiledContract } {
  if (compiled) return compiled;
  const require = createRequire(import.meta.url);
  const solcVersion = (require('solc/package.json') as { version: string }).version;
  const kept = join(tmpdir(), `wallet-test-fixtures-${createHash('sha256').update(`${solcVersion}\n${FIXTURE_SOURCE}`).digest('hex').slice(0, 16)}.json`);
  if (existsSync(kept)) {
    compiled = JSON.parse(readFileSync(kept, 'utf8')) as { token: CompiledContract; target: CompiledContract };
    return compiled;
  }
  const solc = require('solc') as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'Fixtures.sol': { content: FIXTURE_SOURCE } },
        settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
      }),
    ),
  ) as { errors?: Array<{ severity: string; formattedMessage: string }>; contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>> };
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length) throw new Error(errors.map((error) => error.formattedMessage).join('\n'));
  const of = (name: string): CompiledContract => {
    const contract = output.contracts['Fixtures.sol']![name]!;
    return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  };
  compiled = { token: of('TestToken'), target: of('Target') };
  // Written aside and renamed: test files compiling at once never read half a file.
  const aside = `${kept}.${process.pid}.tmp`;
  writeFileSync(aside, JSON.stringify(compiled));
  renameSync(aside, kept);
  return compiled;
}

/** Deploys a contract from the operator account and waits for it. */
export async function deployFromOperator(deps: { outbox: TransactionOutbox; operator: Operator }, contract: CompiledContract, args: unknown[] = []): Promise<Address> {
  const submitted = await deps.outbox.submit({
    idempotencyKey: `test-deploy:${randomUUID()}`,
    chain: 'main',
    signer: await deps.operator.signer(),
    to: null,
    data: encodeDeployData({ abi: contract.abi, bytecode: contract.bytecode, args } as never),
  });
  const mined = await deps.outbox.waitForFinal(submitted.id);
  assert.equal(mined.receiptStatus, 'success');
  return mined.contractAddress!;
}

/** Sends `data` to `to` from the operator and waits for success. */
export async function callFromOperator(deps: { outbox: TransactionOutbox; operator: Operator }, to: Address, data: Hex, value = 0n): Promise<void> {
  const submitted = await deps.outbox.submit({
    idempotencyKey: `test-call:${randomUUID()}`,
    chain: 'main',
    signer: await deps.operator.signer(),
    to,
    data,
    value,
  });
  const mined = await deps.outbox.waitForFinal(submitted.id);
  assert.equal(mined.receiptStatus, 'success');
}

/** Sets an address's coin balance on the embedded chain. */
export async function setBalance(deps: { chains: ChainRegistry }, address: Address, wei: bigint): Promise<void> {
  await deps.chains.get('main').client.request({
    method: 'anvil_setBalance' as never,
    params: [address, `0x${wei.toString(16)}`] as never,
  });
}

/** A member with a signed-in wallet-app session (and, optionally, coins). */
export async function signedInMember(app: App, deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry }, options: { coins?: string; name?: string } = {}) {
  const built = await buildUser(deps, options.name ? { name: options.name } : {});
  const response = await app.inject({
    method: 'POST',
    url: '/v2/wallet-app/sessions',
    payload: { email: built.user.email, password: sha256Hex(built.password) },
  });
  assert.equal(response.statusCode, 200, response.body);
  const address = built.user.main_address as Address;
  if (options.coins) await setBalance(deps, address, parseEther(options.coins));
  return { ...built, address, token: response.json().session_token as string };
}

/** POST /v2/a2a/prepare. */
export function prepare(app: App, body: unknown) {
  return app.inject({ method: 'POST', url: '/v2/a2a/prepare', payload: body as object });
}

/** POST /v2/a2a/prepare that must succeed; returns the key. */
export async function prepareKey(app: App, body: unknown): Promise<string> {
  const response = await prepare(app, body);
  assert.equal(response.statusCode, 200, response.body);
  return response.json().request_key as string;
}

export function result(app: App, requestKey: string, wait?: number) {
  return app.inject({ method: 'GET', url: `/v2/a2a/result?request_key=${requestKey}${wait !== undefined ? `&wait=${wait}` : ''}` });
}

export function walletApp(app: App, token: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) {
  return app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
}

export function openAs(app: App, token: string, requestKey: string) {
  return walletApp(app, token, 'POST', `/v2/wallet-app/a2a/requests/${requestKey}/open`);
}

export function approveAs(app: App, token: string, requestKey: string, pin: string) {
  return walletApp(app, token, 'POST', `/v2/wallet-app/a2a/requests/${requestKey}/approve`, { pin: sha256Hex(pin) });
}

export function cancelAs(app: App, token: string, requestKey: string) {
  return walletApp(app, token, 'POST', `/v2/wallet-app/a2a/requests/${requestKey}/cancel`);
}

/** Polls B3 until result.status is final; returns the last body. */
export async function finalResult(app: App, requestKey: string): Promise<Record<string, any>> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const body = (await result(app, requestKey, 5)).json();
    if (body.status !== 'completed' || body.result?.status !== 'pending') return body;
  }
  throw new Error(`request ${requestKey} did not finish`);
}

/** An approved partner whose card contract has minted cards 1..n to `to` (one per entry). */
export async function mintCards(deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox; operator: Operator }, to: Address[], sendable = true) {
  const partner = await buildApprovedPartner(deps);
  const key = await deps.vault.unlock(partner.partner.key_id, partner.pinHash);
  const { encodeFunctionData } = await import('viem');
  const submitted = await deps.outbox.submit({
    idempotencyKey: `test-mint:${randomUUID()}`,
    chain: 'main',
    signer: { address: key.address, account: key.account },
    to: partner.contractAddress,
    data: encodeFunctionData({ abi: cardNftAbi, functionName: 'mintBatch', args: [to, sendable] }),
  });
  const mined = await deps.outbox.waitForFinal(submitted.id);
  assert.equal(mined.receiptStatus, 'success');
  return { ...partner, mintTxHash: mined.txHash, partnerAddress: key.address };
}

export const BAPP = { name: 'Test BApp' };
