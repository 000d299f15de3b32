/** The CLI's commands that create and approve accounts (`partner create`, `user create`, …); command-table.ts names them. */
import { sha256Hex } from '../custody/passwords.ts';
import { approvePartner, CARD_CONTRACT_KINDS, createPartner, unlockPartnerPin } from '../partners/commands.ts';
import type { CardContractKind } from '../store/schema.ts';
import { assertPartnerProgramOpen } from '../partner-api/program-window.ts';
import { createUser, unlockMemberPin } from '../users/commands.ts';
import { assertStrongPassword, assertStrongPin } from '../accounts/secret-strength.ts';
import type { CliValues, Handler, Needs } from './handler.ts';
import { MAX_MINT_LIMIT } from './account-commands.ts';
import { required, sixDigitPin, UsageError, wholeNumber } from './options.ts';

/**
 * The password and PIN of a new account, in clear, refused when weak (4011, 4010) before
 * anything is written; returned as the SHA-256 hex the store keeps, as clients send them.
 */
function newAccountSecrets(values: CliValues, person: { email: string; name: string; birth?: string }) {
  const password = required(values, 'password');
  const pin = sixDigitPin(values);
  assertStrongPassword(password, person);
  assertStrongPin(pin, person);
  return { passwordHash: sha256Hex(password), pinHash: sha256Hex(pin) };
}

export const onboardingCommands = {
  'partner create': (async (services, values) => {
    // After partnerProgram.endsAt the program takes no new partners (error 440).
    assertPartnerProgramOpen(services.config);
    const email = required(values, 'email');
    const name = required(values, 'name');
    const partner = await createPartner(services, {
      email,
      ...newAccountSecrets(values, { email, name }),
      name,
      phone: required(values, 'phone'),
      serviceName: required(values, 'service-name'),
    });
    return { email: partner.email, status: partner.status, main_address: partner.main_address };
  }) satisfies Handler<Needs['services']>,
  'partner approve': (async (services, values) => {
    const mintLimit = values['mint-limit'];
    const cardContract = values['card-contract'];
    if (typeof cardContract === 'string' && !CARD_CONTRACT_KINDS.includes(cardContract as CardContractKind)) {
      throw new UsageError(`--card-contract must be one of ${CARD_CONTRACT_KINDS.join(', ')}`);
    }
    const approved = await approvePartner(services, {
      email: required(values, 'email'),
      ...(typeof mintLimit === 'string' ? { mintLimit: wholeNumber(mintLimit, 'mint-limit', MAX_MINT_LIMIT) } : {}),
      ...(typeof cardContract === 'string' ? { cardContract: cardContract as CardContractKind } : {}),
    });
    return {
      email: approved.partner.email,
      status: approved.partner.status,
      contract_address: approved.contractAddress,
      nft_id: approved.nftId,
      card_contract: approved.cardContract,
      mint_limit: approved.partner.mint_limit,
    };
  }) satisfies Handler<Needs['services']>,
  'partner unlock': (async (services, values) => {
    const partner = await unlockPartnerPin(services, required(values, 'email'));
    return { email: partner.email, pin_locked: false };
  }) satisfies Handler<Needs['services']>,
  'user create': (async (services, values) => {
    const name = required(values, 'name');
    const email = required(values, 'email');
    const birth = required(values, 'birth');
    const user = await createUser(services, {
      name,
      phone: required(values, 'phone'),
      email,
      ...newAccountSecrets(values, { email, name, birth }),
      birth,
    });
    return { email: user.email, main_address: user.main_address, evm_address: user.main_address };
  }) satisfies Handler<Needs['services']>,
  'user unlock': (async (services, values) => {
    const member = await unlockMemberPin(services, required(values, 'email'));
    return { email: member.email, pin_locked: false };
  }) satisfies Handler<Needs['services']>,
};
