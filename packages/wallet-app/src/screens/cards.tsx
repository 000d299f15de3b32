import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { MemberBapp, MemberCard } from '../wire.ts';
import { Loading, Screen } from '../components/screen.tsx';
import { navigate } from '../router.ts';
import { describeError } from '../messages.ts';

/**
 * The member's cards grouped by BApp, in the BApps' display order (A12's nft_order_no): 100 BApps a
 * page and 100 cards a BApp, each with a button for the next 100.
 */
export function Cards() {
  const [bapps, setBapps] = useState<MemberBapp[] | null>(null);
  const [next, setNext] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function load(cursor: string) {
    setBusy(true);
    try {
      const page = await api.cards(cursor);
      setBapps((shown) => [...(cursor ? (shown ?? []) : []), ...page.bapps]);
      setNext(page.next_cursor);
      setError('');
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  }
  useEffect(() => void load(''), []);

  async function moreOf(bapp: MemberBapp) {
    setBusy(true);
    try {
      const page = await api.bappCards(bapp.nft_id, bapp.cards_next_cursor);
      setBapps((shown) =>
        (shown ?? []).map((entry) => (entry.nft_id === bapp.nft_id ? { ...entry, cards: [...entry.cards, ...page.cards], cards_next_cursor: page.next_cursor } : entry)),
      );
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Screen title="Your cards">
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {bapps === null ? (
        !error && <Loading what="Loading your cards" />
      ) : bapps.length === 0 ? (
        <p class="muted">You have no cards yet. Cards an app gives you appear here, grouped by the app.</p>
      ) : (
        [...bapps]
          .sort((a, b) => a.nft_order_no - b.nft_order_no)
          .map((bapp) => (
            <section class="card bapp-group" key={bapp.nft_id} aria-labelledby={`bapp-${bapp.nft_id}`}>
              <div class="bapp-head">
                <img class="bapp-img" src={bapp.bapp_img || bapp.cards[0]?.image || ''} alt="" hidden={!(bapp.bapp_img || bapp.cards[0]?.image)} />
                <div>
                  <h2 id={`bapp-${bapp.nft_id}`}>{bapp.name}</h2>
                  <p class="muted small">
                    {bapp.summary !== bapp.name ? `${bapp.summary} · ` : ''}
                    {bapp.card_count === 1 ? '1 card' : `${bapp.card_count} cards`}
                  </p>
                </div>
              </div>
              <ul class="card-grid">
                {bapp.cards.map((card) => (
                  <li key={card.card_id}>
                    <CardTile nftId={bapp.nft_id} card={card} />
                  </li>
                ))}
              </ul>
              {bapp.cards_next_cursor && (
                <button type="button" onClick={() => moreOf(bapp)} disabled={busy}>
                  More cards of {bapp.name}
                </button>
              )}
            </section>
          ))
      )}
      {next && (
        <button type="button" onClick={() => load(next)} disabled={busy}>
          More apps
        </button>
      )}
    </Screen>
  );
}

function CardTile(props: { nftId: number; card: MemberCard }) {
  const { card } = props;
  const href = `/cards/${props.nftId}/${card.card_id}`;
  return (
    <a
      class={`card-tile layout-${card.layout}`}
      href={href}
      onClick={(event) => {
        event.preventDefault();
        navigate(href);
      }}
    >
      {card.image ? <img src={card.image} alt="" /> : <span class="card-tile-blank" aria-hidden="true" />}
      <span class="card-tile-name">{card.name}</span>
      <span class="muted small">#{card.card_id}</span>
    </a>
  );
}
