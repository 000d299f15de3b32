import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { CardMetadata, Claimed, ClaimView } from '../wire.ts';
import { Details, Loading, Mono, Screen } from '../components/screen.tsx';
import { AppLink } from '../components/fields.tsx';
import { address } from '../format.ts';
import { describeError } from '../messages.ts';

const STATUS: Record<ClaimView['status'], string> = {
  in_escrow: 'Waiting for you to claim it',
  claimed: 'Claimed',
  not_in_escrow: 'No longer available: the sender took it back',
};

/** An escrow claim link (`/claim/<id>#<secret>`): the card, and a button that makes it the member's. */
export function Claim(props: { claimId: string; secret: string | null }) {
  const [claim, setClaim] = useState<ClaimView | Claimed | null>(null);
  const [picture, setPicture] = useState<CardMetadata | null>(null);
  const [error, setError] = useState('');
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setClaim(null);
    setError('');
    setDone(false);
    if (!props.secret) {
      setError('This claim link is incomplete: open the whole link you were sent.');
      return;
    }
    let cancelled = false;
    api.viewClaim(props.claimId, props.secret).then(
      (view) => {
        if (cancelled) return;
        setClaim(view);
        api.cardMetadata(view.card_uri).then((metadata) => !cancelled && setPicture(metadata), () => {});
      },
      (caught) => !cancelled && setError(describeError(caught)),
    );
    return () => {
      cancelled = true;
    };
  }, [props.claimId, props.secret]);

  async function claimIt() {
    setBusy(true);
    setError('');
    try {
      setClaim(await api.claim(props.claimId, props.secret!));
      setDone(true);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  }

  if (!claim) {
    return (
      <Screen title="A card for you">
        {error ? (
          <p class="notice" role="alert">
            {error}
          </p>
        ) : (
          <Loading what="Loading the card" />
        )}
      </Screen>
    );
  }
  const name = claim.name || `Card #${claim.card_id}`;
  return (
    <Screen title={done ? 'The card is yours' : 'A card for you'}>
      <p class="lead">
        {claim.partner || 'A partner'} sent you the card <strong>{name}</strong>.
      </p>
      {picture?.image && (
        <figure class="card-picture">
          <img src={picture.image} alt={`Card: ${name}`} />
          {picture.description && <figcaption>{picture.description}</figcaption>}
        </figure>
      )}
      <Details
        label="Card details"
        rows={[
          ['Status', <span id="claim-status">{STATUS[claim.status]}</span>],
          ['Claimed to', claim.claimed_to ? <Mono>{address(claim.claimed_to)}</Mono> : null],
          ['Transaction', 'tx_hash' in claim ? <Mono>{claim.tx_hash}</Mono> : null],
          ['Card', `#${claim.card_id}`],
          ['Card contract', <Mono>{address(claim.contract_address)}</Mono>],
          ['Chain', claim.chain],
        ]}
      />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {done && (
        <>
          <p class="ok" role="status">
            The card is yours: it is in your wallet now.
          </p>
          <p>
            <AppLink class="button primary" id="claimed-card" href={`/cards/${claim.nft_id}/${claim.card_id}`}>
              Open {name}
            </AppLink>
          </p>
        </>
      )}
      {claim.status === 'in_escrow' && (
        <button id="claim-button" class="primary" type="button" onClick={claimIt} disabled={busy}>
          {busy ? 'Claiming…' : 'Claim the card'}
        </button>
      )}
    </Screen>
  );
}
