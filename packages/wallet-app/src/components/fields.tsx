import type { ComponentChildren, Ref } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { navigate } from '../router.ts';
import type { PhoneCountries } from '../wire.ts';

/**
 * A labelled 6-digit PIN field: digits only, never autofilled. `inputRef` for a screen that clears
 * and refocuses it after a refusal; `describedBy` names an error shown elsewhere on the screen.
 */
export function PinField(props: { id: string; label: string; name?: string; error?: string | undefined; inputRef?: Ref<HTMLInputElement>; describedBy?: string | undefined }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        ref={props.inputRef}
        name={props.name ?? props.id}
        type="password"
        inputMode="numeric"
        autocomplete="off"
        pattern="[0-9]{6}"
        maxLength={6}
        required
        data-missing="Enter your 6-digit PIN."
        data-invalid="The PIN is 6 digits."
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? `${props.id}-error` : props.describedBy}
      />
      <FieldError id={props.id} message={props.error} />
    </>
  );
}

/** What is wrong with one field, shown under it (the field points at it with aria-describedby). */
export function FieldError(props: { id: string; message: string | undefined }) {
  if (!props.message) return null;
  return (
    <p id={`${props.id}-error`} class="error" role="alert">
      {props.message}
    </p>
  );
}

/** A link to another screen of the app: moves in this tab without reloading. */
export function AppLink(props: { href: string; id?: string; class?: string; children: ComponentChildren }) {
  return (
    <a
      href={props.href}
      id={props.id}
      class={props.class}
      onClick={(event) => {
        event.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}

/**
 * A phone number as people write it: the country beside the number (`010-1234-5678` with South
 * Korea), sent as `<name>_country` for the service to read it in. The list and its default come from
 * the service (libphonenumber's regions, `phoneDefaultCountry`); names are the browser's own.
 */
export function PhoneField(props: { id: string; name: string; label: string; autocomplete?: string }) {
  const [countries, setCountries] = useState<PhoneCountries | null>(null);
  useEffect(() => {
    api.phoneCountries().then(setCountries, () => {});
  }, []);
  // Named a few dozen at a time, once per list: some 245 names took one long task on a phone.
  const [options, setOptions] = useState<Array<PhoneCountries['countries'][number] & { name: string }> | null>(null);
  useEffect(() => {
    if (!countries) return;
    let cancelled = false;
    const names = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(navigator.languages, { type: 'region' }) : null;
    const named: Array<PhoneCountries['countries'][number] & { name: string }> = [];
    const step = () => {
      if (cancelled) return;
      for (const entry of countries.countries.slice(named.length, named.length + 30)) named.push({ ...entry, name: regionName(names, entry.country) });
      if (named.length < countries.countries.length) setTimeout(step, 0);
      else setOptions(named.sort((a, b) => a.name.localeCompare(b.name)));
    };
    step();
    return () => {
      cancelled = true;
    };
  }, [countries]);
  return (
    <>
      {/* The country picker is there from the start (empty until the list comes), so nothing moves when it fills. */}
      <div class="phone">
        <div class="stack">
          <label for={`${props.id}-country`}>Country</label>
          <select id={`${props.id}-country`} name={`${props.name}_country`} disabled={!options}>
            {!options && <option value="">Loading…</option>}
            {(options ?? []).map((entry) => (
              <option key={entry.country} value={entry.country} selected={entry.country === countries?.default_country}>
                +{entry.calling_code} {entry.name}
              </option>
            ))}
          </select>
        </div>
        <div class="stack">
          <label for={props.id}>{props.label}</label>
          <input
            id={props.id}
            name={props.name}
            type="tel"
            autocomplete={props.autocomplete ?? 'off'}
            required
            maxLength={32}
            data-missing="Enter the phone number."
            aria-describedby={`${props.id}-hint`}
          />
        </div>
      </div>
      <p class="muted small" id={`${props.id}-hint`}>
        As you would dial it in that country, or with + and the country code.
      </p>
    </>
  );
}

function regionName(names: Intl.DisplayNames | null, country: string): string {
  try {
    return names?.of(country) ?? country;
  } catch {
    return country;
  }
}

/**
 * Who to send to: a wallet address, or a person by legal name and phone number (who need not be a
 * member yet: what is sent waits in a wallet kept for them).
 */
export function RecipientFields(props: { kind: 'address' | 'person'; onKind: (kind: 'address' | 'person') => void; what: string }) {
  const { kind, onKind } = props;
  return (
    <>
      <fieldset class="stack">
        <legend>Send to</legend>
        <label class="choice">
          <input type="radio" name="kind" value="address" checked={kind === 'address'} onChange={() => onKind('address')} /> A wallet address
        </label>
        <label class="choice">
          <input type="radio" name="kind" value="person" checked={kind === 'person'} onChange={() => onKind('person')} /> A person, by name and phone number
        </label>
      </fieldset>
      {/* Keyed: the two forms' inputs are different elements, so none carries the other's pattern or value. */}
      {kind === 'address' ? (
        <div class="stack" key="address">
          <label for="to_address">Wallet address</label>
          <input
            id="to_address"
            name="to_address"
            required
            pattern="0x[0-9a-fA-F]{40}"
            autocomplete="off"
            spellcheck={false}
            data-missing={`Enter the wallet address to send ${props.what} to.`}
            data-invalid="A wallet address is 0x and 40 characters 0-9 and a-f."
          />
        </div>
      ) : (
        <div class="stack" key="person">
          <label for="to_name">Legal name</label>
          <input id="to_name" name="to_name" required maxLength={100} autocomplete="off" data-missing="Enter the person's legal name." />
          <PhoneField id="to_phone" name="to_phone" label="Phone number" />
          <p class="muted small">If they are not a member yet, {props.what} waits for them in a wallet kept under this name and number.</p>
        </div>
      )}
    </>
  );
}

/** What RecipientFields hold, as the API takes it: `to_address`, or `to_person` with the phone's country. */
export function recipientOf(form: FormData, kind: 'address' | 'person') {
  if (kind === 'address') return { to_address: String(form.get('to_address')).trim() };
  const country = form.get('to_phone_country');
  return {
    to_person: {
      name: String(form.get('to_name')).trim(),
      phone: String(form.get('to_phone')).trim(),
      ...(typeof country === 'string' && country ? { phone_country: country } : {}),
    },
  };
}
