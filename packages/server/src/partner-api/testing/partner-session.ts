import assert from 'node:assert/strict';
import type { App } from '../../app.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { KeyVault } from '../../custody/key-vault.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import type { Operator } from '../../operator/operator.ts';
import { buildApprovedPartner } from '../../testing/factories.ts';

/** An approved partner (card contract deployed) signed in through A1, with its access token. */
export async function signedInPartner(
  app: App,
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox; operator: Operator },
  overrides: Parameters<typeof buildApprovedPartner>[1] = {},
) {
  const built = await buildApprovedPartner(deps, overrides);
  const token = await signInToken(app, built.partner.email, built.passwordHash);
  return { ...built, token };
}

/** Signs in through A1 and returns the access token; fails the test on any other answer. */
export async function signInToken(app: App, email: string, passwordHash: string, remoteAddress = '127.0.0.1'): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/v2/partner/auth', payload: { email, password: passwordHash }, remoteAddress });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().access_token as string;
}
