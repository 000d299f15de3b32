/** The CLI's commands on accounts in the store (`partner list`, `user set-status`, …): no chain, no keys. */
import { ACCOUNT_STATUS, findAccountOrFail, listAccounts, setAccountStatus, setMintLimit, statusName, type AccountSelector, type AccountStatusName } from '../accounts/commands.ts';
import { operatorName } from '../audit/store.ts';
import type { PartnerRow, UserRow } from '../store/schema.ts';
import type { CliValues, Handler, Needs } from './handler.ts';
import { pageLimit, required, UsageError, wholeNumber } from './options.ts';

/** The largest monthly mint limit: the store keeps it in a 32-bit integer column. */
export const MAX_MINT_LIMIT = 2_147_483_647;

type StoreDeps = Needs['store'];

export const accountCommands = {
  'partner list': (async (deps, values) => listed(deps, 'partner', values)) satisfies Handler<StoreDeps>,
  'partner show': (async (deps, values) => presentAccount('partner', await findAccountOrFail(accountDeps(deps), 'partner', selector(values)))) satisfies Handler<StoreDeps>,
  'partner set-status': (async (deps, values) =>
    presentAccount('partner', await setAccountStatus(accountDeps(deps), 'partner', statusChange(values)))) satisfies Handler<StoreDeps>,
  'partner set-mint-limit': (async (deps, values) =>
    presentAccount(
      'partner',
      await setMintLimit(accountDeps(deps), {
        by: selector(values),
        mintLimit: wholeNumber(required(values, 'mint-limit'), 'mint-limit', MAX_MINT_LIMIT),
        actor: operatorName(),
      }),
    )) satisfies Handler<StoreDeps>,
  'user list': (async (deps, values) => listed(deps, 'member', values)) satisfies Handler<StoreDeps>,
  'user show': (async (deps, values) => presentAccount('member', await findAccountOrFail(accountDeps(deps), 'member', selector(values)))) satisfies Handler<StoreDeps>,
  'user set-status': (async (deps, values) => presentAccount('member', await setAccountStatus(accountDeps(deps), 'member', statusChange(values)))) satisfies Handler<StoreDeps>,
};

const accountDeps = (deps: StoreDeps) => ({ db: deps.store.db, phoneDefaultCountry: deps.config.phoneDefaultCountry });

/** The account an option names: exactly one of --email, --phone, --address. */
function selector(values: CliValues): AccountSelector {
  const given = (['email', 'phone', 'address'] as const).filter((name) => typeof values[name] === 'string' && values[name].trim() !== '');
  if (given.length !== 1) throw new UsageError('name the account with exactly one of --email, --phone, --address');
  return { [given[0]!]: values[given[0]!] } as AccountSelector;
}

function statusChange(values: CliValues) {
  const status = required(values, 'status');
  if (!(status in ACCOUNT_STATUS)) throw new UsageError(`--status must be one of ${Object.keys(ACCOUNT_STATUS).join(', ')}`);
  return { by: selector(values), status: status as AccountStatusName, actor: operatorName(), ...(typeof values.reason === 'string' && values.reason ? { reason: values.reason } : {}) };
}

async function listed(deps: StoreDeps, kind: 'partner' | 'member', values: CliValues) {
  const page = await listAccounts({ db: deps.store.db }, kind, {
    limit: pageLimit(values),
    ...(typeof values.search === 'string' && values.search ? { search: values.search } : {}),
    ...(typeof values.cursor === 'string' && values.cursor ? { cursor: values.cursor } : {}),
  });
  return {
    [kind === 'partner' ? 'partners' : 'users']: page.accounts.map((account) => presentAccount(kind, account)),
    next_cursor: page.nextCursor,
  };
}

/** An account as the CLI prints it: no secrets (password hash, key id). */
function presentAccount(kind: 'partner' | 'member', account: PartnerRow | UserRow): Record<string, unknown> {
  const common = { email: account.email, name: account.name, phone: account.phone, status: statusName(account.status), main_address: account.main_address };
  if (kind === 'member') return { ...common, birth: (account as UserRow).birth };
  const partner = account as PartnerRow;
  return { ...common, service_name: partner.service_name, contract_address: partner.contract_address, nft_id: partner.nft_id, mint_limit: partner.mint_limit };
}
