import type { Environment, RequestLinks, RequestType } from '../types.ts';

/** A request waiting for the member, as the provider shows it. */
export interface PendingRequest {
  requestKey: string;
  type: RequestType;
  /** The universal link (`links.url`, what the QR code encodes), the older link forms and the QR images. */
  links: RequestLinks;
  /** `ios` and `android` have had the wallet link opened already; `other` (a computer) shows the QR code. */
  environment: Environment;
  /** Stops waiting: the pending call rejects with 4001. */
  cancel(): void;
}

/**
 * Shows a pending request to the member and returns what hides it (called once the request is
 * over, however it ended). The default is `showRequestDialog`.
 */
export type ShowRequest = (request: PendingRequest) => (() => void) | void;

const TITLES: Partial<Record<RequestType, string>> = {
  auth: 'Connect your wallet',
  sign_message: 'Sign in your wallet',
  sign_message_eip191: 'Sign in your wallet',
  sign_typedData_v4: 'Sign in your wallet',
};

/**
 * The default view of a pending request: a modal `<dialog class="wallet-a2a-dialog">` with the QR
 * code (`.wallet-a2a-qr`, on a computer), a link that opens the wallet (`.wallet-a2a-link`) and a
 * Cancel button (`.wallet-a2a-cancel`; Escape does the same). It carries no styles of its own
 * beyond the browser's, so a page restyles it with those class names, or replaces it with the
 * provider's `showRequest` option.
 */
export function showRequestDialog(request: PendingRequest): () => void {
  const doc = (globalThis as { document?: Document }).document;
  if (!doc?.body) return () => {};
  const dialog = doc.createElement('dialog');
  dialog.className = 'wallet-a2a-dialog';
  dialog.setAttribute('aria-labelledby', 'wallet-a2a-title');
  const title = doc.createElement('h2');
  title.id = 'wallet-a2a-title';
  title.textContent = TITLES[request.type] ?? 'Confirm in your wallet';
  const hint = doc.createElement('p');
  hint.className = 'wallet-a2a-hint';
  hint.textContent =
    request.environment === 'other'
      ? 'Scan the code with your phone, or open the wallet here, and confirm the request there.'
      : 'Confirm the request in the wallet app, then come back.';
  dialog.append(title, hint);
  if (request.environment === 'other') {
    const qr = doc.createElement('img');
    qr.className = 'wallet-a2a-qr';
    qr.alt = 'QR code of the wallet link';
    qr.width = 240;
    qr.height = 240;
    qr.src = request.links.qr_png_url;
    dialog.append(qr);
  }
  const actions = doc.createElement('p');
  const link = doc.createElement('a');
  link.className = 'wallet-a2a-link';
  link.href = request.links.url;
  link.target = '_blank';
  link.rel = 'noopener';
  link.textContent = 'Open the wallet';
  const cancel = doc.createElement('button');
  cancel.type = 'button';
  cancel.className = 'wallet-a2a-cancel';
  cancel.textContent = 'Cancel';
  cancel.addEventListener('click', () => request.cancel());
  actions.append(link, ' ', cancel);
  dialog.append(actions);
  // Escape closes a modal dialog: the same as Cancel.
  dialog.addEventListener('cancel', (event) => {
    event.preventDefault();
    request.cancel();
  });
  doc.body.append(dialog);
  if (typeof dialog.showModal === 'function') dialog.showModal();
  else dialog.setAttribute('open', '');
  return () => {
    if (dialog.open && typeof dialog.close === 'function') dialog.close();
    dialog.remove();
  };
}
