import { useEffect, useRef, useState } from 'preact/hooks';
import { api, NetworkError, whenReachabilityChanges, whenSessionEnds } from './api.ts';
import { UNREACHABLE } from './messages.ts';
import { announce, whenAnotherTab } from './session-events.ts';
import type { Member } from './wire.ts';
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
import { SendMoney } from './screens/send-money.tsx';
import { Receive } from './screens/receive.tsx';
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
  send: 'Sign in to send coins or tokens.',
  receive: 'Sign in to see your address.',
};

/**
 * The wallet app: who is signed in (undefined while the session is checked) and the screen of the
 * URL. A screen that needs a member shows sign-in in its place and keeps its URL, so a request or
 * claim link opened signed out continues where it was once the member signs in.
 */
export function App() {
  const route = useRoute();
  const [member, setMember] = useState<Member | null | undefined>(undefined);
  /** Why the member was signed out without asking here: shown on the sign-in screen. */
  const [notice, setNotice] = useState('');
  /** A request could not reach the service: a notice with Retry, until one does again. */
  const [offline, setOffline] = useState(false);
  /** Retry remounts the screen, which loads what it shows again. */
  const [attempt, setAttempt] = useState(0);
  const signedIn = useRef(false);
  signedIn.current = Boolean(member);

  useEffect(() => {
    whenReachabilityChanges((reachable) => setOffline(!reachable));
    whenSessionEnds(() => {
      if (signedIn.current) setNotice('Your session has ended: you were signed out on another device or browser, or it ran out. Sign in again to carry on.');
      setMember(null);
    });
    return whenAnotherTab((event) => {
      if (event === 'signed-in') {
        setNotice('');
        api.me().then(setMember, () => {});
      } else if (signedIn.current) {
        setNotice('Your session has ended: you signed out in another tab. Sign in again to carry on.');
        setMember(null);
      }
    });
  }, []);

  useEffect(() => {
    if (member !== undefined) return;
    api.me().then(setMember, (caught) => {
      if (!(caught instanceof NetworkError)) setMember(null);
    });
  }, [attempt]);

  useEffect(() => {
    if (member === null && route.screen === 'home') navigate('/sign-in', { replace: true });
    if (member && (route.screen === 'sign-in' || route.screen === 'sign-up')) navigate('/', { replace: true });
  }, [member, route.screen]);

  async function signOut() {
    await api.signOut().catch(() => {});
    signedOut();
  }

  function signedOut() {
    setNotice('');
    setMember(null);
    announce('signed-out');
    navigate('/sign-in');
  }

  function signedInHere(who: Member) {
    setNotice('');
    setMember(who);
    announce('signed-in');
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
      {offline && (
        <div class="offline" role="alert" id="offline">
          <p>{UNREACHABLE}</p>
          <button type="button" class="primary" onClick={() => setAttempt((count) => count + 1)}>
            Retry
          </button>
        </div>
      )}
      <main key={attempt}>{screenFor(route, member, signedInHere, () => signedOut(), notice, offline)}</main>
    </>
  );
}

function screenFor(route: Route, member: Member | null | undefined, setMember: (member: Member) => void, onSignedOut: () => void, notice: string, offline: boolean) {
  if (route.screen === 'not-found') {
    return (
      <Screen title="Page not found">
        <p>This address is not a page of the wallet: the link may be cut short or out of date.</p>
        <p>
          <AppLink class="button primary" href="/">
            Go to your wallet
          </AppLink>
        </p>
      </Screen>
    );
  }
  if (member === undefined) return offline ? <Screen title="Wallet">{null}</Screen> : <Loading what="Opening your wallet" />;
  if (route.screen === 'sign-up' && !member) return <SignUp returnTo={route.returnTo} onSignedIn={setMember} />;
  if (member === null || route.screen === 'sign-in') {
    return <SignIn notice={notice} reason={SIGN_IN_REASON[route.screen]} onSignedIn={setMember} />;
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
    case 'send':
      return <SendMoney chain={route.chain} token={route.token} />;
    case 'receive':
      return <Receive member={member} chain={route.chain} />;
    case 'account':
      return <Account onSignedOut={onSignedOut} />;
    case 'sign-up':
      return <Home member={member} />;
  }
}
