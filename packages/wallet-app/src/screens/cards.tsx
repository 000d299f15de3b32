import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { MemberBapp, MemberCard } from '../wire.ts';
import { Loading, Screen } from '../components/screen.tsx';
import { navigate } from '../router.ts';
import { describeError } from '../messages.ts';

type Sort = 'collection' | 'newest' | 'name';

const SORTS: Array<[Sort, string]> = [
  ['collection', 'By collection'],
  ['newest', 'Newest first'],
  ['name', 'Name (A to Z)'],
];

/**
 * The member's cards: by collection (a BApp's card contract, in the BApps' display order, A12's
 * nft_order_no), each group folding away, or as one list, newest first or by name; a search by
 * name over the cards loaded. Pages stay as the API gives them (100 BApps a page, 100 cards a
 * BApp): the search says how many cards are not loaded yet, with the button to load them.
 */
export function Cards() {
  const [bapps, setBapps] = useState<MemberBapp[] | null>(null);
  const [next, setNext] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<Sort>('collection');
  const [collapsed, setCollapsed] = useState<ReadonlySet<number>>(new Set());

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

  const ordered = useMemo(() => [...(bapps ?? [])].sort((a, b) => a.nft_order_no - b.nft_order_no), [bapps]);
  const words = query.trim().toLowerCase();
  const matches = (card: MemberCard) => words === '' || card.name.toLowerCase().includes(words);
  const loaded = ordered.reduce((sum, bapp) => sum + bapp.cards.length, 0);
  const total = ordered.reduce((sum, bapp) => sum + bapp.card_count, 0);
  const found = ordered.reduce((sum, bapp) => sum + bapp.cards.filter(matches).length, 0);
  // The next page to load when a flat list or a search wants more: a BApp's next cards, else the next BApps.
  const unfinished = ordered.find((bapp) => bapp.cards_next_cursor);
  const loadMore = unfinished ? () => moreOf(unfinished) : next ? () => load(next) : null;
  const toggle = (nftId: number) =>
    setCollapsed((shown) => {
      const changed = new Set(shown);
      if (!changed.delete(nftId)) changed.add(nftId);
      return changed;
    });

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
        <>
          <div class="card toolbar" role="search" aria-label="Your cards">
            <label class="field">
              <span>Search by name</span>
              <input id="card-search" type="search" value={query} onInput={(event) => setQuery(event.currentTarget.value)} autocomplete="off" />
            </label>
            <label class="field">
              <span>Sort</span>
              <select id="card-sort" value={sort} onChange={(event) => setSort(event.currentTarget.value as Sort)}>
                {SORTS.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </label>
            {sort === 'collection' && ordered.length > 1 && (
              <div class="actions">
                <button type="button" id="collapse-all" onClick={() => setCollapsed(new Set(ordered.map((bapp) => bapp.nft_id)))}>
                  Collapse all
                </button>
                <button type="button" id="expand-all" onClick={() => setCollapsed(new Set())}>
                  Expand all
                </button>
              </div>
            )}
            <p class="muted small" id="card-count" role="status">
              {words ? `${found} of ${loaded} cards match “${query.trim()}”.` : `${loaded} cards shown.`}
              {loaded < total && ` ${total - loaded} more are not loaded yet.`}
            </p>
            {loaded < total && loadMore && (
              <button type="button" id="load-more" onClick={loadMore} disabled={busy}>
                Load more cards
              </button>
            )}
          </div>
          {sort === 'collection' ? (
            ordered.map((bapp) => {
              const shown = bapp.cards.filter(matches);
              if (words && shown.length === 0) return null;
              const open = !collapsed.has(bapp.nft_id);
              return (
                <section class="card bapp-group" key={bapp.nft_id} aria-labelledby={`bapp-${bapp.nft_id}`}>
                  <div class="bapp-head">
                    <img class="bapp-img" src={bapp.bapp_img || bapp.cards[0]?.image || ''} alt="" hidden={!(bapp.bapp_img || bapp.cards[0]?.image)} />
                    <div class="grow">
                      <h2 id={`bapp-${bapp.nft_id}`}>{bapp.name}</h2>
                      <p class="muted small">
                        {bapp.summary !== bapp.name ? `${bapp.summary} · ` : ''}
                        {bapp.card_count === 1 ? '1 card' : `${bapp.card_count} cards`}
                        {words ? ` · ${shown.length} match` : ''}
                      </p>
                    </div>
                    <button type="button" class="fold" aria-expanded={open} aria-controls={`cards-of-${bapp.nft_id}`} onClick={() => toggle(bapp.nft_id)}>
                      {open ? 'Collapse' : 'Expand'}
                      <span class="visually-hidden"> {bapp.name}</span>
                    </button>
                  </div>
                  <div id={`cards-of-${bapp.nft_id}`} hidden={!open} class="stack">
                    <CardGrid nftId={bapp.nft_id} cards={shown} />
                    {bapp.cards_next_cursor && (
                      <button type="button" onClick={() => moreOf(bapp)} disabled={busy}>
                        More cards of {bapp.name}
                      </button>
                    )}
                  </div>
                </section>
              );
            })
          ) : (
            <section class="card" aria-label={sort === 'newest' ? 'Cards, newest first' : 'Cards by name'}>
              <FlatList bapps={ordered} sort={sort} matches={matches} />
            </section>
          )}
          {words && found === 0 && (
            <p class="muted" id="no-match">
              No card loaded has “{query.trim()}” in its name.
            </p>
          )}
        </>
      )}
      {next && (
        <button type="button" onClick={() => load(next)} disabled={busy}>
          More apps
        </button>
      )}
    </Screen>
  );
}

/** Every loaded card in one list, each with its collection's name. */
function FlatList(props: { bapps: MemberBapp[]; sort: 'newest' | 'name'; matches: (card: MemberCard) => boolean }) {
  const entries = props.bapps.flatMap((bapp) => bapp.cards.filter(props.matches).map((card) => ({ bapp, card })));
  entries.sort((a, b) =>
    props.sort === 'newest'
      ? b.card.created_at - a.card.created_at || b.card.card_id - a.card.card_id
      : a.card.name.localeCompare(b.card.name, undefined, { numeric: true, sensitivity: 'base' }) || a.card.card_id - b.card.card_id,
  );
  return (
    <ul class="card-grid">
      {entries.map(({ bapp, card }) => (
        <li key={`${bapp.nft_id}/${card.card_id}`}>
          <CardTile nftId={bapp.nft_id} card={card} collection={bapp.name} />
        </li>
      ))}
    </ul>
  );
}

function CardGrid(props: { nftId: number; cards: MemberCard[] }) {
  return (
    <ul class="card-grid">
      {props.cards.map((card) => (
        <li key={card.card_id}>
          <CardTile nftId={props.nftId} card={card} />
        </li>
      ))}
    </ul>
  );
}

function CardTile(props: { nftId: number; card: MemberCard; collection?: string }) {
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
      {card.image ? <img src={card.image} alt="" loading="lazy" decoding="async" /> : <span class="card-tile-blank" aria-hidden="true" />}
      <span class="card-tile-name">{card.name}</span>
      <span class="muted small">
        #{card.card_id}
        {props.collection ? ` · ${props.collection}` : ''}
      </span>
    </a>
  );
}
