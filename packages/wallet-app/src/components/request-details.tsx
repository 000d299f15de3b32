import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { formatUnits } from 'viem';
import { api } from '../api.ts';
import type { CardMetadata, KnownContract, RequestType, RequestView } from '../wire.ts';
import { address, coins, dateTime, sameAddress } from '../format.ts';
import { Details, Mono } from './screen.tsx';
import { Block, CallArguments, decodeCall, TypedDomain, TypedFields, type TypedData } from './values.tsx';

/** What the BApp asks for, in a few words after "<BApp> asks you to". */
export const ASKS_TO: Record<RequestType, string> = {
  auth: 'connect your wallet: share your addresses',
  send_coin: 'send coins',
  send_token: 'send tokens',
  send_card: 'send a card',
  execute_contract: 'call a contract',
  sign_message: 'sign a message',
  sign_message_eip191: 'sign a message',
  sign_typedData_v4: 'sign structured data',
};

/** Every detail of what approving `view` will do, by type, in units a person reads. */
export function RequestDetails(props: { view: RequestView; member: string }) {
  const { view } = props;
  const tx = view.transaction;
  const ticker = view.chain_display?.ticker ?? 'coin';
  const common: Array<[string, ComponentChildren]> = [['Chain', view.chain_display?.name ?? view.chain]];
  const contract = (at: string) => <ContractName address={at} contracts={view.contracts ?? []} />;
  const balance: Array<[string, ComponentChildren]> = [
    ...(view.token_balance && view.token?.decimals !== undefined
      ? ([[`Your ${view.token.symbol ?? 'token'} balance`, <BalanceChange change={view.token_balance} decimals={view.token.decimals} unit={view.token.symbol ?? 'tokens'} />]] as Array<[string, ComponentChildren]>)
      : []),
    ['Your balance', view.coin_balance ? <BalanceChange change={view.coin_balance} decimals={18} unit={ticker} /> : null],
  ];
  const fee: Array<[string, ComponentChildren]> = view.fee_delegated
    ? [['Network fee', `paid by ${view.bapp.name}`]]
    : view.estimated_gas !== null
      ? [
          ['Gas limit (estimate)', `${view.estimated_gas.toLocaleString('en-US')} gas, paid in coins from your balance`],
          ['Estimated fee', view.estimated_fee ? `about ${coins(view.estimated_fee)} ${ticker} at today's gas price` : null],
        ]
      : [];
  const expires: [string, ComponentChildren] = ['Expires', dateTime(view.expiration_time)];

  switch (view.type) {
    case 'auth':
      return (
        <Details
          label="Request details"
          rows={[
            ['Address shared', <Mono>{address(props.member)}</Mono>],
            ['Also shared', 'your bitcoin, solana, tron and xrpl addresses of the same wallet'],
            expires,
          ]}
        />
      );
    case 'send_coin':
      return (
        <Details
          label="Request details"
          rows={[['Amount', <strong class="amount">{coins(tx!.value)} {ticker}</strong>], ['To', <Mono>{address(tx!.to)}</Mono>], ...common, ...fee, ...balance, expires]}
        />
      );
    case 'send_token': {
      const amount = tx!.native_coin ? (
        <strong class="amount">{coins(tx!.value)} {ticker}</strong>
      ) : (
        <strong class="amount">
          {tx!.amount} {view.token?.symbol ?? 'tokens'}
        </strong>
      );
      return (
        <Details
          label="Request details"
          rows={[
            ['Amount', amount],
            ['Token', tx!.native_coin ? 'the chain’s own coin' : contract(tx!.contract!)],
            ['Token symbol', tx!.native_coin ? null : (view.token?.symbol ?? 'the contract names none')],
            ['Token decimals', tx!.native_coin ? null : String(view.token?.decimals ?? tx!.decimals)],
            ['To', <Mono>{address(tx!.to)}</Mono>],
            ...common,
            ...fee,
            ...balance,
            expires,
          ]}
        />
      );
    }
    case 'send_card':
      return (
        <>
          <CardPicture contract={tx!.contract!} cardId={tx!.card_id!} holder={props.member} chain={view.chain} />
          <Details
            label="Request details"
            rows={[
              ['Card', `#${tx!.card_id}`],
              ['Card contract', contract(tx!.contract!)],
              ['To', <Mono>{address(tx!.to)}</Mono>],
              ...common,
              ...fee,
              ...balance,
              expires,
            ]}
          />
        </>
      );
    case 'execute_contract': {
      const call = decodeCall(tx!.abi, tx!.data);
      const value = BigInt(tx!.value);
      return (
        <Details
          label="Request details"
          rows={[
            ['Contract', contract(tx!.to)],
            [
              'Function',
              call ? (
                <>
                  <strong>{call.name}</strong>
                  {call.recognised && (
                    <span class="muted small">
                      {' '}
                      (recognised from its selector <Mono>{tx!.data.slice(0, 10)}</Mono>; the app gave no ABI)
                    </span>
                  )}
                </>
              ) : (
                <span>
                  not named by the app, and its selector <Mono>{tx!.data.slice(0, 10)}</Mono> is not one the wallet knows
                </span>
              ),
            ],
            ['Arguments', call ? <CallArguments call={call} /> : null],
            ['Coins sent with the call', value > 0n ? <strong class="amount">{formatUnits(value, 18)} {ticker}</strong> : 'none'],
            ['Call data', call && !call.recognised ? null : <Block label="Call data">{tx!.data}</Block>],
            ...common,
            ...fee,
            ...balance,
            expires,
          ]}
        />
      );
    }
    case 'sign_message':
    case 'sign_message_eip191': {
      const message = view.message!;
      const text = message.is_hex_encoded ? message.text : message.value;
      return (
        <Details
          label="Request details"
          rows={[
            [text === null ? 'Message (bytes, not text)' : 'Message', <Block label="Message">{text ?? message.value}</Block>],
            ['Signed as', view.type === 'sign_message' ? `a ${view.chain} signed message` : 'an Ethereum signed message (EIP-191)'],
            ['Cost', 'signing sends nothing and costs no fee'],
            expires,
          ]}
        />
      );
    }
    case 'sign_typedData_v4': {
      const data = view.typed_data as TypedData;
      const verifying = (data.domain as { verifyingContract?: unknown }).verifyingContract;
      return (
        <Details
          label="Request details"
          rows={[
            ['Domain', <TypedDomain data={data} />],
            ['Signed for', typeof verifying === 'string' ? contract(verifying) : null],
            ['Data type', <strong>{data.primaryType}</strong>],
            ['Data', <TypedFields types={data.types} fields={data.types[data.primaryType] ?? []} value={data.message} />],
            ['Cost', 'signing sends nothing and costs no fee'],
            expires,
          ]}
        />
      );
    }
  }
}

/** A contract by the name this service knows it by (a partner's card contract, the card escrow), with its address. */
function ContractName(props: { address: string; contracts: KnownContract[] }) {
  const known = props.contracts.find((entry) => sameAddress(entry.address, props.address));
  if (!known) return <Mono>{address(props.address)}</Mono>;
  return (
    <span class="contract-name">
      <strong>{known.name}</strong> <span class="muted small">by {known.operated_by}</span>
      <br />
      <Mono>{address(props.address)}</Mono>
    </span>
  );
}

/** A balance now and after the request; after below zero means it cannot be paid. */
function BalanceChange(props: { change: { before: string; after: string }; decimals: number; unit: string }) {
  const after = BigInt(props.change.after);
  const before = formatUnits(BigInt(props.change.before), props.decimals);
  if (after < 0n)
    return (
      <span class="error">
        {before} {props.unit} now: not enough, {formatUnits(-after, props.decimals)} {props.unit} short
      </span>
    );
  return (
    <span>
      {before} {props.unit} now, <strong>{formatUnits(after, props.decimals)} {props.unit}</strong> after
    </span>
  );
}

/**
 * The picture of the card a send_card request sends: found among the cards the member holds under
 * its contract (B4), then its metadata's image. Nothing is shown when it cannot be found.
 */
function CardPicture(props: { contract: string; cardId: string; holder: string; chain: string }) {
  const [card, setCard] = useState<CardMetadata | null>(null);
  useEffect(() => {
    let cancelled = false;
    (async () => {
      let cursor = '';
      for (let page = 0; page < 20; page++) {
        const found = await api.cardsOf(props.contract, props.holder, props.chain, cursor);
        const held = found.cards.find((entry) => String(entry.card_id) === props.cardId);
        if (held) {
          const metadata = await api.cardMetadata(held.card_uri);
          if (!cancelled) setCard(metadata);
          return;
        }
        if (!found.next_cursor) return;
        cursor = found.next_cursor;
      }
    })().catch(() => {});
    return () => {
      cancelled = true;
    };
  }, [props.contract, props.cardId, props.holder, props.chain]);
  if (!card) return null;
  return (
    <figure class="card-picture">
      {card.image && <img src={card.image} alt={card.name ? `Card: ${card.name}` : `Card #${props.cardId}`} />}
      <figcaption>{card.name || `Card #${props.cardId}`}</figcaption>
    </figure>
  );
}
