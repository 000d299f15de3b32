import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import type { HeldCard } from '../wire.ts';
import { PinField, RecipientFields, recipientOf } from '../components/fields.tsx';
import { Details, Loading, Mono, Screen } from '../components/screen.tsx';
import { formProblem } from '../components/validation.ts';
import { address } from '../format.ts';
import { describeError } from '../messages.ts';
import { navigate } from '../router.ts';

type Recipient = 'address' | 'person';

/**
 * Sending a card the member holds: to an address, or to a person by legal name and phone number
 * (a member, or a wallet kept for them until they sign up), confirmed with the PIN. The answer comes
 * once the transfer is mined; then the card is no longer the member's.
 */
export function SendCard(props: { nftId: number; cardId: number }) {
  const [card, setCard] = useState<HeldCard | null>(null);
  const [loadError, setLoadError] = useState('');
  const [kind, setKind] = useState<Recipient>('address');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState<{ hash: string; to_address: string } | null>(null);
  const pin = useRef<HTMLInputElement>(null);

  useEffect(() => {
    api.card(props.nftId, props.cardId).then(setCard, (caught) =>
      setLoadError(caught instanceof ApiError && caught.code === 404 ? 'This card is not in your wallet.' : describeError(caught)),
    );
  }, [props.nftId, props.cardId]);

  if (loadError)
    return (
      <Screen title="Send a card">
        <p class="notice" role="alert">
          {loadError}
        </p>
      </Screen>
    );
  if (!card)
    return (
      <Screen title="Send a card">
        <Loading what="Loading the card" />
      </Screen>
    );
  const m = card.metadata;
  if (sent)
    return (
      <Screen title="Card sent">
        <p class="lead" role="status">
          {m.name} is now in the wallet <Mono>{address(sent.to_address)}</Mono>.
        </p>
        {kind === 'person' && <p>If they are not a member yet, it waits for them there: it becomes theirs when they sign up with that name and phone number.</p>}
        <Details label="Transfer" rows={[['Transaction', <Mono>{sent.hash}</Mono>]]} />
        <p>
          <a
            class="button primary"
            href="/cards"
            onClick={(event) => {
              event.preventDefault();
              navigate('/cards');
            }}
          >
            Back to your cards
          </a>
        </p>
      </Screen>
    );
  const unavailable = m.send_friend_only ? 'This card can only be sent to a friend, which is not available.' : m.sendable ? null : 'Its app made this card not sendable.';

  async function submit(event: Event) {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const problem = formProblem(formElement);
    if (problem) return setError(problem);
    const form = new FormData(formElement);
    const to = recipientOf(form, kind);
    setBusy(true);
    setError('');
    try {
      setSent(await api.sendCard(props.nftId, props.cardId, pin.current!.value, to));
    } catch (caught) {
      setError(describeError(caught));
      setBusy(false);
      if (pin.current) {
        pin.current.value = '';
        pin.current.focus();
      }
    }
  }

  return (
    <Screen title="Send a card">
      <figure class={`card-picture layout-${m.layout ?? 'general'}`}>
        <img src={m.image} alt={`Card: ${m.name}`} />
        <figcaption>
          {m.name} · #{card.card_id}
        </figcaption>
      </figure>
      {unavailable ? (
        <p class="notice" role="alert" id="send-unavailable">
          {unavailable} It stays in your wallet.
        </p>
      ) : (
        <form class="stack" id="send-form" noValidate onSubmit={submit} aria-describedby={error ? 'send-error' : undefined}>
          <RecipientFields kind={kind} onKind={setKind} what="the card" />
          <PinField id="pin" label="PIN (6 digits)" inputRef={pin} />
          {error && (
            <p id="send-error" class="error" role="alert">
              {error}
            </p>
          )}
          <button class="primary" type="submit" disabled={busy}>
            {busy ? 'Sending…' : 'Send card'}
          </button>
        </form>
      )}
    </Screen>
  );
}
