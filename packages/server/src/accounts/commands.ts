import { recordOperatorAction, type OperatorAction } from '../audit/store.ts';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';
import { epochSeconds, type Db } from '../store/database.ts';
import { normalizePhone } from '../lib/phone.ts';
import { findAccount, searchAccounts, updateAccount, type AccountKind, type AccountRow } from './store.ts';

/**
 * The statuses the operator sets, as the store keeps them: the code an account in that status is
 * refused with (A1 and the partner API for partners; member sign-in, and 6501 on approvals).
 */
export const ACCOUNT_STATUS = { active: 1, banned: 421, suspended: 422, unsubscribed: 423 } as const;
export type AccountStatusName = keyof typeof ACCOUNT_STATUS;
const PARTNER_PENDING = 20;

export function statusName(status: number): string {
  if (status === PARTNER_PENDING) return 'pending';
  return (Object.entries(ACCOUNT_STATUS).find(([, code]) => code === status)?.[0] ?? `unknown (${status})`) as string;
}

/** How an account is named on the command line: `--email`, `--phone` or `--address`. */
export interface AccountSelector {
  email?: string;
  phone?: string;
  address?: string;
}

export async function findAccountOrFail<K extends AccountKind>(deps: { db: Db; phoneDefaultCountry: string }, kind: K, by: AccountSelector): Promise<AccountRow<K>> {
  const phone = by.phone === undefined ? undefined : normalizePhone(by.phone, deps.phoneDefaultCountry);
  const account = await findAccount(deps.db, kind, { ...by, ...(phone ? { phone } : {}) });
  if (!account) throw new AppError(Errors.UserNotFound);
  return account;
}

export async function listAccounts<K extends AccountKind>(deps: { db: Db }, kind: K, input: { search?: string; limit: number; cursor?: string }) {
  const accounts = await searchAccounts(deps.db, kind, input);
  return { accounts, nextCursor: accounts.length === input.limit ? accounts.at(-1)!.email : '' };
}

/**
 * Sets an account's status and records the change in the audit log, in one transaction. A partner
 * made active again must have been approved (its card contract exists): a pending partner is
 * approved with `partner approve` instead.
 */
export async function setAccountStatus<K extends AccountKind>(
  deps: { db: Db; phoneDefaultCountry: string },
  kind: K,
  input: { by: AccountSelector; status: AccountStatusName; actor: string; reason?: string },
): Promise<AccountRow<K>> {
  const status = ACCOUNT_STATUS[input.status];
  return changeAccount(deps, kind, input, (account) => {
    if (kind === 'partner' && status === ACCOUNT_STATUS.active && !(account as AccountRow<'partner'>).contract_address) {
      throw new AppError(Errors.BadRequest, { detail: 'this partner was never approved: run partner approve' });
    }
    return {
      expected: { status: account.status },
      changes: { status },
      entry: {
        action: `${kind === 'partner' ? 'partner' : 'user'} set-status`,
        target: `${kind} ${account.email}`,
        before: { status: statusName(account.status) },
        after: { status: input.status, ...(input.reason ? { reason: input.reason } : {}) },
      },
    };
  });
}

/** Sets a partner's monthly mint limit (4080 past it), recorded in the audit log. */
export async function setMintLimit(
  deps: { db: Db; phoneDefaultCountry: string },
  input: { by: AccountSelector; mintLimit: number; actor: string },
): Promise<AccountRow<'partner'>> {
  return changeAccount(deps, 'partner', input, (partner) => ({
    expected: { mint_limit: partner.mint_limit },
    changes: { mint_limit: input.mintLimit },
    entry: { action: 'partner set-mint-limit', target: `partner ${partner.email}`, before: { mint_limit: partner.mint_limit }, after: { mint_limit: input.mintLimit } },
  }));
}

/**
 * Makes the change `plan` gives for the account as read, with its audit entry, in one transaction,
 * and only while the account still holds the value the entry's `before` records: another
 * operator's change in between is read again, so the log's entries follow one another.
 */
async function changeAccount<K extends AccountKind>(
  deps: { db: Db; phoneDefaultCountry: string },
  kind: K,
  input: { by: AccountSelector; actor: string },
  plan: (account: AccountRow<K>) => { expected: { status: number } | { mint_limit: number }; changes: { status?: number; mint_limit?: number }; entry: OperatorAction },
): Promise<AccountRow<K>> {
  for (;;) {
    const account = await findAccountOrFail(deps, kind, input.by);
    const { expected, changes, entry } = plan(account);
    const changed = await deps.db.transaction().execute(async (trx) => {
      if (!(await updateAccount(trx, kind, account.id, expected, { ...changes, updated_at: epochSeconds() }))) return false;
      await recordOperatorAction(trx, input.actor, entry);
      return true;
    });
    if (changed) return { ...account, ...changes };
  }
}
