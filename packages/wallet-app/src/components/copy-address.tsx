import { useState } from 'preact/hooks';
import { Mono } from './screen.tsx';

/** An address with a button that copies it; the result is announced. */
export function CopyAddress(props: { label: string; address: string }) {
  const [copied, setCopied] = useState('');
  async function copy() {
    try {
      await navigator.clipboard.writeText(props.address);
      setCopied('Copied.');
    } catch {
      // No clipboard (plain-http origins, some browsers): the address is selectable text.
      setCopied('Copying is not available here: select the address to copy it.');
    }
  }
  return (
    <div class="address">
      <span class="address-label">{props.label}</span>
      <Mono>{props.address}</Mono>
      <button type="button" onClick={copy} aria-label={`Copy ${props.label} address`}>
        Copy
      </button>
      <span role="status" class="muted">
        {copied}
      </span>
    </div>
  );
}
