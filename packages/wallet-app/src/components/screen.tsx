import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * One screen: its heading takes the focus when the screen appears, so a screen reader announces
 * where the member now is and Tab starts from the top of the new content; the tab title follows.
 */
export function Screen(props: { title: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Wallet`;
    heading.current?.focus();
  }, [props.title]);
  return (
    <section class="screen" aria-labelledby="screen-title">
      <h1 id="screen-title" tabIndex={-1} ref={heading}>
        {props.title}
      </h1>
      {props.children}
    </section>
  );
}

/** Label and value pairs; rows without a value are left out. */
export function Details(props: { label: string; rows: Array<[string, ComponentChildren]> }) {
  const rows = props.rows.filter(([, value]) => value !== null && value !== undefined && value !== '' && value !== false);
  return (
    <dl class="details" aria-label={props.label}>
      {rows.map(([label, value]) => (
        <div class="detail" key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A long value (address, hash) that wraps anywhere and reads as code. */
export function Mono(props: { children: ComponentChildren }) {
  return <code class="mono">{props.children}</code>;
}

export function Loading(props: { what: string }) {
  return (
    <p class="muted" role="status">
      {props.what}…
    </p>
  );
}
