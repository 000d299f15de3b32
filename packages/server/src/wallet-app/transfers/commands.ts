import { createHash, randomUUID } from 'node:crypto';
import { encodeFunctionData, erc20Abi, parseUnits, zeroAddress, type Address, type Hex } from 'viem';
import type { ChainContext, ChainRegistry } from '../../chain/chains.ts';
import { chainDisplay } from '../../config/chains.ts';
import type { Config } from '../../config/config.ts';
import type { KeyVault } from '../../custody/key-vault.ts';
import { AppError } from '../../errors/app-error.ts';
import { Errors } from '../../errors/codes.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import { gasLimitOf, plainTransferEstimate } from '../../outbox/fees.ts';
import type { Store } from '../../store/database.ts';
import type { UserRow } from '../../store/schema.ts';
import { assertNotBlacklisted } from '../../a2a/policies/commands.ts';
import { isInsufficientFunds } from '../../a2a/chain/revert-reason.ts';
import { transactionRefusalError, waitUntilMined } from '../../cards/partner-signing.ts';
import { parsePersonPair, personKey, reserveWallet } from '../../people/index.ts';
import { findMembers } from '../../people/members.ts';
import { phoneInCountry } from '../../lib/phone.ts';
import { findTransfer, takeTransferKey } from './store.ts';

type Deps = { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry };

export interface TransferInput {
  chain: string;
  /** An ERC-20 contract; null or absent: the chain's coin. */
  token?: string | null | undefined;
  /** Whole coins or tokens, decimal. */
  amount: string;
  toAddress?: string | undefined;
  toPerson?: { name: string; phone: string; phone_country?: string | undefined } | undefined;
}

export interface Quote {
  chain: string;
  ticker: string;
  decimals: number;
  token: { contract: string; symbol: string | null; decimals: number } | null;
  to_address: string;
  units: string;
  fee: string;
  max_fee: string;
  balance: string;
  token_balance: string | null;
}

/** A checked send: the quote, with the call the outbox will sign. */
interface CheckedTransfer {
  quote: Quote;
  call: { to: Address; value: bigint; data: Hex | undefined };
}

/**
 * Checks a send of coins or tokens and answers what it will cost, before any PIN: 6417 an unknown
 * chain; 6405 a token that does not answer as an ERC-20; 6404 an amount that is 0 or has more
 * decimals than the coin or token; 400 without exactly one recipient; 6403 the zero address or the
 * member herself; 6500 a blacklisted address; 6412 when the balance cannot cover the amount (plus
 * the most the fee may cost, for coins); 4202 when the coins cannot pay a token send's fee.
 */
export async function quoteTransfer(deps: Deps, member: Pick<UserRow, 'main_address'>, input: TransferInput): Promise<Quote> {
  return (await checkTransfer(deps, member, input)).quote;
}

async function checkTransfer(deps: Deps, member: Pick<UserRow, 'main_address'>, input: TransferInput): Promise<CheckedTransfer> {
  const chain = deps.chains.get(input.chain);
  const display = chainDisplay(chain.name, deps.config.chains[chain.name]);
  const from = member.main_address.toLowerCase() as Address;
  const token = input.token ? await tokenOf(chain, input.token.toLowerCase() as Address) : null;
  const units = unitsOf(input.amount, token ? token.decimals : display.decimals);
  const to = await recipientAddress(deps, member, input);
  await assertNotBlacklisted(deps.store.db, [from, to]);

  const call = token
    ? { to: token.contract as Address, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, units] }) }
    : { to, value: units, data: undefined };
  const [balance, tokenBalance, gasPrice, fees] = await Promise.all([
    chain.client.getBalance({ address: from }),
    token ? chain.client.readContract({ address: token.contract as Address, abi: erc20Abi, functionName: 'balanceOf', args: [from] }) : Promise.resolve(null),
    chain.client.getGasPrice(),
    chain.client.estimateFeesPerGas(),
  ]);
  if (token && tokenBalance! < units) throw new AppError(Errors.InsufficientFunds, { detail: `the wallet holds ${tokenBalance} units of the token; ${units} are needed` });
  if (!token && balance < units) throw new AppError(Errors.InsufficientFunds, { detail: `the wallet holds ${balance} wei; ${units} are needed before the fee` });
  const gas = await estimate(chain, from, call);
  // The outbox reserves the gas limit at twice the fee estimate (outbox/fees.ts): the balance must cover that bound.
  const maxFee = gasLimitOf(gas) * fees.maxFeePerGas * 2n;
  if (balance < call.value + maxFee) {
    if (token) throw new AppError(Errors.InsufficientFeeFunds, { detail: `the fee may cost ${maxFee} wei; the wallet holds ${balance} wei` });
    throw new AppError(Errors.InsufficientFunds, { detail: `the amount and the fee may cost ${call.value + maxFee} wei; the wallet holds ${balance} wei` });
  }
  return {
    quote: {
      chain: chain.name,
      ticker: display.ticker,
      decimals: display.decimals,
      token,
      to_address: to,
      units: units.toString(),
      fee: (gas * gasPrice).toString(),
      max_fee: maxFee.toString(),
      balance: balance.toString(),
      token_balance: tokenBalance === null ? null : tokenBalance.toString(),
    },
    call,
  };
}

async function estimate(chain: ChainContext, from: Address, call: CheckedTransfer['call']): Promise<bigint> {
  try {
    const gas = await chain.client.estimateGas({ account: from, to: call.to, value: call.value, ...(call.data ? { data: call.data } : {}) });
    return await plainTransferEstimate(chain, call.to, call.data, gas);
  } catch (error) {
    if (isInsufficientFunds(error)) throw new AppError(Errors.InsufficientFunds, { detail: 'the wallet cannot pay this send' });
    throw new AppError(Errors.TransactionReverted, { detail: 'the token refuses this transfer', cause: error });
  }
}

async function tokenOf(chain: ChainContext, contract: Address): Promise<NonNullable<Quote['token']>> {
  try {
    const [decimals, symbol] = await Promise.all([
      chain.client.readContract({ address: contract, abi: erc20Abi, functionName: 'decimals' }),
      chain.client.readContract({ address: contract, abi: erc20Abi, functionName: 'symbol' }).catch(() => null),
    ]);
    return { contract, symbol, decimals: Number(decimals) };
  } catch (error) {
    throw new AppError(Errors.InvalidContract, { detail: `${contract} does not answer as an ERC-20 token on ${chain.name}`, cause: error });
  }
}

function unitsOf(amount: string, decimals: number): bigint {
  const fraction = amount.split('.')[1] ?? '';
  if (fraction.length > decimals) throw new AppError(Errors.InvalidAmount, { detail: `at most ${decimals} decimals` });
  const units = parseUnits(amount, decimals);
  if (units === 0n) throw new AppError(Errors.InvalidAmount, { detail: 'the amount must be more than 0' });
  if (units >= 2n ** 256n) throw new AppError(Errors.InvalidAmount, { detail: 'the amount is too large' });
  return units;
}

/** The recipient's address: as given, or a person's member wallet (or the wallet kept for them until they sign up). */
async function recipientAddress(deps: { config: Readonly<Config>; store: Store; vault: KeyVault }, member: Pick<UserRow, 'main_address'>, input: TransferInput): Promise<Address> {
  if ((input.toAddress === undefined) === (input.toPerson === undefined)) throw new AppError(Errors.BadRequest, { detail: 'give exactly one of to_address and to_person' });
  let address: string;
  if (input.toAddress !== undefined) {
    address = input.toAddress.toLowerCase();
    if (address === zeroAddress) throw new AppError(Errors.InvalidTo, { detail: 'to_address is the zero address' });
  } else {
    const { name, phone, phone_country } = input.toPerson!;
    const person = parsePersonPair([name, phoneInCountry(phone, phone_country)], 0, deps.config.phoneDefaultCountry);
    const found = (await findMembers(deps.store.db, [person])).get(personKey(person));
    address = (found?.main_address ?? (await reserveWallet(deps, person)).address).toLowerCase();
  }
  if (address === member.main_address.toLowerCase()) throw new AppError(Errors.InvalidTo, { detail: 'this is your own wallet' });
  return address as Address;
}

/** What a send asks, from its body alone (amount written without extra zeros): a retry under the same key must ask the same. */
function requestHash(input: TransferInput): string {
  const [whole = '0', fraction = ''] = input.amount.split('.');
  const amount = `${whole.replace(/^0+(?=\d)/, '')}.${fraction.replace(/0+$/, '')}`;
  const to = input.toAddress !== undefined ? input.toAddress.toLowerCase() : input.toPerson ? [input.toPerson.name.trim(), input.toPerson.phone.trim(), input.toPerson.phone_country ?? ''] : null;
  return createHash('sha256').update(JSON.stringify([input.chain, (input.token ?? '').toLowerCase(), to, amount])).digest('hex');
}

/**
 * Sends coins or tokens the member holds, checked as quoteTransfer checks them (all before the
 * PIN), then the PIN (4006, 403 locked), then through the outbox; answers once it is mined (503 when
 * the chain is slower than `cards.confirmTimeoutMs`: it stays in the outbox). One send per
 * idempotency key: the first insert of the key wins, and every copy with the same key and body signs
 * under the same outbox key, which the outbox stores once; a retry after the first was mined answers
 * that transaction (the balance is not checked again). The same key with another body is 4090.
 */
export async function sendTransfer(
  deps: Deps & { outbox: TransactionOutbox },
  member: Pick<UserRow, 'id' | 'main_address' | 'key_id'>,
  input: TransferInput & { pin: string; idempotencyKey: string },
): Promise<{ hash: Hex; chain: string; token: string | null; to_address: string; units: string }> {
  const earlier = await findTransfer(deps.store.db, member.id, input.idempotencyKey);
  if (!earlier) {
    const { quote } = await checkTransfer(deps, member, input);
    const key = await deps.vault.unlock(member.key_id, input.pin.toLowerCase());
    const row = await takeTransferKey(deps.store.db, {
      id: randomUUID(),
      user_id: member.id,
      idempotency_key: input.idempotencyKey,
      request_hash: requestHash(input),
      kind: quote.token ? 'token' : 'coin',
      chain: quote.chain,
      token: quote.token?.contract ?? null,
      to_address: quote.to_address,
      units: quote.units,
      outbox_key: `wallet-send:${randomUUID()}`,
      created_ms: Date.now(),
    });
    return submitTransfer(deps, row, { address: key.address, account: key.account }, input);
  }
  const key = await deps.vault.unlock(member.key_id, input.pin.toLowerCase());
  return submitTransfer(deps, earlier, { address: key.address, account: key.account }, input);
}

async function submitTransfer(
  deps: { config: Readonly<Config>; outbox: TransactionOutbox },
  row: NonNullable<Awaited<ReturnType<typeof findTransfer>>>,
  signer: { address: Address; account: Parameters<TransactionOutbox['submit']>[0]['signer']['account'] },
  input: TransferInput,
): Promise<{ hash: Hex; chain: string; token: string | null; to_address: string; units: string }> {
  // A copy that lost the insert, or a retry, must ask what the key's first send asked.
  if (row.request_hash !== requestHash(input)) throw new AppError(Errors.IdempotencyKeyReused, { detail: 'this idempotency key was used for another send' });
  const units = BigInt(row.units);
  const call = row.token
    ? { to: row.token as Address, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [row.to_address as Address, units] }) }
    : { to: row.to_address as Address, value: units, data: undefined };
  let transaction;
  try {
    const submitted = await deps.outbox.submit({ idempotencyKey: row.outbox_key, chain: row.chain, signer, to: call.to, value: call.value, ...(call.data ? { data: call.data } : {}) });
    transaction = await waitUntilMined(deps, (timeoutMs) => deps.outbox.waitForFinal(submitted.id, timeoutMs));
  } catch (error) {
    throw transactionRefusalError(error);
  }
  if (transaction.status !== 'mined' || transaction.receiptStatus !== 'success') {
    throw new AppError(Errors.TransactionReverted, { detail: `the send ${transaction.txHash} ended ${transaction.receiptStatus ?? transaction.status}` });
  }
  return { hash: transaction.txHash, chain: row.chain, token: row.token, to_address: row.to_address, units: row.units };
}

