import { useEffect, useState } from 'preact/hooks';

/**
 * The app's screens and the URLs that open them (history API). The URLs BApps, the SDK and the
 * partner API hand out are kept as they are:
 * - `/?target=/a2a?request_key=K`: the App2App universal link (and the `url=` inside the iOS
 *   scheme and Android intent links), whose `target` holds a path with its own query;
 * - `/claim/<id>#<secret>`: an escrow claim link; the secret stays in the fragment, which browsers
 *   never send, and goes only into request bodies.
 */
export type Route =
  | { screen: 'home' }
  | { screen: 'sign-in' }
  /** `returnTo`: the screen sign-up was opened from (`/sign-up?return=<path>#<fragment>`), reopened after it. */
  | { screen: 'sign-up'; returnTo: string | null }
  | { screen: 'account' }
  | { screen: 'confirm'; requestKey: string }
  | { screen: 'claim'; claimId: string; secret: string | null }
  | { screen: 'cards' }
  | { screen: 'card'; nftId: number; cardId: number }
  | { screen: 'send-card'; nftId: number; cardId: number }
  | { screen: 'activity' }
  /** Coins (no token) or a token of a chain: `/send?chain=main&token=0x…`. */
  | { screen: 'send'; chain: string; token: string | null }
  | { screen: 'receive'; chain: string }
  | { screen: 'not-found' };

export function routeOf(location: { pathname: string; search: string; hash: string }): Route {
  if (location.pathname === '/sign-in') return { screen: 'sign-in' };
  if (location.pathname === '/sign-up') return { screen: 'sign-up', returnTo: localPath(new URLSearchParams(location.search).get('return')) };
  if (location.pathname === '/account') return { screen: 'account' };
  const claim = /^\/claim\/([A-Za-z0-9_-]{22})$/.exec(location.pathname);
  if (claim) {
    const secret = location.hash.replace(/^#/, '');
    return { screen: 'claim', claimId: claim[1]!, secret: /^[0-9a-fA-F]{64}$/.test(secret) ? secret : null };
  }
  if (location.pathname === '/cards') return { screen: 'cards' };
  if (location.pathname === '/activity') return { screen: 'activity' };
  if (location.pathname === '/send' || location.pathname === '/receive') {
    const query = new URLSearchParams(location.search);
    const chain = query.get('chain') ?? 'main';
    if (!/^[a-z]{1,32}$/.test(chain)) return { screen: 'not-found' };
    if (location.pathname === '/receive') return { screen: 'receive', chain };
    const token = query.get('token');
    if (token !== null && !/^0x[0-9a-fA-F]{40}$/.test(token)) return { screen: 'not-found' };
    return { screen: 'send', chain, token };
  }
  const card = /^\/cards\/([1-9]\d{0,9})\/([1-9]\d{0,15})(\/send)?$/.exec(location.pathname);
  if (card) return { screen: card[3] ? 'send-card' : 'card', nftId: Number(card[1]), cardId: Number(card[2]) };
  if (location.pathname !== '/') return { screen: 'not-found' };
  const target = new URLSearchParams(location.search).get('target');
  if (target !== null) {
    const a2a = /^\/a2a\?(.*)$/.exec(target);
    const requestKey = a2a ? new URLSearchParams(a2a[1]).get('request_key') : null;
    return requestKey ? { screen: 'confirm', requestKey } : { screen: 'not-found' };
  }
  return { screen: 'home' };
}

/** `path` when it is a path of this app, never another origin (`//host`, `/\host`) or a scheme. */
function localPath(path: string | null): string | null {
  return path !== null && /^\/(?![/\\])/.test(path) ? path : null;
}

/**
 * The sign-up link from the screen at `location`: a screen that asked for sign-in in its place (a
 * request or a claim link) is reopened after sign-up. Its fragment (a claim's secret) stays a
 * fragment, so it is never sent to the service.
 */
export function signUpLink(location: { pathname: string; search: string; hash: string }): string {
  if (location.pathname === '/sign-in' || (location.pathname === '/' && !location.search)) return '/sign-up';
  return `/sign-up?return=${encodeURIComponent(location.pathname + location.search)}${location.hash}`;
}

const NAVIGATED = 'wallet:navigated';

/** Moves to `path` in this tab without reloading. */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  dispatchEvent(new Event(NAVIGATED));
}

/** The current route, following back/forward, fragment changes and navigate(). */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => routeOf(location));
  useEffect(() => {
    const update = () => setRoute(routeOf(location));
    for (const event of ['popstate', 'hashchange', NAVIGATED]) addEventListener(event, update);
    return () => {
      for (const event of ['popstate', 'hashchange', NAVIGATED]) removeEventListener(event, update);
    };
  }, []);
  return route;
}
