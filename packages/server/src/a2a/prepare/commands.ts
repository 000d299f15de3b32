import { encodeFunctionData, hashTypedData, isHex, maxUint256, type Address, type Hex } from 'viem';
import type { Static } from 'typebox';
import type { ChainContext } from '../../chain/chains.ts';
import { AppError } from '../../errors/app-error.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { Logger } from 'pino';
import { epochSeconds } from '../../store/database.ts';
import {
  isTransactionAction,
  type MessageType,
  type TransactionType,
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
import { jsonNestingExceeds, MAX_JSON_TEXT_DEPTH, storableJson } from '../../http/json-bounds.ts';
import type { PrepareBody, PrepareRequests } from './schema.ts';

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
 * B1: checks what the schema could not (each rule has its code; see docs/app2app.md for the
 * order), simulates a transaction that names `from`, and stores the request as `prepared`.
 */
export async function prepareRequest(deps: { config: Readonly<Config>; store: Store; chains: ChainRegistry; log: Logger }, body: PrepareBody, now = new Date()): Promise<PreparedRequest> {
  const validated = await validatePrepare(deps, body);
  const limits = deps.config.http;
  const actionJson = storableJson(validated.action, { what: 'the request', maxDepth: limits.maxJsonDepth, maxBytes: limits.maxStoredJsonBytes });
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
    action: actionJson,
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

/**
 * The rules of B1 that the schema cannot say (they need the chain, the store or several fields),
 * in the documented order after the schema's own; the simulation follows in prepareRequest.
 */
export async function validatePrepare(deps: { store: Store; chains: ChainRegistry }, body: PrepareBody): Promise<ValidatedPrepare> {
  const bapp = readBapp(body.bapp);
  const type = body.type;
  // For auth the chain changes nothing: every address is returned together.
  const chain = body.type === 'auth' ? deps.chains.get('main') : deps.chains.get(body.chain || 'main');

  const action: Action =
    body.type === 'auth'
      ? { type: 'auth' }
      : body.type === 'sign_message' || body.type === 'sign_message_eip191' || body.type === 'sign_typedData_v4'
        ? readMessage(body)
        : await readTransaction(chain, body);

  if (action.type !== 'auth') {
    const transaction = isTransactionAction(action) ? action : undefined;
    await assertNotBlacklisted(deps.store.db, [
      action.from,
      transaction?.call.to,
      transaction && 'contract' in transaction ? transaction.contract : undefined,
      transaction && 'to' in transaction ? transaction.to : undefined,
    ]);
  }

  const feeCredentialId = body.bapp.kas_authorization_key ? await resolveFeeCredential(deps, body.bapp.kas_authorization_key, type, chain.name) : null;

  let serviceKeyId: string | null = null;
  if (type === 'auth' && body.bapp.service_key) {
    serviceKeyId = (await findServiceKeyId(deps.store.db, body.bapp.service_key)) ?? null;
    if (!serviceKeyId) throw new AppError(Errors.BadRequest, { detail: 'unknown service_key' });
  }

  return { type, chain: chain.name, bapp, action, serviceKeyId, feeCredentialId };
}

type RequestOf<T extends keyof typeof PrepareRequests> = Static<(typeof PrepareRequests)[T]>;
type TransactionRequest = RequestOf<TransactionType>;
type MessageRequest = RequestOf<MessageType>;

function readBapp(bapp: PrepareBody['bapp']): BappInfo {
  const given = bapp.callback && typeof bapp.callback === 'object' && !Array.isArray(bapp.callback) ? bapp.callback : null;
  const callback = given ? { ...(given.success ? { success: given.success } : {}), ...(given.fail ? { fail: given.fail } : {}) } : null;
  return { name: bapp.name.trim(), callback };
}

async function readTransaction(chain: ChainContext, body: TransactionRequest): Promise<Action> {
  switch (body.type) {
    case 'send_coin': {
      const tx = body.transaction;
      const from = addressOrNull(tx.from);
      const to = lower(tx.to);
      const units = parseAmount(tx.amount, NATIVE_COIN_DECIMALS);
      return { type: body.type, from, to, amount: tx.amount, call: { to, data: '0x', value: units.toString() } };
    }
    case 'send_token': {
      const tx = body.transaction;
      const contract = lower(tx.contract);
      const from = addressOrNull(tx.from);
      const to = lower(tx.to);
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
      const call = native
        ? { to, data: '0x' as Hex, value: units.toString() }
        : { to: contract, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, units] }), value: '0' };
      if (from && !native) await assertTokenBalance(chain, contract, from, units);
      return { type: body.type, from, to, amount: tx.amount, contract, native, decimals, units: units.toString(), call };
    }
    case 'send_card': {
      const tx = body.transaction;
      const contract = lower(tx.contract);
      const from = addressOrNull(tx.from);
      const to = lower(tx.to);
      const cardId = fitsUint256(String(tx.card_id));
      if (cardId === undefined) throw new AppError(Errors.InvalidCardId, { detail: 'card_id is out of range' });
      if (!(await hasCode(chain, contract)) || !(await isErc721(chain, contract))) {
        throw new AppError(Errors.InvalidContract, { detail: `${contract} is not an ERC-721 card contract` });
      }
      if (!(await cardOwner(chain, contract, cardId))) throw new AppError(Errors.InvalidCardId, { detail: `card ${cardId} does not exist` });
      // The member's address is only known at approval; `from` is a placeholder until then (see transactionCall in approval/commands.ts).
      const sender = from ?? NATIVE_COIN_CONTRACT;
      return {
        type: body.type,
        from,
        to,
        contract,
        card_id: cardId.toString(),
        call: { to: contract, data: encodeFunctionData({ abi: erc721Abi, functionName: 'safeTransferFrom', args: [sender, to, cardId] }), value: '0' },
      };
    }
    case 'execute_contract': {
      const tx = body.transaction;
      const to = lower(tx.to);
      const from = addressOrNull(tx.from);
      const value = tx.value ? fitsUint256(tx.value) : 0n;
      if (value === undefined) throw new AppError(Errors.InvalidValue, { detail: 'value is out of range' });
      const hasAbi = presentList(tx.abi);
      const hasEncoded = Boolean(tx.encoded_function_call);
      if (hasAbi && hasEncoded) throw new AppError(Errors.InvalidTransaction, { detail: 'give abi with params, or encoded_function_call, not both' });
      if (!hasAbi && !hasEncoded) throw new AppError(Errors.InvalidTransaction, { detail: 'give abi with params, or encoded_function_call' });
      if (!hasAbi && presentList(tx.params)) throw new AppError(Errors.InvalidTransaction, { detail: 'params need abi' });
      let data: Hex;
      let fn: string | null = null;
      let params: unknown[] | null = null;
      let abi: unknown[] = [];
      if (hasAbi) {
        const parsed = parseFunctionAbi(tx.abi);
        const given = tx.params || [];
        const args = coerceParams(parsed.fn, given);
        data = encodeCall(parsed.fn, args);
        fn = describeFunction(parsed.fn);
        params = typeof given === 'string' ? (JSON.parse(given) as unknown[]) : given;
        abi = parsed.items;
      } else {
        data = tx.encoded_function_call!.toLowerCase() as Hex;
      }
      if (!(await hasCode(chain, to))) throw new AppError(Errors.InvalidTo, { detail: `${to} is not a contract` });
      return { type: body.type, from, to, value: value.toString(), function: fn, params, abi, call: { to, data, value: value.toString() } };
    }
  }
}

function readMessage(body: MessageRequest): Action {
  if (body.type === 'sign_typedData_v4') {
    const message = body.message;
    return { type: body.type, from: addressOrNull(message.from), typed_data: readTypedData(message.value) };
  }
  const message = body.message;
  const hexEncoded = message.is_hex_encoded === true;
  if (hexEncoded && (!isHex(message.value, { strict: true }) || message.value.length % 2 !== 0)) {
    throw new AppError(Errors.InvalidValue, { detail: 'with is_hex_encoded, value must be 0x-prefixed hex bytes' });
  }
  return { type: body.type, from: addressOrNull(message.from), value: message.value, is_hex_encoded: hexEncoded };
}

function readTypedData(value: unknown): TypedDataInput {
  let typed = value;
  if (typeof typed === 'string') {
    if (jsonNestingExceeds(typed, MAX_JSON_TEXT_DEPTH)) throw new AppError(Errors.InvalidValue, { detail: `the typed data is nested deeper than ${MAX_JSON_TEXT_DEPTH} levels` });
    try {
      typed = JSON.parse(typed);
    } catch {
      throw new AppError(Errors.InvalidValue, { detail: 'the typed data is not valid JSON' });
    }
  }
  if (!isObject(typed) || !isObject(typed.types) || typeof typed.primaryType !== 'string' || !isObject(typed.message)) {
    throw new AppError(Errors.InvalidValue, { detail: 'typed data needs types, primaryType, domain and message' });
  }
  const given = { types: typed.types, domain: isObject(typed.domain) ? typed.domain : {}, message: typed.message };
  assertTypedDataWithinLimits(given);
  // Only what EIP-712 signs is kept: fields a type does not declare are not hashed, so not stored.
  const types = typedDataTypes(typed.types);
  const input: TypedDataInput = {
    types,
    primaryType: typed.primaryType,
    domain: declaredFields(types, 'EIP712Domain', given.domain, EIP712_DOMAIN_FIELDS) as TypedDataInput['domain'],
    message: declaredFields(types, typed.primaryType, typed.message) as TypedDataInput['message'],
  };
  try {
    hashTypedData(input as never);
  } catch (error) {
    throw new AppError(Errors.InvalidValue, { detail: (error as { shortMessage?: string }).shortMessage ?? (error as Error).message });
  }
  return input;
}

/** The fields of an EIP-712 domain, when the types do not declare EIP712Domain. */
const EIP712_DOMAIN_FIELDS = ['name', 'version', 'chainId', 'verifyingContract', 'salt'];

/** The types as EIP-712 defines them: each field its name and type, nothing else. */
function typedDataTypes(types: Record<string, unknown>): TypedDataInput['types'] {
  return Object.fromEntries(
    Object.entries(types).map(([name, fields]) => [
      name,
      Array.isArray(fields) ? fields.map((field: { name?: unknown; type?: unknown }) => ({ name: field?.name, type: field?.type })) : fields,
    ]),
  ) as TypedDataInput['types'];
}

/**
 * A struct value with only the fields its type declares (`fallback` names them when the type is
 * not among `types`), struct fields and arrays of structs alike; values of other types as given,
 * for hashing to judge. Depth is bounded by the body's (http.maxJsonDepth) and the value count
 * by assertTypedDataWithinLimits.
 */
function declaredFields(types: TypedDataInput['types'], type: string, value: unknown, fallback?: string[]): unknown {
  const array = /^(.*)\[\d*\]$/.exec(type);
  if (array) return Array.isArray(value) ? value.map((item) => declaredFields(types, array[1]!, item)) : value;
  const fields = (types as Record<string, Array<{ name: string; type: string }> | undefined>)[type];
  if (!isObject(value) || (!Array.isArray(fields) && !fallback)) return value;
  const declared = Array.isArray(fields) ? fields : fallback!.map((name) => ({ name, type: '' }));
  return Object.fromEntries(
    declared.filter((field) => typeof field?.name === 'string' && Object.hasOwn(value, field.name)).map((field) => [field.name, declaredFields(types, field.type, value[field.name])]),
  );
}

/** An address the schema accepted, lower-case; `from` may be absent (null or empty). */
function lower(address: string): Address {
  return address.toLowerCase() as Address;
}

function addressOrNull(address: string | null | undefined): Address | null {
  return address ? lower(address) : null;
}

/** The number a string of decimal digits stands for, when it fits in a uint256 (longer strings are not even parsed). */
function fitsUint256(digits: string): bigint | undefined {
  if (digits.length > 78) return undefined;
  const value = BigInt(digits);
  return value <= maxUint256 ? value : undefined;
}

/** abi and params may come as JSON text: the text `[]` is as empty as the array. */
function presentList(value: unknown): boolean {
  return present(value) && !(typeof value === 'string' && value.trim() === '[]');
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
