import { useEffect, useState } from 'preact/hooks';
import { accountApi } from '../account-api.ts';
import type { PinState, SessionView } from '../wire.ts';
import { PinField } from '../components/fields.tsx';
import { Loading, Screen } from '../components/screen.tsx';
import { describeError, fieldOfError, PIN_LOCKED } from '../messages.ts';
import { formProblem } from '../components/validation.ts';
import { browserAndSystem } from '../format.ts';

/** The member's PIN (its lock, and changing it) and sessions (signing out one, or everywhere). */
export function Account(props: { onSignedOut: () => void }) {
  return (
    <Screen title="Account and security">
      <PinSection />
      <SessionsSection onSignedOut={props.onSignedOut} />
    </Screen>
  );
}

function PinSection() {
  const [state, setState] = useState<PinState | null>(null);
  const [error, setError] = useState('');
  /** A new PIN too easy to guess, shown under that field. */
  const [newPinError, setNewPinError] = useState('');
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const refresh = () => accountApi.pinState().then(setState, (caught) => setError(describeError(caught)));
  useEffect(() => void refresh(), []);

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const [oldPin, newPin, again] = ['old-pin', 'new-pin', 'new-pin-again'].map((name) => String(form.get(name) ?? ''));
    setError('');
    setNewPinError('');
    setDone('');
    const problem = formProblem(formElement);
    if (problem) return setError(problem);
    if (newPin !== again) return setError('The two new PINs are not the same.');
    setBusy(true);
    try {
      await accountApi.changePin(oldPin!, newPin!);
      formElement.reset();
      setDone('Your PIN is changed.');
    } catch (caught) {
      if (fieldOfError(caught) === 'pin') {
        setNewPinError(describeError(caught));
        document.getElementById('new-pin')?.focus();
      } else {
        setError(describeError(caught));
        document.getElementById('old-pin')?.focus();
      }
    } finally {
      setBusy(false);
      await refresh();
    }
  }

  return (
    <section class="card" aria-labelledby="pin-title">
      <h2 id="pin-title">PIN</h2>
      {state?.locked && (
        <p class="notice" id="pin-locked" role="alert">
          {PIN_LOCKED}
        </p>
      )}
      {state && !state.locked && state.failures > 0 && (
        <p class="muted" id="pin-failures">
          {state.failures} wrong PIN{state.failures > 1 ? 's' : ''} in a row; signing locks after {state.max_failures}.
        </p>
      )}
      {/* Shown while the PIN's state is read (the service refuses a locked PIN anyway), so the sessions below do not move. */}
      {(state ? !state.locked : !error) && (
        <form id="change-pin" class="stack" noValidate onSubmit={submit} aria-describedby={error ? 'change-pin-error' : undefined}>
          <PinField id="old-pin" label="Current PIN" />
          <PinField id="new-pin" label="New PIN (6 digits)" error={newPinError} />
          <PinField id="new-pin-again" label="New PIN again" />
          {error && (
            <p id="change-pin-error" class="error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy}>
            Change PIN
          </button>
        </form>
      )}
      <p role="status" class="ok">
        {done}
      </p>
    </section>
  );
}

function SessionsSection(props: { onSignedOut: () => void }) {
  const [sessions, setSessions] = useState<SessionView[] | null>(null);
  const [error, setError] = useState('');
  const refresh = () => accountApi.sessions().then((answer) => setSessions(answer.sessions), (caught) => setError(describeError(caught)));
  useEffect(() => void refresh(), []);

  async function end(session: SessionView) {
    try {
      await accountApi.signOutSession(session.id);
      if (session.current) return props.onSignedOut();
      await refresh();
    } catch (caught) {
      setError(describeError(caught));
    }
  }

  async function everywhere() {
    try {
      await accountApi.signOutEverywhere();
      props.onSignedOut();
    } catch (caught) {
      setError(describeError(caught));
    }
  }

  return (
    <section class="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are signed in</h2>
      {!sessions && !error && <Loading what="Reading your sessions" />}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {sessions && (
        <ul class="sessions" aria-label="Sessions">
          {sessions.map((session) => (
            <li key={session.id} class="session">
              <span>
                <span title={session.user_agent ?? undefined}>{browserAndSystem(session.user_agent)}</span>
                {session.current && <strong> (this browser)</strong>}
              </span>
              <span class="muted">signed in {new Date(session.created_at * 1000).toLocaleString()}</span>
              <button type="button" onClick={() => end(session)}>
                Sign out{session.current ? '' : ' there'}
              </button>
            </li>
          ))}
        </ul>
      )}
      <button type="button" id="sign-out-everywhere" onClick={everywhere}>
        Sign out everywhere
      </button>
    </section>
  );
}
