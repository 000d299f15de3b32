import { useEffect, useState } from 'preact/hooks';
import { accountApi } from '../account-api.ts';
import type { HomeView, Member } from '../wire.ts';
import { CopyAddress } from '../components/copy-address.tsx';
import { QrCode } from '../components/codes.tsx';
import { AppLink } from '../components/fields.tsx';
import { Loading, Screen } from '../components/screen.tsx';
import { address } from '../format.ts';
import { describeError } from '../messages.ts';

/**
 * Receiving on one EVM chain: the address to copy, and a QR code holding the EIP-681 URI
 * `ethereum:<address>@<chain id>`, so a wallet that scans it pays on this chain, not another.
 */
export function Receive(props: { member: Member; chain: string }) {
  const [home, setHome] = useState<HomeView | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    accountApi.home().then(setHome, (caught) => setError(describeError(caught)));
  }, []);
  const chain = home?.chains.find((entry) => entry.chain === props.chain);
  const title = chain ? `Receive on ${chain.display_name}` : 'Receive';
  return (
    <Screen title={title}>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!home && !error && <Loading what="Reading your wallet" />}
      {home && !chain && (
        <p class="notice" role="alert">
          This wallet service has no chain called “{props.chain}”. <AppLink href="/">Back to your wallet</AppLink>
        </p>
      )}
      {chain && (
        <section class="card" aria-labelledby="receive-title">
          <h2 id="receive-title">
            Your address for {chain.ticker} and tokens on {chain.display_name}
          </h2>
          <CopyAddress label="Address" address={address(props.member.main_address)} />
          <QrCode value={eip681(props.member.main_address, chain.chain_id)} label={`QR code to pay your address on ${chain.display_name} (chain ${chain.chain_id})`} />
          <p class="muted small">
            The code names the chain ({chain.display_name}, chain id {chain.chain_id}): a wallet that scans it sends on this chain. Someone who types the
            address should choose {chain.display_name} too.
          </p>
          <p>
            <AppLink class="button" href="/">
              Back to your wallet
            </AppLink>
          </p>
        </section>
      )}
    </Screen>
  );
}

/** The EIP-681 payment URI of an address on a chain: `ethereum:0x…@<chain id>`. */
export function eip681(account: string, chainId: number): string {
  return `ethereum:${address(account)}@${chainId}`;
}
