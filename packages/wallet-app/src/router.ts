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
  | { screen: 'confirm'; requestKey: string }
  | { screen: 'claim'; claimId: string; secret: string | null }
  | { screen: 'not-found' };

export function routeOf(location: { pathname: string; search: string; hash: string }): Route {
  if (location.pathname === '/sign-in') return { screen: 'sign-in' };
  const claim = /^\/claim\/([A-Za-z0-9_-]{22})$/.exec(location.pathname);
  if (claim) {
    const secret = location.hash.replace(/^#/, '');
    return { screen: 'claim', claimId: claim[1]!, secret: /^[0-9a-fA-F]{64}$/.test(secret) ? secret : null };
  }
  if (location.pathname !== '/') return { screen: 'not-found' };
  const target = new URLSearchParams(location.search).get('target');
  if (target !== null) {
    const a2a = /^\/a2a\?(.*)$/.exec(target);
    const requestKey = a2a ? new URLSearchParams(a2a[1]).get('request_key') : null;
    return requestKey ? { screen: 'confirm', requestKey } : { screen: 'not-found' };
  }
  return { screen: 'home' };
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
