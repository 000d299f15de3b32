import { encodeDeployData, type Address } from 'viem';
import { cardEscrowAbi, cardEscrowBytecode } from '@wallet-service/contracts';
import type { Store } from '../store/database.ts';
import type { TransactionOutbox } from '../outbox/outbox.ts';
import type { Operator } from './operator.ts';
import { readSetting, writeSettingOnce } from './store.ts';

/** The escrow contract of a chain, deployed by the operator the first time it is needed. */
export async function ensureEscrowContract(deps: { store: Store; outbox: TransactionOutbox; operator: Operator }, chainName: string): Promise<Address> {
  const settingKey = `escrow_address:${chainName}`;
  const known = await readSetting(deps.store.db, settingKey);
  if (known) return known as Address;
  const deployment = await deps.outbox.submit({
    idempotencyKey: `deploy-escrow:${chainName}`,
    chain: chainName,
    signer: await deps.operator.signer(),
    to: null,
    data: encodeDeployData({ abi: cardEscrowAbi, bytecode: cardEscrowBytecode, args: [deps.operator.address] }),
  });
  const mined = await deps.outbox.waitForFinal(deployment.id);
  if (mined.receiptStatus !== 'success' || !mined.contractAddress) {
    throw new Error(`escrow deployment ${mined.txHash} failed: ${mined.error ?? mined.receiptStatus}`);
  }
  return (await writeSettingOnce(deps.store.db, settingKey, mined.contractAddress)) as Address;
}
