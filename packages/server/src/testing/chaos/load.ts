/**
 * The chaos run's load: seeded, mixed Family A and App2App operations through every running
 * instance, each call to a randomly picked one. Every answer updates the model the final check
 * holds the chain to; a call the kill cut off leaves its cards and coins uncertain (either outcome,
 * never both).
 */
import { encodeFunctionData, zeroAddress, type Address } from 'viem';
import { cardNftAbi } from '@wallet-service/contracts';
import { BURNED, LoadModel, Random, type CardEvent, type CardState } from './model.ts';

export interface ChaosPartner {
  email: string;
  passwordHash: string;
  pinHash: string;
  address: Address;
  contract: Address;
  nftId: number;
  token?: string;
}

export interface ChaosMember {
  email: string;
  passwordHash: string;
  pinHash: string;
  name: string;
  phone: string;
  address: Address;
  session?: string;
}

export interface LoadTarget {
  /** The base URL of a running instance, or undefined while none runs. */
  pick(random: Random): string | undefined;
}

export interface LoadContext {
  model: LoadModel;
  partners: ChaosPartner[];
  members: ChaosMember[];
  escrow: Address;
  target: LoadTarget;
  /** Failures the model did not expect (a refusal of a call that should have worked), for the report. */
  surprises: string[];
}

class Unanswered extends Error {}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

const CALL_TIMEOUT_MS = 60_000;

/** One HTTP call to an instance; a cut connection or a 5xx is Unanswered (the outcome is not known). */
async function call(baseUrl: string, method: string, path: string, options: { auth?: string; body?: unknown } = {}): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(options.auth ? { authorization: options.auth } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
  } catch (error) {
    throw new Unanswered((error as Error).message);
  }
  const text = await response.text().catch(() => '');
  if (response.status >= 500) throw new Unanswered(`${response.status} ${text.slice(0, 200)}`);
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not JSON: kept empty, the status says enough.
  }
  return { status: response.status, body };
}

/** Calls until an instance answers at all (used for sign-in and reads, which change nothing). */
async function callAnyInstance(context: LoadContext, random: Random, method: string, path: string, options: { auth?: string; body?: unknown } = {}): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const baseUrl = context.target.pick(random);
    try {
      if (baseUrl) return await call(baseUrl, method, path, options);
    } catch (error) {
      if (!(error instanceof Unanswered) || attempt > 200) throw error;
    }
    await sleep(250);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Signs in every partner and member (tokens and sessions hold on every instance: they share the store and key). */
export async function signInAll(context: LoadContext, random: Random): Promise<void> {
  for (const partner of context.partners) {
    const answer = await callAnyInstance(context, random, 'POST', '/v2/partner/auth', { body: { email: partner.email, password: partner.passwordHash } });
    if (answer.status !== 200) throw new Error(`partner sign-in: ${answer.status} ${JSON.stringify(answer.body)}`);
    partner.token = answer.body.access_token as string;
    // A15, once per contract: lets the escrow take the partner's cards.
    const approved = await callAnyInstance(context, random, 'POST', '/v2/escrow/approve', {
      auth: partner.token,
      body: { pin: partner.pinHash, contract_address: partner.contract },
    });
    if (approved.status !== 200) throw new Error(`escrow approve: ${approved.status} ${JSON.stringify(approved.body)}`);
  }
  for (const member of context.members) {
    const answer = await callAnyInstance(context, random, 'POST', '/v2/wallet-app/sessions', { body: { email: member.email, password: member.passwordHash } });
    if (answer.status !== 200) throw new Error(`member sign-in: ${answer.status} ${JSON.stringify(answer.body)}`);
    member.session = `Bearer ${answer.body.session_token as string}`;
  }
}

type Operation = (context: LoadContext, random: Random, baseUrl: string) => Promise<void>;

/** Runs one operation, counting its outcome under `kind`; the operation updates the model itself. */
async function run(kind: string, context: LoadContext, random: Random, baseUrl: string, operation: Operation): Promise<void> {
  try {
    await operation(context, random, baseUrl);
  } catch (error) {
    if (!(error instanceof Unanswered)) throw error;
    context.model.count(kind, 'unanswered');
    context.surprises.push(`${kind}: unanswered: ${error.message}`);
  }
}

/** A call on a card as the report of a loss shows it. */
function cardEvent(kind: string, instance: string, sentAt: number, to: string, result: Answer | Error): CardEvent {
  const answered = !(result instanceof Error);
  const body = answered ? result.body : {};
  const a2aResult = body.result as { tx_hash?: unknown } | undefined;
  const hash = [body.hash, body.tx_hash, a2aResult?.tx_hash].find((value): value is string => typeof value === 'string');
  return {
    kind,
    sentAt,
    doneAt: Date.now(),
    instance,
    // App2App answers 200 with the request's status: only a completed one is answered.
    outcome: !answered ? 'unanswered' : result.status === 200 && (!kind.startsWith('a2a-') || result.body.status === 'completed') ? 'answered' : 'refused',
    to: to.toLowerCase(),
    answer: answered ? `${result.status} ${JSON.stringify(result.body).slice(0, 300)}` : `none: ${result.message.slice(0, 200)}`,
    ...(hash ? { hash } : {}),
  };
}

function mintPayload(partner: ChaosPartner, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    pin: partner.pinHash,
    contract_address: partner.contract,
    name: 'Chaos Card',
    description: 'minted by the chaos run',
    image: 'https://cdn.example.com/chaos.png',
    sendable: true,
    ...extra,
  };
}

/** A7: to the partner itself (cards for sends, deletes, escrow), members and fresh addresses. */
const mintToAddresses: Operation = async (context, random, baseUrl) => {
  const partnerIndex = random.int(0, context.partners.length - 1);
  const partner = context.partners[partnerIndex]!;
  const recipients: Address[] = [];
  for (let i = random.int(1, 4); i > 0; i--) {
    const roll = random.next();
    recipients.push(roll < 0.45 ? partner.address : roll < 0.7 ? random.pick(context.members).address : random.address());
  }
  const fresh = recipients.filter((address) => address !== partner.address && !context.members.some((member) => member.address === address));
  for (const address of fresh) context.model.freshMintRecipients.set(address, { partner: partnerIndex, answered: false });
  const sentAt = Date.now();
  const answer = await call(baseUrl, 'POST', '/v2/wallet/mint', { auth: partner.token!, body: mintPayload(partner, { to_address: recipients }) });
  recordMint(context, 'mint', partnerIndex, recipients, answer, baseUrl, sentAt);
  if (answer.status === 200) for (const address of fresh) context.model.freshMintRecipients.set(address, { partner: partnerIndex, answered: true });
};

/** A8: to a member named by name and phone (the card goes to the member's address). */
const mintToPerson: Operation = async (context, random, baseUrl) => {
  const partnerIndex = random.int(0, context.partners.length - 1);
  const partner = context.partners[partnerIndex]!;
  const member = random.pick(context.members);
  const sentAt = Date.now();
  const answer = await call(baseUrl, 'POST', '/v2/wallet/mint/person', {
    auth: partner.token!,
    body: mintPayload(partner, { to_person: [[member.name, member.phone]] }),
  });
  recordMint(context, 'mint-person', partnerIndex, [member.address], answer, baseUrl, sentAt);
};

function recordMint(context: LoadContext, kind: string, partnerIndex: number, recipients: Address[], answer: Answer, baseUrl: string, sentAt: number): void {
  if (answer.status !== 200) {
    context.model.count(kind, 'refused');
    context.surprises.push(`${kind}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return;
  }
  context.model.count(kind, 'answered');
  const ids = answer.body.card_ids as Array<number | null>;
  ids.forEach((id, index) => {
    if (id !== null) context.model.addCard(partnerIndex, id, recipients[index]!, cardEvent(kind, baseUrl, sentAt, recipients[index]!, answer));
  });
}

/**
 * Runs `action` on a card taken from the model; the card's possible owners become `after` when
 * answered 200, stay when refused, and are either when unanswered.
 */
async function onCard(
  context: LoadContext,
  kind: string,
  card: CardState,
  after: string,
  baseUrl: string,
  action: () => Promise<Answer>,
  answered?: (answer: Answer) => void,
): Promise<void> {
  const sentAt = Date.now();
  try {
    const answer = await action();
    card.history.push(cardEvent(kind, baseUrl, sentAt, after, answer));
    if (answer.status === 200) {
      context.model.count(kind, 'answered');
      card.possible = new Set([after.toLowerCase()]);
      answered?.(answer);
    } else {
      context.model.count(kind, 'refused');
      context.surprises.push(`${kind} card ${card.partner}:${card.cardId}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  } catch (error) {
    if (!(error instanceof Unanswered)) throw error;
    card.history.push(cardEvent(kind, baseUrl, sentAt, after, error));
    context.model.count(kind, 'unanswered');
    context.surprises.push(`${kind} card ${card.partner}:${card.cardId}: unanswered: ${error.message}`);
    card.possible.add(after.toLowerCase());
  } finally {
    card.busy = false;
  }
}

const partnerHeld = (context: LoadContext) => (card: CardState) => LoadModel.ownerOf(card) === context.partners[card.partner]!.address;

/** A10: a card the partner holds to a fresh address. */
const sendCard: Operation = async (context, random, baseUrl) => {
  const card = context.model.takeCard(random, undefined, partnerHeld(context));
  if (!card) return;
  const partner = context.partners[card.partner]!;
  const to = random.address();
  await onCard(context, 'send', card, to, baseUrl, () =>
    call(baseUrl, 'POST', `/v2/wallet/nft/${partner.nftId}/${card.cardId}/send`, { auth: partner.token!, body: { pin: partner.pinHash, to_address: to, card_name: 'Chaos Card' } }),
  );
};

/** A14: burns a card the partner holds. */
const deleteCard: Operation = async (context, random, baseUrl) => {
  const card = context.model.takeCard(random, undefined, partnerHeld(context));
  if (!card) return;
  const partner = context.partners[card.partner]!;
  await onCard(context, 'delete', card, BURNED, baseUrl, () =>
    call(baseUrl, 'DELETE', '/v2/wallet/nft', { auth: partner.token!, body: { pin: partner.pinHash, card_id: card.cardId, contract_address: partner.contract } }),
  );
};

/** A17: one card the partner holds into escrow; its claim link is kept for a claim or A19. */
const depositCard: Operation = async (context, random, baseUrl) => {
  const card = context.model.takeCard(random, undefined, partnerHeld(context));
  if (!card) return;
  const partner = context.partners[card.partner]!;
  await onCard(
    context,
    'escrow-deposit',
    card,
    context.escrow,
    baseUrl,
    () => call(baseUrl, 'POST', '/v2/escrow', { auth: partner.token!, body: { pin: partner.pinHash, card_ids: [card.cardId], contract_address: partner.contract } }),
    (answer) => {
      const link = (answer.body.claim_links as string[])[0];
      if (!link) return;
      const { pathname, hash } = new URL(link);
      card.claim = { id: pathname.split('/').pop()!, secret: hash.slice(1) };
    },
  );
};

const inEscrow = (context: LoadContext) => (card: CardState) => LoadModel.ownerOf(card) === context.escrow.toLowerCase() && card.claim !== undefined;

/** A member claims an escrowed card through its link. */
const claimCard: Operation = async (context, random, baseUrl) => {
  const card = context.model.takeCard(random, undefined, inEscrow(context));
  if (!card) return;
  const member = random.pick(context.members);
  const claim = card.claim!;
  await onCard(
    context,
    'escrow-claim',
    card,
    member.address,
    baseUrl,
    () => call(baseUrl, 'POST', `/v2/wallet-app/claims/${claim.id}/claim`, { auth: member.session!, body: { secret: claim.secret } }),
    () => (card.claim = undefined),
  );
};

/** A19: the partner takes an escrowed card back. */
const cancelEscrow: Operation = async (context, random, baseUrl) => {
  const card = context.model.takeCard(random, undefined, inEscrow(context));
  if (!card) return;
  const partner = context.partners[card.partner]!;
  await onCard(
    context,
    'escrow-cancel',
    card,
    partner.address,
    baseUrl,
    () => call(baseUrl, 'DELETE', '/v2/escrow', { auth: partner.token!, body: { pin: partner.pinHash, card_ids: [card.cardId], contract_address: partner.contract } }),
    () => (card.claim = undefined),
  );
};

const A2A_TYPES = ['send_coin', 'send_token', 'send_card', 'execute_contract', 'auth', 'sign_message', 'sign_message_eip191', 'sign_typedData_v4'] as const;

/**
 * App2App: prepare on one instance, open and approve on another (as a member), the result
 * long-polled on a third. Transaction types move coins or a card to a fresh address.
 */
const app2app: Operation = async (context, random, baseUrl) => {
  const type = random.pick(A2A_TYPES);
  const member = random.pick(context.members);
  const to = random.address();
  const wei = BigInt(random.int(1, 1_000_000)) * 1_000_000_000n;
  let card: CardState | undefined;
  let body: Record<string, unknown>;
  const bapp = { name: 'Chaos BApp' };
  switch (type) {
    case 'send_coin':
      body = { bapp, type, transaction: { to, amount: formatCoins(wei), from: member.address } };
      break;
    case 'send_token':
      body = { bapp, type, transaction: { contract: zeroAddress, to, amount: formatCoins(wei), from: member.address } };
      break;
    case 'send_card':
    case 'execute_contract': {
      card = context.model.takeCard(random, undefined, (candidate) => LoadModel.ownerOf(candidate) === member.address.toLowerCase());
      if (!card) return;
      const contract = context.partners[card.partner]!.contract;
      body =
        type === 'send_card'
          ? { bapp, type, transaction: { contract, to, card_id: String(card.cardId), from: member.address } }
          : {
              bapp,
              type,
              transaction: {
                to: contract,
                value: '0',
                encoded_function_call: encodeFunctionData({ abi: cardNftAbi, functionName: 'transferFrom', args: [member.address, to, BigInt(card.cardId)] }),
                from: member.address,
              },
            };
      break;
    }
    case 'auth':
      body = { bapp, type };
      break;
    case 'sign_message':
    case 'sign_message_eip191':
      body = { bapp, type, message: { value: `chaos ${random.int(0, 1e9)}`, from: member.address } };
      break;
    case 'sign_typedData_v4':
      body = {
        bapp,
        type,
        message: {
          from: member.address,
          value: {
            types: { EIP712Domain: [{ name: 'name', type: 'string' }], Note: [{ name: 'text', type: 'string' }] },
            primaryType: 'Note',
            domain: { name: 'Chaos' },
            message: { text: `chaos ${random.int(0, 1e9)}` },
          },
        },
      };
      break;
  }
  const kind = `a2a-${type}`;
  const coins = type === 'send_coin' || type === 'send_token';
  const sentAt = Date.now();
  let approveUrl = baseUrl;
  try {
    const prepared = await call(baseUrl, 'POST', '/v2/a2a/prepare', { body });
    if (prepared.status !== 200) {
      context.model.count(kind, 'refused');
      context.surprises.push(`${kind} prepare: ${prepared.status} ${JSON.stringify(prepared.body)}`);
      return;
    }
    const key = prepared.body.request_key as string;
    // The result is long-polled on another instance while the member approves.
    const resultUrl = context.target.pick(random);
    const poll = resultUrl ? call(resultUrl, 'GET', `/v2/a2a/result?request_key=${key}&wait=10`).catch(() => undefined) : Promise.resolve(undefined);
    approveUrl = context.target.pick(random) ?? baseUrl;
    await call(approveUrl, 'POST', `/v2/wallet-app/a2a/requests/${key}/open`, { auth: member.session! });
    let approved: Answer;
    try {
      approved = await call(approveUrl, 'POST', `/v2/wallet-app/a2a/requests/${key}/approve`, { auth: member.session!, body: { pin: member.pinHash } });
    } catch (error) {
      if (!(error instanceof Unanswered)) throw error;
      // The approval may have gone through: asked again (on any instance), it is never executed twice.
      approved = await callAnyInstance(context, random, 'POST', `/v2/wallet-app/a2a/requests/${key}/approve`, { auth: member.session!, body: { pin: member.pinHash } });
      if (approved.status === 400 && (approved.body.code as number) === 6011) {
        // Already approved, or still executing there: its result tells which, once it is final.
        approved = await callAnyInstance(context, random, 'GET', `/v2/a2a/result?request_key=${key}&wait=30`);
        if (approved.status === 200 && approved.body.status === 'requested') throw new Unanswered('approval still executing');
      }
    }
    await poll;
    card?.history.push(cardEvent(kind, approveUrl, sentAt, to, approved));
    if (approved.status !== 200 || approved.body.status !== 'completed') {
      context.model.count(kind, 'refused');
      context.surprises.push(`${kind} approve: ${approved.status} ${JSON.stringify(approved.body)}`);
      return;
    }
    context.model.count(kind, 'answered');
    if (card) card.possible = new Set([to.toLowerCase()]);
    if (coins) context.model.coins.push({ address: to, wei, certain: true });
  } catch (error) {
    if (!(error instanceof Unanswered)) throw error;
    card?.history.push(cardEvent(kind, approveUrl, sentAt, to, error));
    context.model.count(kind, 'unanswered');
    context.surprises.push(`${kind} approve: unanswered: ${error.message}`);
    if (card) card.possible.add(to.toLowerCase());
    if (coins) context.model.coins.push({ address: to, wei, certain: false });
  } finally {
    if (card) card.busy = false;
  }
};

function formatCoins(wei: bigint): string {
  const whole = wei / 10n ** 18n;
  const fraction = (wei % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** The mix: mints most, since every other operation needs cards. */
const MIX: Array<[number, string, Operation]> = [
  [18, 'mint', mintToAddresses],
  [6, 'mint-person', mintToPerson],
  [10, 'send', sendCard],
  [6, 'delete', deleteCard],
  [10, 'escrow-deposit', depositCard],
  [6, 'escrow-claim', claimCard],
  [4, 'escrow-cancel', cancelEscrow],
  [40, 'a2a', app2app],
];
const MIX_TOTAL = MIX.reduce((sum, [weight]) => sum + weight, 0);

/** One worker: picks operations by the seed until `until`, each on an instance picked at random. */
export async function runWorker(context: LoadContext, random: Random, until: number): Promise<void> {
  while (Date.now() < until) {
    let roll = random.next() * MIX_TOTAL;
    const [, kind, operation] = MIX.find(([weight]) => (roll -= weight) < 0) ?? MIX[0]!;
    const baseUrl = context.target.pick(random);
    if (!baseUrl) {
      await sleep(200);
      continue;
    }
    await run(kind, context, random, baseUrl, operation);
  }
}
