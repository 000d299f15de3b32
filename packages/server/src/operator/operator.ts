import { parseEther, toHex, type Address } from 'viem';
import type { ChainRegistry } from '../chain/chains.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import type { Db } from '../store/database.ts';
import type { TransactionSigner } from '../outbox/outbox.ts';
import { deleteSigningKey, findSigningKey, readSetting, writeSettingOnce } from './store.ts';

/** The service's own account: deploys contracts, funds partners, pays for claims. */
export interface Operator {
  keyId: string;
  address: Address;
  /** Unlocks the operator key (server-protected: no PIN). */
  signer(): Promise<TransactionSigner>;
}

const OPERATOR_KEY_SETTING = 'operator_key_id';

/**
 * Creates the operator key on first start. Two processes starting together may both create one;
 * the setting row decides which one is the operator and the other is deleted.
 */
export async function ensureOperator(db: Db, vault: KeyVault): Promise<Operator> {
  let keyId = await readSetting(db, OPERATOR_KEY_SETTING);
  if (!keyId) {
    const created = await vault.createKey({
      ownerType: 'operator',
      ownerId: 'operator',
      protection: 'server',
      secretKind: 'private_key',
    });
    keyId = await writeSettingOnce(db, OPERATOR_KEY_SETTING, created.keyId);
    if (keyId !== created.keyId) await deleteSigningKey(db, created.keyId);
  }
  const row = await findSigningKey(db, keyId);
  const id = row.id;
  return {
    keyId: id,
    address: row.address as Address,
    async signer() {
      const unlocked = await vault.unlock(id);
      return { address: unlocked.address, account: unlocked.account };
    },
  };
}

/** On embedded nodes the operator is given coins directly, topped up at each start. */
export async function fundOperatorOnManagedChains(chains: ChainRegistry, operator: Operator, coins: number): Promise<void> {
  const target = parseEther(String(coins));
  await Promise.all(
    chains
      .all()
      .filter((chain) => chain.managed)
      .map(async (chain) => {
        const balance = await chain.client.getBalance({ address: operator.address });
        if (balance >= target / 2n) return;
        await chain.client.request({
          method: 'anvil_setBalance' as never,
          params: [operator.address, toHex(target)] as never,
        });
      }),
  );
}
