import { encodeDeployData, type Address } from 'viem';
import { cardEscrowAbi, cardEscrowBytecode } from '@wallet-service/contracts';
import type { Services } from '../services.ts';
import { readSetting, writeSettingOnce } from './operator.ts';

/** The escrow contract of a chain, deployed by the operator the first time it is needed. */
export async function ensureEscrowContract(services: Services, chainName: string): Promise<Address> {
  const settingKey = `escrow_address:${chainName}`;
  const known = await readSetting(services.store.db, settingKey);
  if (known) return known as Address;
  const deployment = await services.outbox.submit({
    idempotencyKey: `deploy-escrow:${chainName}`,
    chain: chainName,
    signer: await services.operator.signer(),
    to: null,
    data: encodeDeployData({ abi: cardEscrowAbi, bytecode: cardEscrowBytecode, args: [services.operator.address] }),
  });
  const mined = await services.outbox.waitForFinal(deployment.id);
  if (mined.receiptStatus !== 'success' || !mined.contractAddress) {
    throw new Error(`escrow deployment ${mined.txHash} failed: ${mined.error ?? mined.receiptStatus}`);
  }
  return (await writeSettingOnce(services.store.db, settingKey, mined.contractAddress)) as Address;
}
