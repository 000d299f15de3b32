import type { ComponentChildren } from 'preact';
import { navigate } from '../router.ts';

/** A labelled 6-digit PIN field: digits only, never autofilled. */
export function PinField(props: { id: string; label: string; name?: string }) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input id={props.id} name={props.name ?? props.id} type="password" inputMode="numeric" autocomplete="off" pattern="[0-9]{6}" maxLength={6} required />
    </>
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
