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
  const names = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(navigator.languages, { type: 'region' }) : null;
  const options = (countries?.countries ?? [])
    .map((entry) => ({ ...entry, name: regionName(names, entry.country) }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return (
    <>
      <div class={countries ? "phone" : "stack"}>
        {countries && (
          <div class="stack">
            <label for={`${props.id}-country`}>Country</label>
            <select id={`${props.id}-country`} name={`${props.name}_country`}>
              {options.map((entry) => (
                <option key={entry.country} value={entry.country} selected={entry.country === countries.default_country}>
                  +{entry.calling_code} {entry.name}
                </option>
              ))}
            </select>
          </div>
        )}
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
