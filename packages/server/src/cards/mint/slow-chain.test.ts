import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Address } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import { openTestApp, type TestApp } from '../../testing/test-services.ts';
import { signedInPartner } from '../../partner-api/testing/partner-session.ts';
import { buildAddresses, buildMintPayload, partnerCall } from '../testing/card-factories.ts';
import { recoverMintBatches } from './recovery.ts';
import { setAutomine as setMainAutomine } from '../../chain/testing/automine.ts';

// Calls wait one second for their transactions to be mined.
let t: TestApp;
before(async () => {
  t = await openTestApp({ cards: { confirmTimeoutMs: 1_000 } });
});
after(async () => {
  await t.cleanup();
});

const setAutomine = (on: boolean) => setMainAutomine(t.services.chains.get('main'), on);

test('a chain that does not mine in time: 503, not a hang; the mint and the send finish later and count', async () => {
  const partner = await signedInPartner(t.app, t.services);
  const own = partner.partner.main_address as Address;
  const first = await partnerCall(t.app, partner.token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { to_address: [own] }));
  assert.equal(first.statusCode, 200, first.body);

  await setAutomine(false);
  try {
    const recipients = buildAddresses(2);
    const mint = await partnerCall(t.app, partner.token, 'POST', '/v2/wallet/mint', buildMintPayload(partner, { to_address: recipients }));
    assert.equal(mint.statusCode, 503, mint.body);
    assert.deepEqual(mint.json(), { code: 503, err: 'service unavailable' });
    const send = await partnerCall(t.app, partner.token, 'POST', `/v2/wallet/nft/${partner.nftId}/1/send`, {
      pin: partner.pinHash,
      to_address: recipients[0],
      card_name: 'Gold',
    });
    assert.deepEqual(send.json(), { code: 503, err: 'service unavailable' });
  } finally {
    await setAutomine(true);
  }
  await t.services.chains.get('main').client.request({ method: 'evm_mine' as never, params: [] as never });

  // The outbox records the receipts; the recovery pass then settles the mint and it counts.
  const deadline = Date.now() + 15_000;
  let settled = { minted: 0, failed: 0 };
  while (settled.minted === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    settled = await recoverMintBatches(t.services);
  }
  assert.deepEqual(settled, { minted: 1, failed: 0 });
  const count = await partnerCall(t.app, partner.token, 'GET', '/v2/wallet/mint/count');
  assert.equal(count.json().mint_count, 3);
  const metadata = await t.app.inject({ method: 'GET', url: `/v2/metadata/${partner.nftId}/3` });
  assert.equal(metadata.statusCode, 200, metadata.body);
  const owner = await t.services.chains.get('main').client.readContract({
    address: partner.contractAddress as Address,
    abi: cardNftAbi,
    functionName: 'ownerOf',
    args: [1n],
  });
  assert.notEqual(owner.toLowerCase(), own, 'the send went through once mined');
});
