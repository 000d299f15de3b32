import type { ComponentChildren } from 'preact';
import { navigate } from '../router.ts';

/** A labelled 6-digit PIN field: digits only, never autofilled. */
export function PinField(props: { id: string; label: string; name?: string; error?: string | undefined }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name ?? props.id}
        type="password"
        inputMode="numeric"
        autocomplete="off"
        pattern="[0-9]{6}"
        maxLength={6}
        required
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? `${props.id}-error` : undefined}
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
