import { useEffect, useState } from 'preact/hooks';
import { api, whenSessionEnds } from './api.ts';
import type { Member } from './api-types.ts';
import { AppLink } from './components/fields.tsx';
import { Loading, Screen } from './components/screen.tsx';
import { navigate, useRoute, type Route } from './router.ts';
import { Claim } from './screens/claim.tsx';
import { Confirm } from './screens/confirm.tsx';
import { Home } from './screens/home.tsx';
import { SignIn } from './screens/sign-in.tsx';
import { Cards } from './screens/cards.tsx';
import { CardPage } from './screens/card.tsx';
import { SendCard } from './screens/send-card.tsx';
import { Activity } from './screens/activity.tsx';
import { SectionLinks } from './components/section-links.tsx';
import { SignUp } from './screens/sign-up.tsx';
import { Account } from './screens/account.tsx';

/** Why sign-in is asked for on a screen that needs a member. */
const SIGN_IN_REASON: Partial<Record<Route['screen'], string>> = {
  confirm: 'An app is waiting for you: sign in to see its request.',
  claim: 'Sign in to claim the card.',
  cards: 'Sign in to see your cards.',
  card: 'Sign in to see this card.',
  'send-card': 'Sign in to send this card.',
  activity: 'Sign in to see your activity.',
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
    api.me().then(setMember, () => setMember(null));
  }, []);

  useEffect(() => {
    if (member === null && route.screen === 'home') navigate('/sign-in', { replace: true });
    if (member && (route.screen === 'sign-in' || route.screen === 'sign-up')) navigate('/', { replace: true });
  }, [member, route.screen]);

  async function signOut() {
    await api.signOut().catch(() => {});
    signedOut();
  }

  function signedOut() {
    setMember(null);
    navigate('/sign-in');
  }

  return (
    <>
      <header class="bar">
        <AppLink class="brand" href="/">
          Wallet
        </AppLink>
        {member && (
          <nav aria-label="Account">
            <span class="who">{member.email}</span>
            <AppLink href="/account" id="account-link">
              Account
            </AppLink>
            <button type="button" id="sign-out" onClick={signOut}>
              Sign out
            </button>
          </nav>
        )}
      </header>
      {member && <SectionLinks current={route.screen} />}
      <main>{screenFor(route, member, setMember, () => signedOut())}</main>
    </>
  );
}

function screenFor(route: Route, member: Member | null | undefined, setMember: (member: Member) => void, onSignedOut: () => void) {
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
  if (route.screen === 'sign-up' && !member) return <SignUp returnTo={route.returnTo} onSignedIn={setMember} />;
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
    case 'cards':
      return <Cards />;
    case 'card':
      return <CardPage nftId={route.nftId} cardId={route.cardId} />;
    case 'send-card':
      return <SendCard nftId={route.nftId} cardId={route.cardId} />;
    case 'activity':
      return <Activity />;
    case 'account':
      return <Account onSignedOut={onSignedOut} />;
    case 'sign-up':
      return <Home member={member} />;
  }
}
