import type { Db } from '../store/database.ts';
import { openValue, sealValue } from './envelope.ts';
import type { KeyVault } from './key-vault.ts';
import { findClaimSecretsNotUnder, findWebhookSecretsNotUnder, replaceClaimSecret, replaceWebhookSecrets, type StoredWebhookSecrets } from './store.ts';

/** Where a webhook endpoint's sealed secret belongs (the AAD of its seal): a sealed value copied elsewhere does not open. */
export function webhookSecretContext(endpointId: string, column: 'secret' | 'previous_secret'): string {
  return `webhook_endpoints.${column}:${endpointId}`;
}

/** Where the sealed secret of an escrow claim belongs (the AAD of its seal). */
export function claimSecretContext(claimId: string): string {
  return `escrow_claims.sealed_secret:${claimId}`;
}

/**
 * Seals again, under the master key `toId`, the claim secrets of up to `limit` keyed escrow
 * deposits sealed under another key; a secret wiped meanwhile is left alone. How many were found and moved.
 */
export async function moveClaimSecrets(deps: { db: Db; vault: Pick<KeyVault, 'masterKey'> }, toId: string, limit: number): Promise<{ found: number; moved: number }> {
  const rows = await findClaimSecretsNotUnder(deps.db, toId, limit);
  const to = await deps.vault.masterKey(toId);
  let moved = 0;
  for (const row of rows) {
    const context = claimSecretContext(row.id);
    const secret = openValue(await deps.vault.masterKey(row.secret_master_key_id), row.sealed_secret, context);
    if (await replaceClaimSecret(deps.db, row, { sealed_secret: sealValue(to, secret, context), secret_master_key_id: toId })) moved += 1;
  }
  return { found: rows.length, moved };
}

/**
 * Seals again, under the master key `toId`, the webhook secrets of up to `limit` endpoints sealed
 * under another key or still in clear (rows from before migration 018): each row is one guarded
 * update, so a secret rotated meanwhile is left for the next pass. With `inClearOnly`, only secrets
 * in clear. How many rows were found and how many moved.
 */
export async function moveWebhookSecrets(
  deps: { db: Db; vault: Pick<KeyVault, 'masterKey'> },
  toId: string,
  limit: number,
  options: { inClearOnly?: boolean } = {},
): Promise<{ found: number; moved: number }> {
  const rows = await findWebhookSecretsNotUnder(deps.db, options.inClearOnly ? null : toId, limit);
  const to = await deps.vault.masterKey(toId);
  let moved = 0;
  for (const row of rows) {
    const open = async (sealed: string, column: 'secret' | 'previous_secret') =>
      row.secret_master_key_id === null ? sealed : openValue(await deps.vault.masterKey(row.secret_master_key_id), sealed, webhookSecretContext(row.id, column));
    const next: Omit<StoredWebhookSecrets, 'id'> = {
      secret: sealValue(to, await open(row.secret, 'secret'), webhookSecretContext(row.id, 'secret')),
      previous_secret: row.previous_secret === null ? null : sealValue(to, await open(row.previous_secret, 'previous_secret'), webhookSecretContext(row.id, 'previous_secret')),
      secret_master_key_id: toId,
    };
    if (await replaceWebhookSecrets(deps.db, row, next)) moved += 1;
  }
  return { found: rows.length, moved };
}

/** Seals the webhook secrets still in clear (a store from before migration 018) under the master key in force: run at start. How many. */
export async function sealWebhookSecretsInClear(deps: { db: Db; vault: Pick<KeyVault, 'masterKey' | 'sealValues'> }, batchSize = 100): Promise<number> {
  const { masterKeyId } = await deps.vault.sealValues([]);
  let sealed = 0;
  for (;;) {
    const { found, moved } = await moveWebhookSecrets(deps, masterKeyId, batchSize, { inClearOnly: true });
    sealed += moved;
    if (found === 0 || moved === 0) return sealed;
  }
}
