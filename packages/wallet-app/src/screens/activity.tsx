import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { ActivityItem } from '../wire.ts';
import { AppLink } from '../components/fields.tsx';
import { Loading, Mono, Screen } from '../components/screen.tsx';
import { address, dateTime, forPeople, fromUnits } from '../format.ts';
import { describeCode, describeError } from '../messages.ts';

const REQUEST_STATE: Record<Extract<ActivityItem, { kind: 'request' }>['state'], string> = {
  not_opened: 'not opened',
  waiting: 'waiting for you',
  approved: 'approved',
  canceled: 'canceled',
  failed: 'failed',
  expired: 'expired',
  refused: 'refused: not from this wallet',
};

const TRANSFER_STATE: Record<string, string> = { pending: 'sending', mined: 'done', failed: 'failed' };

/** A card's mint is its transfer from the zero address. */
const MINTED = /^0x0{40}$/;

type Party = Extract<ActivityItem, { kind: 'card' }>['counterparty'];

/** Who an address is: a member, a person, a BApp or a claim link by name, else the address itself. */
function Who(props: { party: Party }) {
  if (props.party.name) return <strong>{props.party.name}</strong>;
  return <Mono>{address(props.party.address)}</Mono>;
}

/** The link that opens a request's own screen (the App2App link's form). */
function requestLink(requestKey: string): string {
  return `/?${new URLSearchParams({ target: `/a2a?request_key=${requestKey}` })}`;
}

/** The member's activity, newest first: requests, cards, coins, tokens, test coins and claims, with links; more a page at a time. */
export function Activity() {
  const [items, setItems] = useState<ActivityItem[] | null>(null);
  const [next, setNext] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function load(cursor: string) {
    setBusy(true);
    setError('');
    try {
      const page = await api.activity(cursor);
      setItems((shown) => [...(cursor ? (shown ?? []) : []), ...page.items]);
      setNext(page.next_cursor);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  }
  useEffect(() => {
    void load('');
  }, []);

  return (
    <Screen title="Activity">
      {!items && !error && <Loading what="Loading your activity" />}
      {items && items.length === 0 && <p class="muted">Nothing has happened in your wallet yet.</p>}
      {items && items.length > 0 && (
        <ul class="activity card" id="activity-items" aria-label="Your activity, newest first">
          {items.map((item, index) => (
            <li key={index} data-kind={item.kind}>
              <Entry item={item} />
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {next && (
        <button type="button" onClick={() => load(next)} disabled={busy}>
          {busy ? 'Loading…' : 'Show older activity'}
        </button>
      )}
    </Screen>
  );
}

function Entry(props: { item: ActivityItem }) {
  const { item } = props;
  switch (item.kind) {
    case 'request':
      return (
        <>
          <strong>
            <AppLink href={requestLink(item.request_key)}>{item.bapp_name}</AppLink>
          </strong>
          <span class={`state state-${item.state}`}>{REQUEST_STATE[item.state]}</span>
          <span>{item.summary}</span>
          <span class="muted small">
            {dateTime(item.time)}
            {item.state === 'refused' ? ' · it uses the name of this wallet, so the wallet would not approve it' : ''}
            {item.error && item.state !== 'expired' ? ` · ${describeCode(item.error.code)}` : ''}
          </span>
        </>
      );
    case 'card': {
      const name = `${item.card_name ?? 'a card'} #${item.card_id}`;
      return (
        <>
          <strong>
            {item.direction === 'sent' ? 'Sent ' : 'Received '}
            {item.nft_id !== null ? <AppLink href={`/cards/${item.nft_id}/${item.card_id}`}>{name}</AppLink> : name}
          </strong>
          <span class={`state state-${item.state}`}>{TRANSFER_STATE[item.state]}</span>
          <span class="muted small">
            {MINTED.test(item.counterparty.address) ? (
              <>new from {item.bapp_name ?? 'its app'}</>
            ) : (
              <>
                {item.direction === 'sent' ? 'to' : 'from'} <Who party={item.counterparty} />
                {item.bapp_name ? ` · ${item.bapp_name}` : ''}
              </>
            )}{' '}
            · {dateTime(item.time)}
          </span>
        </>
      );
    }
    case 'claim':
      return (
        <>
          <strong>
            Claimed <AppLink href={`/cards/${item.nft_id}/${item.card_id}`}>{`${item.card_name ?? 'a card'} #${item.card_id}`}</AppLink>
          </strong>
          <span class="state state-mined">from a claim link</span>
          <span class="muted small">
            {item.bapp_name ? `${item.bapp_name} · ` : ''}
            {dateTime(item.time)}
          </span>
        </>
      );
    default: {
      const exact = fromUnits(item.units, item.decimals);
      const unit = item.symbol ?? 'tokens';
      const what = (
        <span title={`${exact} ${unit}`}>
          {forPeople(exact)} {item.kind === 'test_coins' ? `test ${unit}` : unit}
        </span>
      );
      return (
        <>
          <strong>
            {item.direction === 'sent' ? 'Sent ' : 'Received '}
            {what}
          </strong>
          <span class={`state state-${item.state}`}>{TRANSFER_STATE[item.state]}</span>
          <span class="muted small">
            {item.kind === 'test_coins' ? 'from the test faucet' : <>to <Who party={item.counterparty} /></>} · {item.chain_name} · {dateTime(item.time)}
          </span>
          {item.tx_hash && (
            <span class="muted small">
              Transaction <Mono>{item.tx_hash}</Mono>
            </span>
          )}
        </>
      );
    }
  }
}
