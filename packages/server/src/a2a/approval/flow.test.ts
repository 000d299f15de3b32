import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ethers } from 'ethers';
import { encodeFunctionData, parseEther, type Address } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import type { App } from '../../app.ts';
import { deriveChainAddresses } from '../../custody/chain-addresses.ts';
import { openTestApp, type TestApp, type TestServices } from '../../testing/test-services.ts';
import { createServiceKey } from '../service-keys/commands.ts';
import {
  approveAs,
  BAPP,
  callFromOperator,
  deployFromOperator,
  finalResult,
  fixtureContracts,
  mintCards,
  openAs,
  prepareKey,
  result,
  signedInMember,
} from '../testing/support.ts';

/**
 * Every request type end to end through the real HTTP app, store and chain: prepare (B1), open in
 * the wallet-app API (requested), approve with the PIN, read the result (B3); signatures checked with
 * ethers, transfers and calls checked on chain.
 */
describe('App2App: every type from prepare to result', () => {
  let testApp: TestApp;
  let services: TestServices;
  let app: App;
  const recipient = ethers.Wallet.createRandom().address.toLowerCase() as Address;

  before(async () => {
    testApp = await openTestApp();
    ({ services, app } = testApp);
  });
  after(() => testApp?.cleanup());

  const chain = () => services.chains.get('main').client;

  /** Open as the member (requested), approve with the PIN, and return the approval answer. */
  async function confirm(member: { token: string; pin: string }, requestKey: string) {
    assert.deepEqual((await result(app, requestKey)).json().status, 'prepared');
    const opened = await openAs(app, member.token, requestKey);
    assert.equal(opened.statusCode, 200, opened.body);
    assert.equal(opened.json().status, 'requested');
    const seen = await result(app, requestKey);
    assert.equal(seen.statusCode, 200);
    assert.deepEqual(Object.keys(seen.json()).sort(), ['expiration_time', 'request_key', 'status']);
    assert.equal(seen.json().status, 'requested');
    return approveAs(app, member.token, requestKey, member.pin);
  }

  test('auth returns the member main, evm, bitcoin, solana, tron and xrpl addresses', async () => {
    const member = await signedInMember(app, services);
    const prepared = await app.inject({ method: 'POST', url: '/v2/a2a/prepare', payload: { bapp: BAPP, type: 'auth', chain: 'anything' } });
    assert.equal(prepared.statusCode, 200);
    const body = prepared.json();
    assert.match(body.request_key, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(body.status, 'prepared');
    const now = Math.floor(Date.now() / 1000);
    assert.ok(Math.abs(body.expiration_time - (now + 600)) <= 2, 'expiration_time is 600 s ahead');
    assert.deepEqual(Object.keys(body).sort(), ['expiration_time', 'request_key', 'status']);

    const approved = await confirm(member, body.request_key);
    assert.equal(approved.statusCode, 200, approved.body);
    const { mnemonic } = await services.vault.unlock(member.user.key_id, member.pinHash);
    const expected = {
      request_key: body.request_key,
      expiration_time: body.expiration_time,
      status: 'completed',
      result: { main_address: member.address, evm_address: member.address, ...deriveChainAddresses(mnemonic!) },
    };
    assert.deepEqual(approved.json(), expected);
    assert.deepEqual((await result(app, body.request_key)).json(), expected);
    assert.match(expected.result.bitcoin_address, /^bc1q[0-9a-z]{38}$/);
    assert.match(expected.result.tron_address, /^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    assert.match(expected.result.xrpl_address, /^r[1-9A-HJ-NP-Za-km-z]{24,34}$/);
  });

  test('auth with an operator-issued service_key carries ci_hash, an HMAC of the identity per service key', async () => {
    const member = await signedInMember(app, services, { name: 'Kim Identity' });
    const first = await createServiceKey(services.store.db, 'Partner A');
    const second = await createServiceKey(services.store.db, 'Partner B');
    const hashFor = async (serviceKey: string) => {
      const key = await prepareKey(app, { bapp: { ...BAPP, service_key: serviceKey }, type: 'auth' });
      const approved = await confirm(member, key);
      assert.equal(approved.statusCode, 200, approved.body);
      return approved.json().ci_hash as string;
    };
    const identity = `Kim Identity|${member.user.birth}|${member.user.phone}`;
    const independent = (serviceKey: string) => {
      const ciKey = createHmac('sha256', serviceKey).update('ci_hash key').digest();
      return createHmac('sha256', ciKey).update(identity).digest('hex');
    };
    const a = await hashFor(first.service_key);
    assert.equal(a, independent(first.service_key));
    assert.equal(await hashFor(first.service_key), a, 'stable for one service key');
    const b = await hashFor(second.service_key);
    assert.equal(b, independent(second.service_key));
    assert.notEqual(a, b, 'different per service key');
  });

  test('send_coin with from: estimated_gas at prepare, the coins arrive, result pending then success', async () => {
    const member = await signedInMember(app, services, { coins: '3' });
    const prepared = await app.inject({
      method: 'POST',
      url: '/v2/a2a/prepare',
      payload: { bapp: BAPP, type: 'send_coin', transaction: { from: member.address, to: recipient, amount: '1.25' } },
    });
    assert.equal(prepared.statusCode, 200, prepared.body);
    assert.equal(prepared.json().estimated_gas, 26_250, '21000 with the outbox headroom');
    const key = prepared.json().request_key;
    const before = await chain().getBalance({ address: recipient });
    const approved = await confirm(member, key);
    assert.equal(approved.statusCode, 200, approved.body);
    assert.equal(approved.json().status, 'completed');
    assert.match(approved.json().result.tx_hash, /^0x[0-9a-f]{64}$/);
    assert.ok(['pending', 'success'].includes(approved.json().result.status));
    const final = await finalResult(app, key);
    assert.deepEqual(final.result, { tx_hash: approved.json().result.tx_hash, status: 'success' });
    assert.equal(await chain().getBalance({ address: recipient }), before + parseEther('1.25'));
    const transaction = await chain().getTransaction({ hash: final.result.tx_hash });
    assert.equal(transaction.from.toLowerCase(), member.address);
  });

  test('send_token converts whole tokens by decimals(); the all-zero contract sends the native coin', async () => {
    const { token } = fixtureContracts();
    const member = await signedInMember(app, services, { coins: '1' });
    const contract = await deployFromOperator(services, token, ['Six', 'SIX', 6, 1_000_000_000n]);
    await callFromOperator(services, contract, encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [member.address, 10_000_000n] }));

    const key = await prepareKey(app, { bapp: BAPP, type: 'send_token', transaction: { contract, to: recipient, amount: '1.5', from: member.address } });
    const approved = await confirm(member, key);
    assert.equal(approved.statusCode, 200, approved.body);
    assert.equal((await finalResult(app, key)).result.status, 'success');
    const balanceOf = (owner: Address) => chain().readContract({ address: contract, abi: token.abi, functionName: 'balanceOf', args: [owner] });
    assert.equal(await balanceOf(recipient), 1_500_000n);
    assert.equal(await balanceOf(member.address), 8_500_000n);

    // Prepared while the balance covered it, approved after it no longer does: 6412, as at prepare.
    const tooMuch = await prepareKey(app, { bapp: BAPP, type: 'send_token', transaction: { contract, to: recipient, amount: '8', from: member.address } });
    const spent = await prepareKey(app, { bapp: BAPP, type: 'send_token', transaction: { contract, to: recipient, amount: '1' } });
    assert.equal((await confirm(member, spent)).statusCode, 200);
    assert.equal((await finalResult(app, spent)).result.status, 'success');
    const refused = await confirm(member, tooMuch);
    assert.deepEqual([refused.statusCode, refused.json().status, refused.json().error.code], [400, 'error', 6412]);
    assert.equal(await balanceOf(member.address), 7_500_000n, 'nothing more was sent');

    const before = await chain().getBalance({ address: recipient });
    const native = await prepareKey(app, {
      bapp: BAPP,
      type: 'send_token',
      transaction: { contract: '0x0000000000000000000000000000000000000000', to: recipient, amount: '0.000000000000000007' },
    });
    assert.equal((await confirm(member, native)).statusCode, 200);
    assert.equal((await finalResult(app, native)).result.status, 'success');
    assert.equal(await chain().getBalance({ address: recipient }), before + 7n);
  });

  test('send_card moves a CardNFT card from the member to the recipient', async () => {
    const member = await signedInMember(app, services, { coins: '1' });
    const minted = await mintCards(services, [member.address, member.address]);
    const key = await prepareKey(app, { bapp: BAPP, type: 'send_card', transaction: { contract: minted.contractAddress, to: recipient, card_id: '2' } });
    const approved = await confirm(member, key);
    assert.equal(approved.statusCode, 200, approved.body);
    assert.equal((await finalResult(app, key)).result.status, 'success');
    const ownerOf = (id: bigint) => chain().readContract({ address: minted.contractAddress, abi: cardNftAbi, functionName: 'ownerOf', args: [id] });
    assert.equal((await ownerOf(2n)).toLowerCase(), recipient);
    assert.equal((await ownerOf(1n)).toLowerCase(), member.address);
  });

  test('execute_contract with abi and tuple params, and with encoded_function_call and value', async () => {
    const { target } = fixtureContracts();
    const member = await signedInMember(app, services, { coins: '2' });
    const contract = await deployFromOperator(services, target);
    const placeAbi = JSON.stringify(target.abi.find((item) => item.type === 'function' && item.name === 'place'));
    const key = await prepareKey(app, {
      bapp: BAPP,
      type: 'execute_contract',
      transaction: {
        to: contract,
        value: '0',
        abi: placeAbi,
        params: JSON.stringify([{ buyer: recipient, amount: '42', memo: 'hello' }, 1]),
        from: member.address,
      },
    });
    assert.equal((await confirm(member, key)).statusCode, 200);
    assert.equal((await finalResult(app, key)).result.status, 'success');
    const last = await chain().readContract({ address: contract, abi: target.abi, functionName: 'lastOrder' });
    assert.deepEqual(last, [ethers.getAddress(recipient), 42n, 'hello']);

    const encoded = encodeFunctionData({ abi: target.abi, functionName: 'add', args: [5n] });
    const payable = await prepareKey(app, {
      bapp: BAPP,
      type: 'execute_contract',
      transaction: { to: contract, value: parseEther('0.5').toString(), encoded_function_call: encoded },
    });
    assert.equal((await confirm(member, payable)).statusCode, 200);
    assert.equal((await finalResult(app, payable)).result.status, 'success');
    assert.equal(await chain().readContract({ address: contract, abi: target.abi, functionName: 'paid', args: [member.address] }), parseEther('0.5'));
    assert.equal(await chain().readContract({ address: contract, abi: target.abi, functionName: 'total' }), 47n);
  });

  test('sign_message: keccak256(chain prefix + byte length + message), v 27 or 28, text and hex', async () => {
    const member = await signedInMember(app, services);
    const prefix = services.chains.get('main').messagePrefix;
    for (const [value, isHex, bytes] of [
      ['Hello, wallet ✓', false, ethers.toUtf8Bytes('Hello, wallet ✓')],
      ['0xdeadbeef00', true, ethers.getBytes('0xdeadbeef00')],
    ] as const) {
      const key = await prepareKey(app, { bapp: BAPP, type: 'sign_message', message: { value, is_hex_encoded: isHex, from: member.address } });
      const approved = await confirm(member, key);
      assert.equal(approved.statusCode, 200, approved.body);
      const { signature, hash } = approved.json().result;
      const expectedHash = ethers.keccak256(ethers.concat([ethers.toUtf8Bytes(prefix), ethers.toUtf8Bytes(String(bytes.length)), bytes]));
      assert.equal(hash, expectedHash);
      assert.equal(ethers.recoverAddress(hash, signature).toLowerCase(), member.address);
      assert.ok([27, 28].includes(ethers.Signature.from(signature).v));
      assert.ok(['1b', '1c'].includes(signature.slice(-2)));
    }
  });

  test('sign_message_eip191: the standard personal-sign digest, text and hex', async () => {
    const member = await signedInMember(app, services);
    for (const [value, isHex, message] of [
      ['Sign in to Test BApp', false, 'Sign in to Test BApp'],
      ['0x48656c6c6f', true, ethers.getBytes('0x48656c6c6f')],
    ] as const) {
      const key = await prepareKey(app, { bapp: BAPP, type: 'sign_message_eip191', message: { value, is_hex_encoded: isHex } });
      const approved = await confirm(member, key);
      assert.equal(approved.statusCode, 200, approved.body);
      const { signature, hash } = approved.json().result;
      assert.equal(ethers.verifyMessage(message, signature).toLowerCase(), member.address);
      assert.equal(hash, ethers.hashMessage(message));
      assert.ok(['1b', '1c'].includes(signature.slice(-2)));
    }
  });

  test('sign_typedData_v4: EIP-712 signature and digest', async () => {
    const member = await signedInMember(app, services);
    const typed = {
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        Person: [
          { name: 'name', type: 'string' },
          { name: 'wallet', type: 'address' },
        ],
        Mail: [
          { name: 'from', type: 'Person' },
          { name: 'to', type: 'Person' },
          { name: 'contents', type: 'string' },
          { name: 'amount', type: 'uint256' },
        ],
      },
      primaryType: 'Mail',
      domain: { name: 'Ether Mail', version: '1', chainId: 31337, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
      message: {
        from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
        to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
        contents: 'Hello, Bob!',
        amount: '1000000000000000000000',
      },
    };
    const key = await prepareKey(app, { bapp: BAPP, type: 'sign_typedData_v4', message: { value: JSON.stringify(typed) } });
    const approved = await confirm(member, key);
    assert.equal(approved.statusCode, 200, approved.body);
    const { signature, hash } = approved.json().result;
    assert.deepEqual(Object.keys(approved.json().result).sort(), ['hash', 'signature']);
    const { EIP712Domain: _domain, ...types } = typed.types;
    assert.equal(ethers.verifyTypedData(typed.domain, types, typed.message, signature).toLowerCase(), member.address);
    assert.equal(hash, ethers.TypedDataEncoder.hash(typed.domain, types, typed.message));
  });
});

