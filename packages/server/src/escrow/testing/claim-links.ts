import assert from 'node:assert/strict';

/** The id and secret of a claim link `{web_url}/claim/<id>#<secret>`, asserting its form. */
export function claimLinkParts(link: string): { claimId: string; secret: string } {
  const url = new URL(link);
  const match = /^\/claim\/([A-Za-z0-9_-]{22})$/.exec(url.pathname);
  assert.ok(match, link);
  assert.match(url.hash, /^#[0-9a-f]{64}$/);
  return { claimId: match[1]!, secret: url.hash.slice(1) };
}
