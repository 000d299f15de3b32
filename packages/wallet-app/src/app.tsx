import { useEffect, useState } from 'preact/hooks';
import { api, whenSessionEnds } from './api.ts';
import type { Member } from './api-types.ts';
import { Loading, Screen } from './components/screen.tsx';
import { navigate, useRoute, type Route } from './router.ts';
import { Claim } from './screens/claim.tsx';
import { Confirm } from './screens/confirm.tsx';
import { Home } from './screens/home.tsx';
import { SignIn } from './screens/sign-in.tsx';

/** Why sign-in is asked for on a screen that needs a member. */
const SIGN_IN_REASON: Partial<Record<Route['screen'], string>> = {
  confirm: 'An app is waiting for you: sign in to see its request.',
  claim: 'Sign in to claim the card.',
};

/**
 * The wallet app: who is signed in (undefined while the session is checked) and the screen of the
 * URL. A screen that needs a member shows sign-in in its place and keeps its URL, so a request or
 * claim link opened signed out continues where it was once the member signs in.
 */
export function App() {
  const route = useRoute();
  const [member, setMember] = useState<Member | null | undefined>(undefined);

  useEffect(() => {
    whenSessionEnds(() => setMember(null));
    if (!api.hasSession()) return setMember(null);
    api.me().then(setMember, () => setMember(null));
  }, []);

  useEffect(() => {
    if (member === null && route.screen === 'home') navigate('/sign-in', { replace: true });
    if (member && route.screen === 'sign-in') navigate('/', { replace: true });
  }, [member, route.screen]);

  async function signOut() {
    await api.signOut().catch(() => {});
    setMember(null);
    navigate('/sign-in');
  }

  return (
    <>
      <header class="bar">
        <a
          class="brand"
          href="/"
          onClick={(event) => {
            event.preventDefault();
            navigate('/');
          }}
        >
          Wallet
        </a>
        {member && (
          <nav aria-label="Account">
            <span class="who">{member.email}</span>
            <button type="button" id="sign-out" onClick={signOut}>
              Sign out
            </button>
          </nav>
        )}
      </header>
      <main>{screenFor(route, member, setMember)}</main>
    </>
  );
}

function screenFor(route: Route, member: Member | null | undefined, setMember: (member: Member) => void) {
  if (route.screen === 'not-found') {
    return (
      <Screen title="Page not found">
        <p>
          This address is not a page of the wallet. <a href="/">Go to your wallet</a>.
        </p>
      </Screen>
    );
  }
  if (member === undefined) return <Loading what="Opening your wallet" />;
  if (member === null || route.screen === 'sign-in') {
    return <SignIn reason={SIGN_IN_REASON[route.screen]} onSignedIn={setMember} />;
  }
  switch (route.screen) {
    case 'home':
      return <Home member={member} />;
    case 'confirm':
      return <Confirm member={member} requestKey={route.requestKey} />;
    case 'claim':
      return <Claim claimId={route.claimId} secret={route.secret} />;
  }
}
