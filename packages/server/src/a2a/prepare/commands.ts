import { encodeFunctionData, hashTypedData, isAddress, isHex, maxUint256, type Address, type Hex } from 'viem';
import type { ChainContext } from '../../chain/chains.ts';
import { AppError } from '../../errors/app-error.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { Logger } from 'pino';
import { epochSeconds } from '../../store/database.ts';
import {
  isMessageType,
  isRequestType,
  isTransactionAction,
  isTransactionType,
  type Action,
  type RequestType,
  type TypedDataInput,
} from '../requests/actions.ts';
import { coerceParams, describeFunction, encodeCall, parseFunctionAbi } from './abi-call.ts';
import { parseAmount } from './amounts.ts';
import { resolveFeeCredential } from '../fee-delegation/commands.ts';
import { assertTypedDataWithinLimits } from './message-signing.ts';
import { assertNotBlacklisted } from '../policies/commands.ts';
import { insertRequest, purgeRequests } from '../requests/store.ts';
import { newRequestKey } from '../requests/keys.ts';
import { findServiceKeyId } from '../service-keys/commands.ts';
import { gasLimitOf, simulateCall } from '../chain/simulation.ts';
import {
  assertTokenBalance,
  cardOwner,
  erc20Abi,
  erc721Abi,
  hasCode,
  isErc721,
  NATIVE_COIN_CONTRACT,
  NATIVE_COIN_DECIMALS,
  tokenDecimals,
} from '../chain/token-contracts.ts';
import { Errors } from '../../errors/codes.ts';

/** The answer of a successful prepare. */
export interface PreparedRequest {
  request_key: string;
  status: 'prepared';
  expiration_time: number;
  /** Gas limit the transaction would use now; only for a transaction that names `from`. */
  estimated_gas?: number;
}

export interface BappInfo {
  name: string;
  callback: { success?: string; fail?: string } | null;
}

/** What prepare validated, before it is stored. */
export interface ValidatedPrepare {
  type: RequestType;
  chain: string;
  bapp: BappInfo;
  action: Action;
  serviceKeyId: string | null;
  feeCredentialId: string | null;
}

const PURGE_INTERVAL_MS = 60_000;
let lastPurgeMs = 0;

/**
 * B1: validates a prepare body rule by rule (each rule has its code; see docs/app2app.md for the
 * order), simulates a transaction that names `from`, and stores the request as `prepared`.
 */
export async function prepareRequest(deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry; log: Logger }, body: unknown, now = new Date()): Promise<PreparedRequest> {
  const validated = await validatePrepare(deps, body);
  let estimatedGas: bigint | undefined;
  const action = validated.action;
  if (isTransactionAction(action) && action.from) {
    const chain = deps.chains.get(validated.chain);
    const estimate = await simulateCall(chain, action.call, action.from, {
      feeDelegated: validated.feeCredentialId !== null,
      ...(action.type === 'execute_contract' ? { abi: action.abi } : {}),
    });
    estimatedGas = gasLimitOf(estimate);
  }

  const createdAt = epochSeconds(now);
  const request: PreparedRequest = {
    request_key: newRequestKey(),
    status: 'prepared',
    expiration_time: createdAt + deps.config.a2a.requestLifetimeSeconds,
    ...(estimatedGas !== undefined ? { estimated_gas: Number(estimatedGas) } : {}),
  };
  await insertRequest(deps.store.db, {
    request_key: request.request_key,
    type: validated.type,
    chain: validated.chain,
    status: 'prepared',
    bapp_name: validated.bapp.name,
    bapp_callback: validated.bapp.callback ? JSON.stringify(validated.bapp.callback) : null,
    action: JSON.stringify(action),
    estimated_gas: estimatedGas?.toString() ?? null,
    service_key_id: validated.serviceKeyId,
    fee_credential_id: validated.feeCredentialId,
    user_id: null,
    execution_id: null,
    result: null,
    error_code: null,
    error_message: null,
    version: 0,
    expiration_time: request.expiration_time,
    finished_at: null,
    fee_advance_wei: null,
    fee_settled_at: null,
    created_at: createdAt,
    updated_at: createdAt,
  });
  if (now.getTime() - lastPurgeMs > PURGE_INTERVAL_MS) {
    lastPurgeMs = now.getTime();
    await purgeRequests(deps.store.db, deps.config.a2a.resultRetentionSeconds, createdAt).catch((error: Error) =>
      deps.log.warn(`a2a purge: ${error.message}`),
    );
  }
  return request;
}

/** Every rule of B1 except the simulation, in the documented order. */
export async function validatePrepare(deps: { store: Store; chains: ChainRegistry }, body: unknown): Promise<ValidatedPrepare> {
  if (!isObject(body)) throw new AppError(Errors.BadRequest, { detail: 'the body must be a JSON object' });
  const bapp = readBapp(body.bapp);

  if (typeof body.type !== 'string' || body.type.trim() === '') throw new AppError(Errors.InvalidRequestType, { detail: 'type must be a non-empty string' });
  const type = body.type.trim();
  if (!isRequestType(type)) throw new AppError(Errors.UnknownRequestType, { detail: `unknown type ${type}` });

  // For auth the chain changes nothing: every address is returned together.
  const chain = type === 'auth' ? deps.chains.get('main') : chainOf(deps, body.chain);

  let action: Action;
  if (type === 'auth') {
    if (present(body.transaction) || present(body.message)) throw new AppError(Errors.InvalidTransaction, { detail: 'auth takes no transaction or message' });
    action = { type: 'auth' };
  } else if (isTransactionType(type)) {
    if (present(body.message)) throw new AppError(Errors.InvalidTransaction, { detail: `${type} takes a transaction, not a message` });
    if (!isObject(body.transaction)) throw new AppError(Errors.InvalidTransaction, { detail: 'transaction must be an object' });
    action = await readTransaction(chain, type, body.transaction);
  } else {
    if (present(body.transaction)) throw new AppError(Errors.InvalidTransaction, { detail: `${type} takes a message, not a transaction` });
    if (!isObject(body.message)) throw new AppError(Errors.InvalidTransaction, { detail: 'message must be an object' });
    action = readMessage(type, body.message);
  }

  if (action.type !== 'auth') {
    const transaction = isTransactionAction(action) ? action : undefined;
    await assertNotBlacklisted(deps.store.db, [
      action.from,
      transaction?.call.to,
      transaction && 'contract' in transaction ? transaction.contract : undefined,
      transaction && 'to' in transaction ? transaction.to : undefined,
    ]);
  }

  const feeCredentialId = present(bapp.feeCredential)
    ? await resolveFeeCredential(deps, bapp.feeCredential, type, chain.name)
    : null;

  let serviceKeyId: string | null = null;
  if (type === 'auth' && present(bapp.serviceKey)) {
    serviceKeyId = typeof bapp.serviceKey === 'string' ? ((await findServiceKeyId(deps.store.db, bapp.serviceKey)) ?? null) : null;
    if (!serviceKeyId) throw new AppError(Errors.BadRequest, { detail: 'unknown service_key' });
  }

  return { type, chain: chain.name, bapp: { name: bapp.name, callback: bapp.callback }, action, serviceKeyId, feeCredentialId };
}

function readBapp(value: unknown): BappInfo & { feeCredential: unknown; serviceKey: unknown } {
  if (!isObject(value) || typeof value.name !== 'string' || value.name.trim() === '') throw new AppError(Errors.BappNameRequired);
  let callback: BappInfo['callback'] = null;
  if (present(value.callback)) {
    const given = value.callback;
    if (!isObject(given) || !optionalString(given.success) || !optionalString(given.fail)) {
      throw new AppError(Errors.BadRequest, { detail: 'bapp.callback must be an object with string success and fail' });
    }
    callback = {
      ...(typeof given.success === 'string' && given.success ? { success: given.success } : {}),
      ...(typeof given.fail === 'string' && given.fail ? { fail: given.fail } : {}),
    };
  }
  return { name: value.name.trim(), callback, feeCredential: value.kas_authorization_key, serviceKey: value.service_key };
}

function chainOf(deps: { chains: ChainRegistry }, value: unknown): ChainContext {
  if (value === undefined || value === null || value === '') return deps.chains.get('main');
  if (typeof value !== 'string') throw new AppError(Errors.ChainNotSupported, { detail: 'chain must be a string' });
  return deps.chains.get(value);
}

async function readTransaction(chain: ChainContext, type: RequestType, tx: Record<string, unknown>): Promise<Action> {
  switch (type) {
    case 'send_coin': {
      const from = readFrom(tx.from);
      const to = readAddress(tx.to, Errors.InvalidTo, 'to');
      const units = parseAmount(tx.amount, NATIVE_COIN_DECIMALS);
      return { type, from, to, amount: (tx.amount as string).trim(), call: { to, data: '0x', value: units.toString() } };
    }
    case 'send_token': {
      const contract = readAddress(tx.contract, Errors.InvalidContract, 'contract');
      const from = readFrom(tx.from);
      const to = readAddress(tx.to, Errors.InvalidTo, 'to');
      const native = contract === NATIVE_COIN_CONTRACT;
      let decimals = NATIVE_COIN_DECIMALS;
      if (!native) {
        if (!(await hasCode(chain, contract))) throw new AppError(Errors.InvalidContract, { detail: `${contract} has no contract code` });
        const read = await tokenDecimals(chain, contract);
        if (read === undefined) throw new AppError(Errors.InvalidContract, { detail: `${contract} does not answer decimals()` });
        if (!Number.isInteger(read) || read < 0 || read > 255) throw new AppError(Errors.InvalidContract, { detail: `${contract} declares ${read} decimals` });
        decimals = read;
      }
      const units = parseAmount(tx.amount, decimals);
      const amount = (tx.amount as string).trim();
      const call = native
        ? { to, data: '0x' as Hex, value: units.toString() }
        : { to: contract, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, units] }), value: '0' };
      if (from && !native) await assertTokenBalance(chain, contract, from, units);
      return { type, from, to, amount, contract, native, decimals, units: units.toString(), call };
    }
    case 'send_card': {
      const contract = readAddress(tx.contract, Errors.InvalidContract, 'contract');
      const from = readFrom(tx.from);
      const to = readAddress(tx.to, Errors.InvalidTo, 'to');
      const cardId = readCardId(tx.card_id);
      if (!(await hasCode(chain, contract)) || !(await isErc721(chain, contract))) {
        throw new AppError(Errors.InvalidContract, { detail: `${contract} is not an ERC-721 card contract` });
      }
      if (!(await cardOwner(chain, contract, cardId))) throw new AppError(Errors.InvalidCardId, { detail: `card ${cardId} does not exist` });
      // The member's address is only known at approval; `from` is a placeholder until then (see transactionCall in approval/commands.ts).
      const sender = from ?? NATIVE_COIN_CONTRACT;
      return {
        type,
        from,
        to,
        contract,
        card_id: cardId.toString(),
        call: { to: contract, data: encodeFunctionData({ abi: erc721Abi, functionName: 'safeTransferFrom', args: [sender, to, cardId] }), value: '0' },
      };
    }
    case 'execute_contract': {
      const to = readAddress(tx.to, Errors.InvalidTo, 'to');
      const from = readFrom(tx.from);
      const value = readWei(tx.value);
      const hasAbi = presentList(tx.abi);
      const hasEncoded = present(tx.encoded_function_call);
      if (hasAbi && hasEncoded) throw new AppError(Errors.InvalidTransaction, { detail: 'give abi with params, or encoded_function_call, not both' });
      if (!hasAbi && !hasEncoded) throw new AppError(Errors.InvalidTransaction, { detail: 'give abi with params, or encoded_function_call' });
      if (!hasAbi && presentList(tx.params)) throw new AppError(Errors.InvalidTransaction, { detail: 'params need abi' });
      let data: Hex;
      let fn: string | null = null;
      let params: unknown[] | null = null;
      let abi: unknown[] = [];
      if (hasAbi) {
        const parsed = parseFunctionAbi(tx.abi);
        const args = coerceParams(parsed.fn, present(tx.params) ? tx.params : []);
        data = encodeCall(parsed.fn, args);
        fn = describeFunction(parsed.fn);
        params = typeof tx.params === 'string' ? (JSON.parse(tx.params) as unknown[]) : ((tx.params as unknown[] | undefined) ?? []);
        abi = parsed.items;
      } else {
        const encoded = tx.encoded_function_call;
        if (typeof encoded !== 'string' || !isHex(encoded, { strict: true }) || encoded.length < 10 || encoded.length % 2 !== 0) {
          throw new AppError(Errors.InvalidTransaction, { detail: 'encoded_function_call must be 0x-prefixed hex of at least 4 bytes' });
        }
        data = encoded.toLowerCase() as Hex;
      }
      if (!(await hasCode(chain, to))) throw new AppError(Errors.InvalidTo, { detail: `${to} is not a contract` });
      return { type, from, to, value: value.toString(), function: fn, params, abi, call: { to, data, value: value.toString() } };
    }
    default:
      throw new AppError(Errors.UnknownRequestType);
  }
}

function readMessage(type: RequestType, message: Record<string, unknown>): Action {
  if (!isMessageType(type)) throw new AppError(Errors.UnknownRequestType);
  const from = readFrom(message.from);
  if (type === 'sign_typedData_v4') return { type, from, typed_data: readTypedData(message.value) };
  if (typeof message.value !== 'string') throw new AppError(Errors.InvalidValue, { detail: 'message.value must be a string' });
  if (message.is_hex_encoded !== undefined && message.is_hex_encoded !== null && typeof message.is_hex_encoded !== 'boolean') {
    throw new AppError(Errors.InvalidTransaction, { detail: 'message.is_hex_encoded must be true or false' });
  }
  const hexEncoded = message.is_hex_encoded === true;
  if (hexEncoded && (!isHex(message.value, { strict: true }) || message.value.length % 2 !== 0)) {
    throw new AppError(Errors.InvalidValue, { detail: 'with is_hex_encoded, value must be 0x-prefixed hex bytes' });
  }
  return { type, from, value: message.value, is_hex_encoded: hexEncoded };
}

function readTypedData(value: unknown): TypedDataInput {
  let typed = value;
  if (typeof typed === 'string') {
    try {
      typed = JSON.parse(typed);
    } catch {
      throw new AppError(Errors.InvalidValue, { detail: 'the typed data is not valid JSON' });
    }
  }
  if (!isObject(typed) || !isObject(typed.types) || typeof typed.primaryType !== 'string' || !isObject(typed.message)) {
    throw new AppError(Errors.InvalidValue, { detail: 'typed data needs types, primaryType, domain and message' });
  }
  const input: TypedDataInput = {
    types: typed.types as TypedDataInput['types'],
    primaryType: typed.primaryType,
    domain: isObject(typed.domain) ? typed.domain : {},
    message: typed.message,
  };
  assertTypedDataWithinLimits(input);
  try {
    hashTypedData(input as never);
  } catch (error) {
    throw new AppError(Errors.InvalidValue, { detail: (error as { shortMessage?: string }).shortMessage ?? (error as Error).message });
  }
  return input;
}

function readFrom(value: unknown): Address | null {
  if (!present(value)) return null;
  return readAddress(value, Errors.InvalidFrom, 'from');
}

function readAddress(value: unknown, code: typeof Errors.InvalidTo | typeof Errors.InvalidContract | typeof Errors.InvalidFrom, field: string): Address {
  if (typeof value !== 'string' || !isAddress(value.trim(), { strict: true })) {
    throw new AppError(code, { detail: `${field} must be a 0x address${typeof value === 'string' ? ` (checksum-valid when mixed case)` : ''}` });
  }
  return value.trim().toLowerCase() as Address;
}

function readCardId(value: unknown): bigint {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^\d+$/.test(text.trim())) throw new AppError(Errors.InvalidCardId, { detail: 'card_id must be a whole number' });
  const id = fitsUint256(text.trim());
  if (id === undefined) throw new AppError(Errors.InvalidCardId, { detail: 'card_id is out of range' });
  return id;
}

/** The number a string of decimal digits stands for, when it fits in a uint256 (longer strings are not even parsed). */
function fitsUint256(digits: string): bigint | undefined {
  if (digits.length > 78) return undefined;
  const value = BigInt(digits);
  return value <= maxUint256 ? value : undefined;
}

function readWei(value: unknown): bigint {
  if (!present(value)) return 0n;
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim())) {
    throw new AppError(Errors.InvalidValue, { detail: 'value must be a whole number of the smallest unit, as a string' });
  }
  const wei = fitsUint256(value.trim());
  if (wei === undefined) throw new AppError(Errors.InvalidValue, { detail: 'value is out of range' });
  return wei;
}

/** abi and params may come as JSON text: the text `[]` is as empty as the array. */
function presentList(value: unknown): boolean {
  return present(value) && !(typeof value === 'string' && value.trim() === '[]');
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
}

function optionalString(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
