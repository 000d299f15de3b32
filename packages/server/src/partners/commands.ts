import { randomUUID } from 'node:crypto';
import { cardBaseUri } from '../cards/card-uri.ts';
import { encodeDeployData, parseEther, type Address } from 'viem';
import { cardNftAbi, cardNftBytecode, leanCardNftBytecode } from '@wallet-service/contracts';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/database.ts';
import type { KeyVault } from '../custody/key-vault.ts';
import type { ChainRegistry } from '../chain/chains.ts';
import type { TransactionOutbox } from '../outbox/outbox.ts';
import type { Operator } from '../operator/operator.ts';
import { AppError } from '../errors/app-error.ts';
import { hashPassword } from '../custody/passwords.ts';
import { epochSeconds, isUniqueViolation } from '../store/database.ts';
import type { CardContractKind, PartnerRow } from '../store/schema.ts';
import { normalizePhone } from '../lib/phone.ts';
import { ensureEscrowContract } from '../operator/escrow.ts';
import { monthKey } from '../lib/time.ts';
import { Errors } from '../errors/codes.ts';
import * as store from './store.ts';

export const PARTNER_STATUS = { approved: 1, pending: 20, banned: 421, suspended: 422, unsubscribed: 423 } as const;

export interface CreatePartnerInput {
  email: string;
  /** SHA-256 hex of the password, as clients send it. */
  passwordHash: string;
  /** SHA-256 hex of the PIN. */
  pinHash: string;
  name: string;
  phone: string;
  serviceName: string;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Registers a partner awaiting approval (status 20), with a PIN-protected signing key. */
export async function createPartner(deps: { config: Readonly<Config>; store: Store; vault: KeyVault }, input: CreatePartnerInput): Promise<PartnerRow> {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email)) throw new AppError(Errors.BadRequest, { detail: 'email is not valid' });
  if (!SHA256_HEX.test(input.passwordHash) || !SHA256_HEX.test(input.pinHash)) {
    throw new AppError(Errors.BadRequest, { detail: 'password and pin must be 64-character SHA-256 hex' });
  }
  if (!input.name.trim() || !input.serviceName.trim()) throw new AppError(Errors.BadRequest, { detail: 'name and service name are required' });
  const phone = normalizePhone(input.phone, deps.config.phoneDefaultCountry);
  if (!phone) throw new AppError(Errors.BadRequest, { detail: 'phone is not a valid phone number' });
  const db = deps.store.db;
  if (await store.findPartnerByEmail(db, email)) throw new AppError(Errors.EmailTaken);

  const id = randomUUID();
  const passwordHash = await hashPassword(input.passwordHash, deps.config.custody.scryptCost);
  const now = epochSeconds();
  return db.transaction().execute(async (trx) => {
    const key = await deps.vault.createKey(
      { ownerType: 'partner', ownerId: id, protection: 'pin', secretKind: 'private_key', pin: input.pinHash },
      trx,
    );
    const row: PartnerRow = {
      id,
      email,
      password_hash: passwordHash,
      name: input.name.trim(),
      phone,
      service_name: input.serviceName.trim(),
      status: PARTNER_STATUS.pending,
      mint_limit: deps.config.partners.defaultMintLimit,
      mint_count: 0,
      mint_period: monthKey(new Date(), deps.config.timeZone),
      key_id: key.keyId,
      main_address: key.address,
      contract_address: null,
      nft_id: null,
      token_version: 0,
      created_at: now,
      updated_at: now,
    };
    try {
      await store.insertPartner(trx, row);
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError(Errors.EmailTaken);
      throw error;
    }
    return row;
  });
}

export interface ApprovedPartner {
  partner: PartnerRow;
  contractAddress: Address;
  nftId: number;
  cardContract: CardContractKind;
}

export const CARD_CONTRACT_KINDS: readonly CardContractKind[] = ['indexed', 'lean'];

// Both contracts have the same ABI (functions, events, errors), so only the deployment differs.
const cardContractBytecode = { indexed: cardNftBytecode, lean: leanCardNftBytecode } as const satisfies Record<CardContractKind, `0x${string}`>;

/**
 * Approves a partner: deploys its card contract (operator-paid), funds its account so it can pay
 * for mints, and sets status 1. Every step is idempotent, so an interrupted approval is finished
 * by running it again.
 */
export async function approvePartner(
  deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry; outbox: TransactionOutbox; operator: Operator },
  input: { email: string; mintLimit?: number; chain?: string; cardContract?: CardContractKind },
): Promise<ApprovedPartner> {
  const db = deps.store.db;
  const chain = deps.chains.get(input.chain ?? 'main');
  const partner = await findPartnerByEmail(deps, input.email);
  if (input.mintLimit !== undefined && (!Number.isInteger(input.mintLimit) || input.mintLimit < 0)) {
    throw new AppError(Errors.BadRequest, { detail: 'mint limit must be a whole number' });
  }
  if (input.cardContract !== undefined && !CARD_CONTRACT_KINDS.includes(input.cardContract)) {
    throw new AppError(Errors.BadRequest, { detail: `card contract must be one of ${CARD_CONTRACT_KINDS.join(', ')}` });
  }
  const existing = await store.findPartnerContract(db, partner.id);
  // The kind is chosen once: a deployment under way or done is never switched to the other kind.
  if (existing && input.cardContract !== undefined && existing.kind !== input.cardContract) {
    throw new AppError(Errors.BadRequest, { detail: `the partner's card contract is already ${existing.kind}` });
  }
  const escrow = await ensureEscrowContract(deps, chain.name);

  const contract =
    existing ??
    (await store.insertPartnerContract(db, {
      chain: chain.name,
      partnerId: partner.id,
      name: partner.service_name,
      symbol: symbolOf(partner.service_name),
      kind: input.cardContract ?? 'indexed',
      deployOutboxId: `deploy-card-contract:${partner.id}`,
      now: epochSeconds(),
    }));
  const nftId = contract.id;
  const operator = await deps.operator.signer();
  const deployment = await deps.outbox.submit({
    idempotencyKey: contract.deploy_outbox_id,
    chain: chain.name,
    signer: operator,
    to: null,
    data: encodeDeployData({
      abi: cardNftAbi,
      bytecode: cardContractBytecode[contract.kind],
      args: [contract.name, contract.symbol, cardBaseUri(deps.config.publicUrl, nftId), partner.main_address as Address, escrow],
    }),
  });
  const funding =
    deps.config.operator.partnerFundingCoins > 0
      ? await deps.outbox.submit({
          idempotencyKey: `fund-partner:${partner.id}:${chain.name}`,
          chain: chain.name,
          signer: operator,
          to: partner.main_address as Address,
          value: parseEther(String(deps.config.operator.partnerFundingCoins)),
        })
      : undefined;
  const mined = await deps.outbox.waitForFinal(deployment.id);
  if (mined.status !== 'mined' || mined.receiptStatus !== 'success' || !mined.contractAddress) {
    throw new Error(`card contract deployment ${mined.txHash} failed: ${mined.error ?? mined.receiptStatus}`);
  }
  if (funding) await deps.outbox.waitForFinal(funding.id);
  const contractAddress = mined.contractAddress;
  await store.setContractAddress(db, nftId, contractAddress);
  await store.markPartnerApproved(db, {
    id: partner.id,
    status: PARTNER_STATUS.approved,
    contractAddress,
    nftId,
    ...(input.mintLimit !== undefined ? { mintLimit: input.mintLimit } : {}),
    now: epochSeconds(),
  });
  return { partner: await findPartnerByEmail(deps, partner.email), contractAddress, nftId, cardContract: contract.kind };
}

/** Operator unlock after five wrong PINs. */
export async function unlockPartnerPin(deps: { store: Store; vault: KeyVault }, email: string): Promise<PartnerRow> {
  const partner = await findPartnerByEmail(deps, email);
  await deps.vault.resetPinFailures(partner.key_id);
  return partner;
}

export async function findPartnerByEmail(deps: { store: Store }, email: string): Promise<PartnerRow> {
  const partner = await store.findPartnerByEmail(deps.store.db, email.trim().toLowerCase());
  if (!partner) throw new AppError(Errors.UserNotFound);
  return partner;
}

function symbolOf(serviceName: string): string {
  const letters = serviceName.replace(/[^A-Za-z0-9]/g, '').toUpperCase().slice(0, 8);
  return letters || 'CARD';
}
