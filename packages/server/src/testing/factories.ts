import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../custody/passwords.ts';
import { approvePartner, createPartner } from '../partners/commands.ts';
import { createUser } from '../users/commands.ts';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/database.ts';
import type { CardContractKind } from '../store/schema.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import type { ChainRegistry } from '../chain/chains.ts';
import type { TransactionOutbox } from '../outbox/outbox.ts';
import type { Operator } from '../operator/operator.ts';

let sequence = 0;
function unique(): string {
  sequence += 1;
  return `${Date.now().toString(36)}${sequence}${randomBytes(2).toString('hex')}`;
}

/** A phone number valid in the default country (US), distinct per call. */
export function buildPhone(): string {
  return `+1415555${String(1000 + (Math.floor(Math.random() * 9000) % 9000)).slice(-4)}`;
}

/** Creates a partner (status 20). Returns the clear password and PIN with it. */
export async function buildPartner(deps: { config: Readonly<Config>; store: Store; vault: KeyVault }, overrides: { email?: string; pin?: string; password?: string } = {}) {
  const password = overrides.password ?? `password-${unique()}`;
  const pin = overrides.pin ?? '123456';
  const partner = await createPartner(deps, {
    email: overrides.email ?? `partner-${unique()}@example.com`,
    passwordHash: sha256Hex(password),
    pinHash: sha256Hex(pin),
    name: 'Example Partner Ltd',
    phone: buildPhone(),
    serviceName: 'Example Cards',
  });
  return { partner, password, pin, pinHash: sha256Hex(pin), passwordHash: sha256Hex(password) };
}

/** Creates and approves a partner: its card contract is deployed. */
export async function buildApprovedPartner(deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox; operator: Operator }, overrides: { mintLimit?: number; cardContract?: CardContractKind } = {}) {
  const built = await buildPartner(deps);
  const approved = await approvePartner(deps, { email: built.partner.email, ...overrides });
  return { ...built, ...approved };
}

/** Creates a wallet member. */
export async function buildUser(deps: { config: Readonly<Config>; store: Store; vault: KeyVault }, overrides: { name?: string; phone?: string; pin?: string } = {}) {
  const password = `password-${unique()}`;
  const pin = overrides.pin ?? '654321';
  const user = await createUser(deps, {
    name: overrides.name ?? `Member ${unique()}`,
    phone: overrides.phone ?? buildPhone(),
    email: `member-${unique()}@example.com`,
    passwordHash: sha256Hex(password),
    pinHash: sha256Hex(pin),
    birth: '1990-05-17',
  });
  return { user, password, pin, pinHash: sha256Hex(pin) };
}
