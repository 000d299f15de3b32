import type { KeyVault } from '../custody/key-vault.ts';
import { webhookSecretContext } from '../custody/sealed-values.ts';
import type { WebhookEndpointRow } from '../store/schema.ts';

/** The secret columns of an endpoint row: both secrets sealed under the master key (custody/sealed-values.ts). */
export async function sealedSecretColumns(
  deps: { vault: Pick<KeyVault, 'sealValues'> },
  endpointId: string,
  secrets: { secret: string; previous: string | null },
): Promise<Pick<WebhookEndpointRow, 'secret' | 'previous_secret' | 'secret_master_key_id'>> {
  const values = [{ value: secrets.secret, context: webhookSecretContext(endpointId, 'secret') }];
  if (secrets.previous !== null) values.push({ value: secrets.previous, context: webhookSecretContext(endpointId, 'previous_secret') });
  const { masterKeyId, sealed } = await deps.vault.sealValues(values);
  return { secret: sealed[0]!, previous_secret: sealed[1] ?? null, secret_master_key_id: masterKeyId };
}

/**
 * The secrets a message to the endpoint is signed with at `nowMs`: its secret, and the one before
 * the last rotation until its overlap ends. A row still in clear (before the start that seals it) is read as it is.
 */
export async function signingSecrets(deps: { vault: Pick<KeyVault, 'openValue'> }, endpoint: WebhookEndpointRow, nowMs: number): Promise<string[]> {
  const open = (sealed: string, column: 'secret' | 'previous_secret') =>
    endpoint.secret_master_key_id === null ? Promise.resolve(sealed) : deps.vault.openValue(endpoint.secret_master_key_id, sealed, webhookSecretContext(endpoint.id, column));
  const secrets = [await open(endpoint.secret, 'secret')];
  if (endpoint.previous_secret !== null && previousSecretExpiresAt(endpoint, nowMs) !== null) secrets.push(await open(endpoint.previous_secret, 'previous_secret'));
  return secrets;
}

/** Until when the secret before the last rotation still signs (epoch ms); null when there is none or its time is over. */
export function previousSecretExpiresAt(endpoint: Pick<WebhookEndpointRow, 'previous_secret' | 'previous_secret_until_ms'>, nowMs: number): number | null {
  if (endpoint.previous_secret === null || endpoint.previous_secret_until_ms === null) return null;
  const until = Number(endpoint.previous_secret_until_ms);
  return until > nowMs ? until : null;
}
