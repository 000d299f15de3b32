import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { accountApi } from '../account-api.ts';
import { api, ApiError } from '../api.ts';
import type { Member, RequestOutcome, RequestView, RequestWarning as Warning } from '../wire.ts';
import { ASKS_TO, RequestDetails } from '../components/request-details.tsx';
import { Details, Loading, Mono, Screen } from '../components/screen.tsx';
import { address, safeLink, sameAddress } from '../format.ts';
import { describeCode, describeError, PIN_LOCKED } from '../messages.ts';
import { formProblem } from '../components/validation.ts';
import { PinField } from '../components/fields.tsx';

type State =
  | { phase: 'loading' }
  | { phase: 'open'; view: RequestView }
  /** Nothing more can be done with it: expired, finished before, unknown. */
  | { phase: 'closed'; title: string; message: string; view?: RequestView }
  | { phase: 'decided'; view: RequestView; outcome: RequestOutcome };

/** The address a request must be approved from, when the BApp named one. */
function requiredFrom(view: RequestView): string | null {
  return view.from ?? view.transaction?.from ?? view.message?.from ?? null;
}

const FINISHED: Record<string, string> = {
  completed: 'This request was already approved.',
  canceled: 'This request was canceled.',
  error: 'This request ended in an error.',
};

/**
 * An App2App request (the universal link `/?target=/a2a?request_key=K`): what it will do, then the
 * PIN to approve it, or cancel; afterwards the way back to the BApp. A request for another member's
 * address, or a member whose PIN is locked, is told so here, before any PIN is asked.
 */
export function Confirm(props: { member: Member; requestKey: string }) {
  const [state, setState] = useState<State>({ phase: 'loading' });

  useEffect(() => {
    let cancelled = false;
    setState({ phase: 'loading' });
    (async (): Promise<State> => {
      try {
        return { phase: 'open', view: await api.openRequest(props.requestKey) };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.code === 6001) return { phase: 'closed', title: 'Request expired', message: describeError(error) };
        // Finished requests can still be read: say how they ended.
        const view = await api.viewRequest(props.requestKey).catch(() => undefined);
        if (view && FINISHED[view.status]) return { phase: 'closed', title: 'Request finished', message: FINISHED[view.status]!, view };
        return { phase: 'closed', title: 'Request unavailable', message: describeError(error) };
      }
    })().then(
      (next) => !cancelled && setState(next),
      (error) => !cancelled && setState({ phase: 'closed', title: 'Request unavailable', message: describeError(error) }),
    );
    return () => {
      cancelled = true;
    };
  }, [props.requestKey]);

  switch (state.phase) {
    case 'loading':
      return (
        <Screen title="Request">
          <Loading what="Loading the request" />
        </Screen>
      );
    case 'closed':
      return (
        <Screen title={state.title}>
          <p class="notice" role="alert">
            {state.message}
          </p>
          {state.view && <ReturnLink view={state.view} success={state.view.status === 'completed'} />}
        </Screen>
      );
    case 'decided':
      return <Decided view={state.view} outcome={state.outcome} />;
    case 'open':
      return (
        <OpenRequest
          view={state.view}
          member={props.member}
          onDecided={(outcome) => setState({ phase: 'decided', view: state.view, outcome })}
          onClosed={(title, message) => setState({ phase: 'closed', title, message, view: state.view })}
        />
      );
  }
}

function OpenRequest(props: {
  view: RequestView;
  member: Member;
  onDecided: (outcome: RequestOutcome) => void;
  onClosed: (title: string, message: string) => void;
}) {
  const { view, member } = props;
  const [error, setError] = useState('');
  const [busy, setBusy] = useState<'approve' | 'cancel' | null>(null);
  const pin = useRef<HTMLInputElement>(null);
  const from = requiredFrom(view);
  const foreign = from !== null && !sameAddress(from, member.main_address);
  const impersonating = view.bapp.impersonates_operator === true;
  const [pinLocked, setPinLocked] = useState(false);
  const warnings = view.warnings ?? [];
  // The PIN is asked only once the member has said she read every warning.
  const [acknowledged, setAcknowledged] = useState(false);

  // Asked once the request is shown; if it cannot be read, the PIN field stays and approving tells the lock.
  useEffect(() => {
    let cancelled = false;
    accountApi.pinState().then((state) => !cancelled && setPinLocked(state.locked), () => {});
    return () => {
      cancelled = true;
    };
  }, []);

  async function decide(action: 'approve' | 'cancel') {
    setBusy(action);
    setError('');
    try {
      const outcome = action === 'approve' ? await api.approveRequest(view.request_key, pin.current!.value) : await api.cancelRequest(view.request_key);
      props.onDecided(outcome);
    } catch (caught) {
      if (caught instanceof ApiError && (caught.code === 6001 || caught.code === 6011)) {
        props.onClosed(caught.code === 6001 ? 'Request expired' : 'Request finished', describeError(caught));
        return;
      }
      // The fifth wrong PIN in a row locks it: no PIN is asked any more.
      if (caught instanceof ApiError && caught.code === 403) setPinLocked(true);
      setError(describeError(caught));
      setBusy(null);
      if (pin.current) {
        pin.current.value = '';
        pin.current.focus();
      }
    }
  }

  return (
    <Screen title="Confirm request">
      <p class="lead">
        <strong class="bapp">{view.bapp.name}</strong> asks you to {ASKS_TO[view.type]}.
      </p>
      <p class="muted small">The app gave this name itself; the wallet cannot check it.</p>
      {warnings.length > 0 && <Warnings warnings={warnings} />}
      <RequestDetails view={view} member={member.main_address} />
      {impersonating ? (
        <div class="stack">
          <p class="notice" role="alert" id="impersonation">
            “{view.bapp.name}” is a name only the wallet itself uses: an app that calls itself so is pretending to be the wallet. This
            request cannot be approved. Cancel it, and do not trust the page that sent you here.
          </p>
          <button type="button" onClick={() => decide('cancel')} disabled={busy !== null}>
            Cancel request
          </button>
        </div>
      ) : foreign ? (
        <div class="stack">
          <p class="notice" role="alert" id="foreign-from">
            This request is for the wallet <Mono>{address(from!)}</Mono>, not yours (<Mono>{address(member.main_address)}</Mono>). It
            cannot be approved here. Sign in as that member, or cancel it.
          </p>
          <button type="button" onClick={() => decide('cancel')} disabled={busy !== null}>
            Cancel request
          </button>
        </div>
      ) : pinLocked ? (
        <div class="stack">
          <p class="notice" role="alert" id="pin-locked">
            {PIN_LOCKED}
          </p>
          <button type="button" onClick={() => decide('cancel')} disabled={busy !== null}>
            {busy === 'cancel' ? 'Canceling…' : 'Cancel request'}
          </button>
        </div>
      ) : (
        <>
          {warnings.length > 0 && (
            <label class="check" id="acknowledge">
              <input type="checkbox" id="acknowledge-warnings" checked={acknowledged} onChange={(event) => setAcknowledged(event.currentTarget.checked)} />
              <span>I read {warnings.length === 1 ? 'the warning' : `all ${warnings.length} warnings`} above and I still want to approve this request</span>
            </label>
          )}
          {warnings.length > 0 && !acknowledged ? (
            <div class="actions">
              <button type="button" class="primary" onClick={() => decide('cancel')} disabled={busy !== null}>
                {busy === 'cancel' ? 'Canceling…' : 'Cancel request'}
              </button>
            </div>
          ) : (
            <form
              id="decision"
              class="stack"
              noValidate
              onSubmit={(event) => {
                event.preventDefault();
                const problem = formProblem(event.currentTarget);
                if (problem) return setError(problem);
                void decide('approve');
              }}
            >
              <PinField id="pin" label="PIN (6 digits)" inputRef={pin} describedBy={error ? 'decision-error' : undefined} />
              {error && (
                <p id="decision-error" class="error" role="alert">
                  {error}
                </p>
              )}
              <div class="actions">
                <button class="primary" type="submit" disabled={busy !== null}>
                  {busy === 'approve' ? 'Approving…' : 'Approve'}
                </button>
                <button type="button" onClick={() => decide('cancel')} disabled={busy !== null}>
                  {busy === 'cancel' ? 'Canceling…' : 'Cancel request'}
                </button>
              </div>
            </form>
          )}
        </>
      )}
    </Screen>
  );
}

const WARNING_TITLES: Record<Warning['kind'], string> = {
  approval_for_all: 'Control of all your cards',
  unlimited_approval: 'No limit on what it can take',
  moves_own_asset: 'Moves something you own',
  permit: 'A permit to spend your tokens',
  permit2: 'A Permit2 signature',
  new_contract: 'A contract you have never used',
};

/** What the service found dangerous in the request, each with its reason, above everything else. */
function Warnings(props: { warnings: Warning[] }) {
  return (
    <section class="warning stack" aria-labelledby="warnings-title" id="warnings">
      <h2 id="warnings-title">Check before you approve</h2>
      <ul class="plain stack">
        {props.warnings.map((warning) => (
          <li key={warning.kind} class={`warning-item warning-${warning.kind}`}>
            <strong>{WARNING_TITLES[warning.kind]}.</strong> {warning.reason}
          </li>
        ))}
      </ul>
    </section>
  );
}

const RESULT_LABELS: Record<string, string> = {
  tx_hash: 'Transaction',
  status: 'Transaction status',
  signature: 'Signature',
  hash: 'Signed hash',
  main_address: 'Address',
  bitcoin_address: 'Bitcoin address',
  solana_address: 'Solana address',
  tron_address: 'Tron address',
  xrpl_address: 'XRPL address',
};

const TRANSACTION_STATUS: Record<string, string> = {
  pending: 'sent, waiting to be mined',
  success: 'mined',
  fail: 'failed on chain',
};

function Decided(props: { view: RequestView; outcome: RequestOutcome }) {
  const { outcome } = props;
  const title = outcome.status === 'completed' ? 'Approved' : outcome.status === 'canceled' ? 'Request canceled' : 'Not carried out';
  const result = outcome.result ?? {};
  const rows = Object.entries(RESULT_LABELS)
    .filter(([key]) => result[key] !== undefined)
    .map(([key, label]): [string, ComponentChildren] => [
      label,
      key === 'status' ? (TRANSACTION_STATUS[String(result[key])] ?? String(result[key])) : <Mono>{String(result[key])}</Mono>,
    ]);
  return (
    <Screen title={title}>
      <p class="lead" role="status">
        {outcome.status === 'completed'
          ? `Done: ${props.view.bapp.name} can now read the result.`
          : outcome.status === 'canceled'
            ? `Nothing was signed or sent. ${props.view.bapp.name} is told you canceled.`
            : `It was not carried out. ${outcome.error ? describeCode(outcome.error.code, outcome.error.message === outcome.error.err ? undefined : outcome.error.message) : ''}`}
      </p>
      {rows.length > 0 && <Details label="Result" rows={rows} />}
      <ReturnLink view={props.view} success={outcome.status === 'completed'} />
    </Screen>
  );
}

/** The BApp's success or fail link, when it gave one that is safe to open. */
function ReturnLink(props: { view: RequestView; success: boolean }) {
  const callback = props.view.bapp.callback;
  const link = safeLink(props.success ? callback?.success : callback?.fail);
  if (!link) return <p class="muted">You can close this page and go back to {props.view.bapp.name}.</p>;
  return (
    <p>
      <a id="return-link" class="button primary" href={link} rel="noopener noreferrer">
        Return to {props.view.bapp.name}
      </a>
    </p>
  );
}
