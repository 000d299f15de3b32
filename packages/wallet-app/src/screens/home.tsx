import { useEffect, useState } from 'preact/hooks';
import { accountApi } from '../account-api.ts';
import type { ChainAccount, HomeView, Member } from '../wire.ts';
import { CopyAddress } from '../components/copy-address.tsx';
import { PinField } from '../components/fields.tsx';
import { QrSvg } from '../components/codes.tsx';
import { Loading, Screen } from '../components/screen.tsx';
import { address } from '../format.ts';
import { describeError } from '../messages.ts';
import { formProblem } from '../components/validation.ts';

const CHAIN_LABELS: Record<string, string> = { main: 'Main chain', ethereum: 'Ethereum', polygon: 'Polygon' };
const chainLabel = (chain: string) => CHAIN_LABELS[chain] ?? chain;

/** The member's wallet: the address and coins on every EVM chain, the other chains' addresses, test coins. */
export function Home(props: { member: Member }) {
  const [home, setHome] = useState<HomeView | null>(null);
  const [error, setError] = useState('');

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
          <section class="card" aria-labelledby="evm-title">
            <h2 id="evm-title">Your address on EVM chains</h2>
            <p class="muted">One address on the main chain and every other EVM chain of this service.</p>
            <CopyAddress label="EVM" address={address(props.member.main_address)} />
            <QrSvg class="address-qr" value={props.member.main_address} label="QR code of your EVM address" />
            <ul class="balances" aria-label="Coins per chain">
              {home.chains.map((chain) => (
                <Balance key={chain.chain} chain={chain} onChanged={setHome} />
              ))}
            </ul>
          </section>
          <OtherChains home={home} onShown={setHome} />
        </>
      )}
      <section class="card" aria-labelledby="use-title">
        <h2 id="use-title">Using your wallet</h2>
        <p>
          When an app asks you to connect, send or sign, open the link it gives you (or scan its QR code): the wallet shows
          exactly what will happen and asks for your PIN. A card someone sent you as a claim link opens here too.
        </p>
      </section>
    </Screen>
  );
}

/** One chain's coins, and on an embedded (development) chain the faucet. */
function Balance(props: { chain: ChainAccount; onChanged: (home: HomeView) => void }) {
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const { chain } = props;

  async function getTestCoins() {
    setBusy(true);
    setStatus('Sending test coins…');
    try {
      const sent = await accountApi.faucet(chain.chain);
      setStatus(`${sent.coins} test coins arrived.`);
      props.onChanged(await accountApi.home());
    } catch (caught) {
      setStatus(describeError(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <li class="balance" data-chain={chain.chain}>
      <span>{chainLabel(chain.chain)}</span>
      <strong class="coins">{chain.coins === null ? 'not reachable' : `${chain.coins} coins`}</strong>
      {chain.faucet && (
        <button type="button" onClick={getTestCoins} disabled={busy} aria-describedby={`faucet-note-${chain.chain}`}>
          Get test coins
        </button>
      )}
      {chain.faucet && (
        <span id={`faucet-note-${chain.chain}`} class="muted small">
          A development chain: its coins are for testing only.
        </span>
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
