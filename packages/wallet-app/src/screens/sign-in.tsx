import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Member } from '../wire.ts';
import { Screen } from '../components/screen.tsx';
import { describeError } from '../messages.ts';
import { formProblem } from '../components/validation.ts';
import { AppLink } from '../components/fields.tsx';
import { signUpLink } from '../router.ts';

/** E-mail and password; `reason` says why the member is asked (a request or a card waits). */
export function SignIn(props: { notice?: string; reason?: string | undefined; onSignedIn: (member: Member) => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const problem = formProblem(event.currentTarget as HTMLFormElement);
    if (problem) return setError(problem);
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError('');
    try {
      const signedIn = await api.signIn(String(form.get('email')).trim(), String(form.get('password')));
      props.onSignedIn(signedIn.member);
    } catch (caught) {
      setError(describeError(caught));
      setBusy(false);
    }
  }

  return (
    <Screen title="Sign in">
      {props.notice && (
        <p class="notice" id="session-ended" role="status">
          {props.notice}
        </p>
      )}
      {props.reason && <p class="lead">{props.reason}</p>}
      <form id="sign-in" class="stack" noValidate onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" autocomplete="username" required data-missing="Enter your e-mail address." data-invalid="This is not an e-mail address: check it." />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required data-missing="Enter your password." />
        {error && (
          <p id="sign-in-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button class="primary" type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p>
        New here?{' '}
        <AppLink id="sign-up-link" href={signUpLink(location)}>
          Create a wallet
        </AppLink>
      </p>
    </Screen>
  );
}
