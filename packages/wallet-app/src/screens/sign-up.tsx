import { useState } from 'preact/hooks';
import { accountApi } from '../account-api.ts';
import type { Member } from '../wire.ts';
import { AppLink, FieldError, PhoneField, PinField } from '../components/fields.tsx';
import { formProblem } from '../components/validation.ts';
import { Screen } from '../components/screen.tsx';
import { describeError, fieldOfError } from '../messages.ts';
import { navigate } from '../router.ts';

/**
 * Sign-up: legal name, phone, e-mail, password, birth date and a 6-digit PIN entered twice. Opened
 * from a screen that waits for a member (`returnTo`, e.g. a claim link), it goes back there after,
 * with the fragment it came with (the claim's secret).
 */
export function SignUp(props: { returnTo: string | null; onSignedIn: (member: Member) => void }) {
  const back = props.returnTo === null ? null : props.returnTo + location.hash;
  const [error, setError] = useState('');
  /** A refusal about one field (a PIN or password too easy to guess), shown under it. */
  const [fieldError, setFieldError] = useState<{ field: 'pin' | 'password'; message: string } | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: SubmitEvent) {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const field = (name: string) => String(form.get(name) ?? '');
    setError('');
    setFieldError(null);
    const problem = formProblem(event.currentTarget as HTMLFormElement);
    if (problem) return setError(problem);
    if (field('pin') !== field('pin-again')) return fail('The two PINs are not the same.', 'pin-again');
    setBusy(true);
    try {
      const signedIn = await accountApi.signUp({
        name: field('name').trim(),
        phone: field('phone').trim(),
        ...(field('phone_country') ? { phone_country: field('phone_country') } : {}),
        email: field('email').trim(),
        password: field('password'),
        birth: field('birth'),
        pin: field('pin'),
      });
      props.onSignedIn(signedIn.member);
      navigate(back ?? '/', { replace: true });
    } catch (caught) {
      const about = fieldOfError(caught);
      if (about) {
        setFieldError({ field: about, message: describeError(caught) });
        document.getElementById(about)?.focus();
      } else {
        setError(describeError(caught));
      }
      setBusy(false);
    }
  }

  function fail(message: string, focus: string) {
    setError(message);
    document.getElementById(focus)?.focus();
  }

  return (
    <Screen title="Create your wallet">
      <p class="lead">Use your legal name and your own phone number: cards sent to you by name and phone before you joined become yours.</p>
      <form id="sign-up" class="stack" noValidate onSubmit={submit} aria-describedby={error ? 'sign-up-error' : undefined}>
        <label for="name">Legal name</label>
        <input id="name" name="name" autocomplete="name" maxLength={100} required data-missing="Enter your legal name." />
        <PhoneField id="phone" name="phone" label="Phone number" autocomplete="tel" />
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" autocomplete="email" required data-missing="Enter your e-mail address." data-invalid="This is not an e-mail address: check it." />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          minLength={8}
          required
          data-missing="Choose a password."
          data-invalid="The password is at least 8 characters."
          aria-invalid={fieldError?.field === 'password' ? true : undefined}
          aria-describedby={fieldError?.field === 'password' ? 'password-error' : 'password-rule'}
        />
        {fieldError?.field === 'password' ? (
          <FieldError id="password" message={fieldError.message} />
        ) : (
          <p id="password-rule" class="muted">
            At least 8 characters, not a common password, and not your name or e-mail.
          </p>
        )}
        <label for="birth">Birth date</label>
        <input id="birth" name="birth" type="date" autocomplete="bday" required data-missing="Enter your birth date." data-invalid="The birth date is not a date: check it." />
        <PinField id="pin" label="PIN (6 digits, to approve payments and signatures)" error={fieldError?.field === 'pin' ? fieldError.message : undefined} />
        <PinField id="pin-again" label="PIN again" />
        {error && (
          <p id="sign-up-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button class="primary" type="submit" disabled={busy}>
          {busy ? 'Creating your wallet…' : 'Create wallet'}
        </button>
      </form>
      <p>
        Already a member?{' '}
        <AppLink href={back ?? '/sign-in'}>Sign in</AppLink>
      </p>
    </Screen>
  );
}
