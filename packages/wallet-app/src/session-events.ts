/**
 * Signing in and out told to the app's other tabs of this browser (BroadcastChannel), so a tab
 * whose session another tab ended says so instead of silently showing sign-in.
 */
export type SessionEvent = 'signed-in' | 'signed-out';

const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('wallet-session') : null;

export function announce(event: SessionEvent): void {
  channel?.postMessage(event);
}

export function whenAnotherTab(listener: (event: SessionEvent) => void): () => void {
  if (!channel) return () => {};
  const handle = (message: MessageEvent) => {
    if (message.data === 'signed-in' || message.data === 'signed-out') listener(message.data);
  };
  channel.addEventListener('message', handle);
  return () => channel.removeEventListener('message', handle);
}
