import { useEffect, useState } from 'preact/hooks';
import { accountApi } from '../account-api.ts';
import type { ChainAccount, HomeView, Member } from '../wire.ts';
import { CopyAddress } from '../components/copy-address.tsx';
import { AppLink, PinField } from '../components/fields.tsx';
import { QrSvg } from '../components/codes.tsx';
import { Loading, Screen } from '../components/screen.tsx';
import { address, forPeople } from '../format.ts';
import { describeError } from '../messages.ts';
import { formProblem } from '../components/validation.ts';

/** The member's wallet: coins and tokens on every EVM chain with send and receive, the other chains' addresses, test coins. */
export function Home(props: { member: Member }) {
  const [home, setHome] = useState<HomeView | null>(null);
  const [error, setError] = useState('');
  const [exact, setExact] = useState(false);

  useEffect(() => {
    accountApi.home().then(setHome, (caught) => setError(describeError(caught)));
  }, []);

  return (
    <Screen title="Your wallet">
      <p class="lead">
        Signed in as <strong>{props.member.name}</strong> ({props.member.email}).
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!home && !error && <Loading what="Reading your balances" />}
      {home && (
        <>
          <section class="card" aria-labelledby="money-title">
            <div class="row-between">
              <h2 id="money-title">Coins and tokens</h2>
              <button type="button" class="link-button" aria-pressed={exact} onClick={() => setExact(!exact)}>
                {exact ? 'Round amounts' : 'Show exact amounts'}
              </button>
            </div>
            <CopyAddress label="EVM" address={address(props.member.main_address)} />
            <p class="muted small">The same address on every chain below.</p>
            <ul class="balances" aria-label="Balances per chain">
              {home.chains.map((chain) => (
                <Balance key={chain.chain} chain={chain} exact={exact} onChanged={setHome} />
              ))}
            </ul>
          </section>
          <OtherChains home={home} onShown={setHome} />
        </>
      )}
      {/* After the balances (or their error), not before: it would move down when they come. */}
      {(home || error) && (
        <section class="card" aria-labelledby="use-title">
          <h2 id="use-title">Using your wallet</h2>
          <p>
            When an app asks you to connect, send or sign, open the link it gives you (or scan its QR code): the wallet shows
            exactly what will happen and asks for your PIN. A card someone sent you as a claim link opens here too.
          </p>
        </section>
      )}
    </Screen>
  );
}

/** An amount for people (8.4998 KAIA), the exact one in its title, or exact when asked. */
export function Amount(props: { exact: string; unit: string; showExact?: boolean; class?: string }) {
  const shown = props.showExact ? props.exact : forPeople(props.exact);
  return (
    <span class={props.class ?? 'amount'} title={`${props.exact} ${props.unit}`}>
      {shown} {props.unit}
    </span>
  );
}

/** One chain: its coins and tokens with send and receive, and on an embedded (development) chain the faucet. */
function Balance(props: { chain: ChainAccount; exact: boolean; onChanged: (home: HomeView) => void }) {
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const { chain } = props;

  async function getTestCoins() {
    setBusy(true);
    setStatus('Sending test coins…');
    try {
      const sent = await accountApi.faucet(chain.chain);
      setStatus(`${sent.coins} test ${chain.ticker} arrived.`);
      props.onChanged(await accountApi.home());
    } catch (caught) {
      setStatus(describeError(caught));
    } finally {
      setBusy(false);
    }
  }

  const headingId = `chain-${chain.chain}`;
  return (
    <li class="balance" data-chain={chain.chain} aria-labelledby={headingId}>
      <h3 id={headingId}>{chain.display_name}</h3>
      <div class="holding">
        {chain.coins === null ? <strong class="coins">not reachable now</strong> : <Amount class="coins" exact={chain.coins} unit={chain.ticker} showExact={props.exact} />}
        <span class="holding-actions">
          {chain.coins !== null && (
            <AppLink class="button" href={`/send?chain=${chain.chain}`}>
              Send<span class="visually-hidden"> {chain.ticker}</span>
            </AppLink>
          )}
          <AppLink class="button" href={`/receive?chain=${chain.chain}`}>
            Receive<span class="visually-hidden"> on {chain.display_name}</span>
          </AppLink>
        </span>
      </div>
      {chain.tokens.length > 0 && (
        <ul class="tokens" aria-label={`Tokens on ${chain.display_name}`}>
          {chain.tokens.map((token) => (
            <li key={token.contract} class="holding" data-token={token.contract}>
              <Amount exact={token.amount} unit={token.symbol} showExact={props.exact} />
              <span class="holding-actions">
                <AppLink class="button" href={`/send?chain=${chain.chain}&token=${token.contract}`}>
                  Send<span class="visually-hidden"> {token.symbol}</span>
                </AppLink>
              </span>
            </li>
          ))}
        </ul>
      )}
      {chain.faucet && (
        <p class="faucet">
          <button type="button" onClick={getTestCoins} disabled={busy} aria-describedby={`faucet-note-${chain.chain}`}>
            Get test coins
          </button>{' '}
          <span id={`faucet-note-${chain.chain}`} class="muted small">
            A development chain: its coins are for testing only.
          </span>
        </p>
      )}
      <span role="status" class="muted">
        {status}
      </span>
    </li>
  );
}

/** Bitcoin, solana, tron and xrpl addresses of the same phrase: derived once with the PIN, then kept. */
function OtherChains(props: { home: HomeView; onShown: (home: HomeView) => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const other = props.home.other_chains;

  async function show(event: SubmitEvent) {
    event.preventDefault();
    const problem = formProblem(event.currentTarget as HTMLFormElement);
    if (problem) return setError(problem);
    const pin = String(new FormData(event.currentTarget as HTMLFormElement).get('pin'));
    setBusy(true);
    setError('');
    try {
      props.onShown(await accountApi.revealOtherChains(pin));
    } catch (caught) {
      setError(describeError(caught));
      setBusy(false);
    }
  }

  return (
    <section class="card" aria-labelledby="other-title">
      <h2 id="other-title">Bitcoin, Solana, Tron and XRPL</h2>
      <p class="notice" id="other-chains-note">
        Receive only: this wallet keeps the keys of these addresses but cannot send from them or show their balances. Coins sent here stay safe; moving them needs another wallet and your recovery phrase.
      </p>
      {other ? (
        (
          [
            ['Bitcoin', other.bitcoin],
            ['Solana', other.solana],
            ['Tron', other.tron],
            ['XRPL', other.xrpl],
          ] as const
        ).map(([label, value]) => (
          <div key={label} class="stack">
            <CopyAddress label={label} address={value} />
            <QrSvg class="address-qr" value={value} label={`QR code of your ${label} address`} />
          </div>
        ))
      ) : (
        <form id="other-chains" class="stack" noValidate onSubmit={show} aria-describedby={error ? 'other-chains-error' : undefined}>
          <p class="muted">Your wallet has addresses on these chains too, from the same recovery phrase. Enter your PIN once to show them.</p>
          <PinField id="other-pin" name="pin" label="PIN" />
          {error && (
            <p id="other-chains-error" class="error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" disabled={busy}>
            Show addresses
          </button>
        </form>
      )}
    </section>
  );
}
