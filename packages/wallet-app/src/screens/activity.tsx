import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Activity as ActivityAnswer } from '../wire.ts';
import { Loading, Mono, Screen } from '../components/screen.tsx';
import { address, dateTime } from '../format.ts';
import { describeCode, describeError } from '../messages.ts';

const REQUEST_STATE: Record<string, string> = {
  prepared: 'not opened',
  requested: 'waiting for you',
  completed: 'approved',
  canceled: 'canceled',
  error: 'failed',
};

/** A card's mint is its transfer from the zero address. */
const MINTED = /^0x0{40}$/;

const TRANSFER_STATE: Record<string, string> = { pending: 'sending', mined: 'done', failed: 'failed' };

/** The member's recent App2App requests and card transfers, newest first. */
export function Activity() {
  const [activity, setActivity] = useState<ActivityAnswer | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    api.activity().then(setActivity, (caught) => setError(describeError(caught)));
  }, []);
  return (
    <Screen title="Activity">
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!activity ? (
        !error && <Loading what="Loading your activity" />
      ) : (
        <>
          <section class="card" aria-labelledby="transfers-title">
            <h2 id="transfers-title">Cards sent and received</h2>
            {activity.card_transfers.length === 0 ? (
              <p class="muted">No card has moved yet.</p>
            ) : (
              <ul class="activity" id="card-transfers">
                {activity.card_transfers.map((transfer) => (
                  <li key={`${transfer.tx_hash}-${transfer.card_id}-${transfer.direction}`}>
                    <strong>
                      {transfer.direction === 'sent' ? 'Sent' : 'Received'} {transfer.card_name ?? 'a card'} #{transfer.card_id}
                    </strong>
                    <span class={`state state-${transfer.state}`}>{TRANSFER_STATE[transfer.state]}</span>
                    <span class="muted small">
                      {MINTED.test(transfer.counterparty) ? (
                        'new from its app'
                      ) : (
                        <>
                          {transfer.direction === 'sent' ? 'to' : 'from'} <Mono>{address(transfer.counterparty)}</Mono>
                        </>
                      )}{' '}
                      · {dateTime(transfer.time)}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section class="card" aria-labelledby="requests-title">
            <h2 id="requests-title">App requests</h2>
            {activity.requests.length === 0 ? (
              <p class="muted">No app has asked you anything yet.</p>
            ) : (
              <ul class="activity" id="requests">
                {activity.requests.map((request) => (
                  <li key={request.request_key}>
                    <strong>{request.bapp_name}</strong>
                    <span class={`state state-${request.status}`}>{REQUEST_STATE[request.status] ?? request.status}</span>
                    <span>{request.summary}</span>
                    <span class="muted small">
                      {dateTime(request.created_at)}
                      {request.error ? ` · ${describeCode(request.error.code)}` : ''}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      )}
    </Screen>
  );
}
