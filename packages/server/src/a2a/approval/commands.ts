import { randomUUID } from 'node:crypto';
import { encodeFunctionData, type Address } from 'viem';
import { deriveChainAddresses } from '../../custody/chain-addresses.ts';
import type { UnlockedKey } from '../../custody/key-vault.ts';
import { AppError, isAppError } from '../../errors/app-error.ts';
import { OutboxRefusal } from '../../outbox/outbox.ts';
import type { Config } from '../../config/config.ts';
import type { Store } from '../../store/database.ts';
import type { KeyVault } from '../../custody/key-vault.ts';
import type { ChainRegistry } from '../../chain/chains.ts';
import type { TransactionOutbox } from '../../outbox/outbox.ts';
import type { Logger } from 'pino';
import { epochSeconds } from '../../store/database.ts';
import { USER_STATUS } from '../../users/commands.ts';
import type { A2aRequestRow, UserRow } from '../../store/schema.ts';
import { isTransactionAction, type Action, type PreparedCall, type TransactionAction } from '../requests/actions.ts';
import { advanceFee } from '../fee-delegation/commands.ts';
import { signMessageAction } from '../prepare/message-signing.ts';
import { assertNotBlacklisted, returnDailyAllowance, takeDailyAllowance } from '../policies/commands.ts';
import { cancelRequest, claimExecution, completeRequest, expiresAt, failRequest, findRequest, markRequested, releaseExecution } from '../requests/store.ts';
import { RequestKeyError } from '../requests/errors.ts';
import { normalizeRequestKey } from '../requests/keys.ts';
import { presentRequest, type ResultAnswer, type StoredOutcome } from '../requests/commands.ts';
import { ciHashFor } from '../service-keys/commands.ts';
import { gasLimitOf, simulateCall } from '../chain/simulation.ts';
import { assertTokenBalance, erc721Abi } from '../chain/token-contracts.ts';
import { Errors } from '../../errors/codes.ts';
import { isNodeUnreachable, isNodeUnsettled } from '../../chain/node-errors.ts';
import { findMemberById, findMemberWithEmail } from './store.ts';
import { holdCardClaims } from '../../cards/claims/commands.ts';

/** Told when a request changed state in this process, so long-polls answer at once. */
export interface RequestChangeListener {
  requestChanged(requestKey: string): void;
  /** A fee-delegated transaction was submitted; its fee is settled once it is mined. */
  feeDelegatedSubmitted?(requestKey: string, outboxId: string): void;
  /** A member's approval or cancel finished a request of `type` as `status` (metrics). */
  requestFinished?(type: string, status: string): void;
}

/** A request a member may act on, with its validated action. */
export interface OpenRequest {
  row: A2aRequestRow;
  action: Action;
}

/**
 * The wallet app opened the request: prepared → requested. 6000 unknown key, 6001 expired,
 * 6011 finished or being executed.
 */
export async function openRequest(
  deps: { config: Readonly<Config>; store: Store },
  input: { requestKey: string; userId: string },
  listener?: RequestChangeListener,
): Promise<OpenRequest> {
  const now = epochSeconds();
  const row = await loadOpenRequest(deps, input.requestKey, now);
  if (!(await markRequested(deps.store.db, row.request_key, input.userId, now))) throw await stateError(deps, row.request_key);
  if (row.status === 'prepared') listener?.requestChanged(row.request_key);
  const opened = (await findRequest(deps.store.db, row.request_key))!;
  return { row: opened, action: JSON.parse(opened.action) as Action };
}

/** The request as the member would approve it, without changing its state. */
export async function viewRequest(deps: { config: Readonly<Config>; store: Store }, requestKey: string): Promise<OpenRequest> {
  const row = await findLiveRequest(deps, requestKey, epochSeconds());
  return { row, action: JSON.parse(row.action) as Action };
}

/**
 * The member confirmed with the PIN. The PIN is checked first (a wrong one changes nothing); then
 * one conditional UPDATE claims the request, so of two approvals (in any processes) exactly one
 * executes and the other gets 6011. A `send_card` then claims the card (cards/claims): while another
 * operation holds it the approval is refused with 4209 (409) and the request stays open. Policy
 * refusals and execution failures finish the request as `error`; the answer is the request's result
 * either way (B3 shape).
 */
export async function approveRequest(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox; log: Logger },
  input: { requestKey: string; userId: string; pinHash: string },
  listener?: RequestChangeListener,
): Promise<ResultAnswer> {
  const db = deps.store.db;
  const row = await loadOpenRequest(deps, input.requestKey, epochSeconds());
  const member = await findMember(deps, input.userId);
  const executionId = randomUUID();

  // Policy: only an active member may approve (6501); the request ends in error so the BApp learns it.
  if (member.status !== USER_STATUS.active) {
    if (!(await claimExecution(db, row.request_key, executionId, member.id, epochSeconds()))) throw await stateError(deps, row.request_key);
    await finishWithError(deps, row, executionId, new AppError(Errors.InvalidUserStatus, { detail: `the member's status is ${member.status}` }));
    return finished(deps, row.request_key, listener);
  }

  const key = await deps.vault.unlock(member.key_id, input.pinHash);
  if (!(await claimExecution(db, row.request_key, executionId, member.id, epochSeconds()))) throw await stateError(deps, row.request_key);

  const action = JSON.parse(row.action) as Action;
  // A card goes one operation at a time (cards/claims): while another holds it nothing is signed
  // and the request stays open, to be approved again once that operation is final.
  const card = action.type === 'send_card' ? { chain: row.chain, contract: action.contract, cardId: action.card_id } : undefined;
  const hold = card ? await holdCardClaims(deps, [card], row.request_key) : undefined;
  if (hold && hold.cards.length === 0) {
    await releaseExecution(db, row.request_key, executionId, epochSeconds());
    throw new AppError(Errors.CardBusy, { detail: 'nothing was sent; approve again once the other operation is done' });
  }
  try {
    await executeClaimed(deps, { row, action, member, key, executionId }, listener);
  } finally {
    await hold?.release();
  }
  return finished(deps, row.request_key, listener);
}

/** Runs an approved request whose execution (and card, for send_card) this call holds, and stores how it ended. */
async function executeClaimed(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox; log: Logger },
  input: { row: A2aRequestRow; action: Action; member: UserRow; key: UnlockedKey; executionId: string },
  listener: RequestChangeListener | undefined,
): Promise<void> {
  const db = deps.store.db;
  const { row, action, executionId } = input;
  try {
    const outcome = await execute(deps, row, action, input.member, input.key, listener);
    await completeRequest(db, row.request_key, executionId, outcome, epochSeconds());
  } catch (error) {
    const sent = isTransactionAction(action) ? await deps.outbox.findByIdempotencyKey(row.request_key) : undefined;
    if (sent) {
      // The transaction is stored and will be sent: the request completed whatever failed after.
      await completeRequest(db, row.request_key, executionId, { result: { tx_hash: sent.txHash } }, epochSeconds());
      if (!isAppError(error)) deps.log.error(error as Error);
    } else if (isNodeUnreachable(error) || isNodeUnsettled(error)) {
      // Nothing was signed or sent: the request stays open for the member to approve again.
      await releaseExecution(db, row.request_key, executionId, epochSeconds());
      throw new AppError(Errors.ServiceUnavailable, { detail: `the ${row.chain} chain's node does not answer; nothing was sent, approve again later`, cause: error });
    } else {
      await finishWithError(deps, row, executionId, error);
    }
  }
}

/** The member canceled in the wallet app: canceled, unless an approval already claimed it. */
export async function cancelRequestAsMember(
  deps: { config: Readonly<Config>; store: Store },
  input: { requestKey: string; userId: string },
  listener?: RequestChangeListener,
): Promise<ResultAnswer> {
  const row = await loadOpenRequest(deps, input.requestKey, epochSeconds());
  if (!(await cancelRequest(deps.store.db, row.request_key, input.userId, epochSeconds()))) throw await stateError(deps, row.request_key);
  return finished(deps, row.request_key, listener);
}

/** Tells the listener a request finished in this process and answers its result. */
async function finished(deps: { config: Readonly<Config>; store: Store }, requestKey: string, listener: RequestChangeListener | undefined): Promise<ResultAnswer> {
  const row = (await findRequest(deps.store.db, requestKey))!;
  listener?.requestChanged(requestKey);
  listener?.requestFinished?.(row.type, row.status);
  return presentRequest(deps, row);
}

async function execute(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox },
  row: A2aRequestRow,
  action: Action,
  member: UserRow,
  key: UnlockedKey,
  listener: RequestChangeListener | undefined,
): Promise<StoredOutcome> {
  const memberAddress = key.address.toLowerCase() as Address;
  if (action.type !== 'auth' && action.from && action.from !== memberAddress) {
    throw new AppError(Errors.InvalidFrom, { detail: `the request is from ${action.from}; the member's address is ${memberAddress}` });
  }
  const transaction = isTransactionAction(action) ? action : undefined;
  await assertNotBlacklisted(deps.store.db, [
    memberAddress,
    transaction?.call.to,
    transaction && 'contract' in transaction ? transaction.contract : undefined,
    transaction && 'to' in transaction ? transaction.to : undefined,
  ]);

  switch (action.type) {
    case 'auth': {
      const addresses = key.mnemonic ? deriveChainAddresses(key.mnemonic) : {};
      const ciHash = row.service_key_id ? await ciHashFor(deps.store.db, row.service_key_id, member) : undefined;
      return {
        result: { main_address: memberAddress, evm_address: memberAddress, ...addresses },
        ...(ciHash ? { ci_hash: ciHash } : {}),
      };
    }
    case 'sign_message':
    case 'sign_message_eip191':
    case 'sign_typedData_v4': {
      const prefix = deps.chains.get(row.chain).messagePrefix;
      return { result: { ...(await signMessageAction(key.account, action, prefix)) } };
    }
    case 'send_coin':
    case 'send_token':
    case 'send_card':
    case 'execute_contract':
      return sendTransaction(deps, row, action, member, key, listener);
  }
}

async function sendTransaction(
  deps: { config: Readonly<Config>; store: Store; vault: KeyVault; chains: ChainRegistry; outbox: TransactionOutbox },
  row: A2aRequestRow,
  action: TransactionAction,
  member: UserRow,
  key: UnlockedKey,
  listener: RequestChangeListener | undefined,
): Promise<StoredOutcome> {
  const db = deps.store.db;
  const chain = deps.chains.get(row.chain);
  const sender = key.address.toLowerCase() as Address;
  const call = transactionCall(action, sender);
  const allowance =
    action.type === 'execute_contract'
      ? await takeDailyAllowance(db, {
          userId: member.id,
          kind: 'execute_contract',
          limit: deps.config.a2a.executeContractDailyLimit,
          timeZone: deps.config.timeZone,
        })
      : undefined;
  try {
    if (action.type === 'send_token' && !action.native) await assertTokenBalance(chain, action.contract, sender, BigInt(action.units));
    const feeDelegated = row.fee_credential_id !== null;
    const estimate = await simulateCall(chain, call, sender, {
      feeDelegated,
      ...(action.type === 'execute_contract' ? { abi: action.abi } : {}),
    });
    const gas = feeDelegated ? gasLimitOf(estimate) : undefined;
    if (row.fee_credential_id && gas !== undefined) {
      await advanceFee(deps, {
        requestKey: row.request_key,
        credentialId: row.fee_credential_id,
        chain,
        member: sender,
        value: BigInt(call.value),
        gas,
      });
    }
    const submitted = await deps.outbox.submit({
      idempotencyKey: row.request_key,
      chain: chain.name,
      signer: { address: key.address, account: key.account },
      to: call.to,
      data: call.data,
      value: BigInt(call.value),
      ...(gas !== undefined ? { gas } : {}),
    });
    if (feeDelegated) listener?.feeDelegatedSubmitted?.(row.request_key, submitted.id);
    return { result: { tx_hash: submitted.txHash } };
  } catch (error) {
    if (!(await deps.outbox.findByIdempotencyKey(row.request_key))) await returnDailyAllowance(db, allowance);
    if (error instanceof OutboxRefusal) {
      throw new AppError(error.reason === 'reverted' ? 6414 : 6412, { detail: error.message, cause: error });
    }
    throw error;
  }
}

/** The call a member sends: a card transfer names its sender, which is the approving member. */
export function transactionCall(action: TransactionAction, sender: Address): PreparedCall {
  if (action.type !== 'send_card') return action.call;
  return {
    ...action.call,
    data: encodeFunctionData({
      abi: erc721Abi,
      functionName: 'safeTransferFrom',
      args: [sender, action.to, BigInt(action.card_id)],
    }),
  };
}

async function finishWithError(deps: { store: Store; log: Logger }, row: A2aRequestRow, executionId: string, error: unknown): Promise<void> {
  let code = 500;
  let message: string = 'internal server error';
  if (isAppError(error)) {
    code = error.code;
    message = error.detail ?? error.message;
  } else {
    deps.log.error(error as Error);
  }
  await failRequest(deps.store.db, row.request_key, executionId, { code, message }, epochSeconds());
}

/** A request that is still open: 6000 unknown, 6001 expired, 6011 finished. */
async function loadOpenRequest(deps: { config: Readonly<Config>; store: Store }, requestKeyInput: string, now: number): Promise<A2aRequestRow> {
  const row = await findLiveRequest(deps, requestKeyInput, now);
  if (row.status !== 'prepared' && row.status !== 'requested') throw new AppError(Errors.InvalidRequestStatus, { detail: `the request is ${row.status}` });
  if (row.execution_id) throw new AppError(Errors.InvalidRequestStatus, { detail: 'the request is being executed' });
  return row;
}

/** A request that exists and is within its lifetime (or finished and within retention). */
async function findLiveRequest(deps: { config: Readonly<Config>; store: Store }, requestKeyInput: string, now: number): Promise<A2aRequestRow> {
  const requestKey = normalizeRequestKey(requestKeyInput);
  const row = requestKey ? await findRequest(deps.store.db, requestKey) : undefined;
  if (!row) throw new AppError(Errors.RequestKeyUnknown);
  const open = row.status === 'prepared' || row.status === 'requested';
  const retention = deps.config.a2a.resultRetentionSeconds;
  const expiry = expiresAt(row);
  if (open && now >= expiry) {
    if (now > expiry + retention) throw new AppError(Errors.RequestKeyUnknown);
    throw new RequestKeyError(Errors.RequestKeyExpired, row.request_key, Number(row.expiration_time));
  }
  if (!open && row.finished_at !== null && now > Number(row.finished_at) + retention) throw new AppError(Errors.RequestKeyUnknown);
  return row;
}

/** Why a state change lost its race: the request expired, finished, or another approval holds it. */
async function stateError(deps: { config: Readonly<Config>; store: Store }, requestKey: string): Promise<AppError> {
  try {
    await loadOpenRequest(deps, requestKey, epochSeconds());
  } catch (error) {
    return error as AppError;
  }
  return new AppError(Errors.InvalidRequestStatus);
}

async function findMember(deps: { store: Store }, userId: string): Promise<UserRow> {
  const member = await findMemberById(deps.store.db, userId);
  if (!member) throw new AppError(Errors.UserNotFound);
  return member;
}

/** The member with this e-mail (the CLI approves on behalf of one). */
export async function findMemberByEmail(deps: { store: Store }, email: string): Promise<UserRow> {
  const member = await findMemberWithEmail(deps.store.db, email.trim().toLowerCase());
  if (!member) throw new AppError(Errors.UserNotFound);
  return member;
}
