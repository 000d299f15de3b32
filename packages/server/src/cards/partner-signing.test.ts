import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cardEscrowAbi, cardNftAbi } from '@wallet-service/contracts';
import { encodeFunctionData, type Address } from 'viem';
import { AppError } from '../errors/app-error.ts';
import { buildApprovedPartner } from '../testing/factories.ts';
import { openTestServices, type TestServices } from '../testing/test-services.ts';
import { buildAddresses } from './testing/card-factories.ts';
import { partnerCardContract, transactionRefusalError } from './partner-signing.ts';
import { Errors } from '../errors/codes.ts';

let services: TestServices;
before(async () => {
  services = await openTestServices();
});
after(async () => {
  await services.cleanup();
});

/** What the service answers when the outbox refuses a partner transaction that would revert now. */
async function refusalOf(to: Address, data: `0x${string}`): Promise<AppError> {
  const partner = await buildApprovedPartner(services);
  const key = await services.vault.unlock(partner.partner.key_id, partner.pinHash);
  try {
    await services.outbox.submit({ idempotencyKey: `test-revert:${Date.now()}:${Math.random()}`, chain: 'main', signer: { address: key.address, account: key.account }, to: to === '0x0' ? partner.contractAddress : to, data });
  } catch (error) {
    const answer = transactionRefusalError(error);
    assert.ok(answer instanceof AppError, String(error));
    return answer;
  }
  throw new Error('the outbox stored a transaction that reverts');
}

test('a card transaction that would revert is refused naming the contract error, with no raw revert data', async () => {
  const [stranger] = buildAddresses(1) as [Address];
  // The partner sends a card it does not hold (token 1 was never minted): the contract's custom error.
  const refused = await refusalOf('0x0', encodeFunctionData({ abi: cardNftAbi, functionName: 'transferFrom', args: [stranger, stranger, 1n] }));
  assert.equal(refused.code, 400);
  assert.match(refused.detail!, /^the transaction would revert: ERC721[A-Za-z]+\(/);
  assert.doesNotMatch(refused.detail!, /[\u0000-\u001f]/);
  assert.doesNotMatch(refused.detail!, /custom error|0x[0-9a-f]{72,}/i);

  // The escrow's own errors are named too.
  const escrow = (await services.chains.get('main').client.readContract({ address: (await buildApprovedPartner(services)).contractAddress, abi: cardNftAbi, functionName: 'escrow' })) as Address;
  const escrowRefusal = await refusalOf(escrow, encodeFunctionData({ abi: cardEscrowAbi, functionName: 'deposit', args: [stranger, [1n], []] }));
  assert.equal(escrowRefusal.detail, 'the transaction would revert: LengthMismatch(1, 0)');
});

test("a partner's deployed contract is read from the store once per process; a contract not found is read again", async () => {
  const { partner, contractAddress } = await buildApprovedPartner(services);
  // The store's db, counting the reads of nft_contracts.
  let reads = 0;
  const db = new Proxy(services.store.db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'selectFrom') return value;
      return (table: string) => {
        if (table === 'nft_contracts') reads += 1;
        return (value as (table: string) => unknown).call(target, table);
      };
    },
  });
  const deps = { store: { db } };
  const first = await partnerCardContract(deps, partner);
  const again = await partnerCardContract(deps, { ...partner, contract_address: contractAddress.toUpperCase().replace('0X', '0x') });
  assert.equal(first.address, contractAddress.toLowerCase());
  assert.deepEqual(again, first);
  assert.equal(reads, 1);

  const [other] = buildAddresses(1) as [Address];
  for (let call = 0; call < 2; call++) {
    await assert.rejects(partnerCardContract(deps, { ...partner, contract_address: other }), (error: AppError) => error.code === Errors.NoContractAddress);
  }
  assert.equal(reads, 3);
});
