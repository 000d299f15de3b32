/**
 * Sorts a node's answer to eth_sendRawTransaction. Nodes word these differently (geth, anvil,
 * erigon, nethermind), so the match is on the known phrases.
 */
export type BroadcastOutcome =
  | { status: 'sent' }
  | { status: 'retry'; error: string }
  | { status: 'reconcile'; error: string };

const ALREADY_KNOWN = /already known|known transaction|already imported|alreadyknown|transaction already exists/i;
const NONCE_TOO_LOW = /nonce too low|nonce is too low|noncetoolow|oldnonce|nonce has already been used|invalid nonce.*lower/i;

export function classifyBroadcastError(error: unknown): BroadcastOutcome {
  const text = errorText(error);
  if (ALREADY_KNOWN.test(text)) return { status: 'sent' };
  if (NONCE_TOO_LOW.test(text)) return { status: 'reconcile', error: firstLine(text) };
  // Anything else (node down, underpriced, not yet funded during a replay) is tried again later.
  return { status: 'retry', error: firstLine(text) };
}

function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 6; depth++) {
    const value = current as { details?: string; shortMessage?: string; message?: string; cause?: unknown };
    parts.push(value.details ?? '', value.shortMessage ?? '', value.message ?? '');
    current = value.cause;
  }
  return parts.filter(Boolean).join(' | ') || String(error);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 500);
}
