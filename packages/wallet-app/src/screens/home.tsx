import type { Member } from '../api-types.ts';
import { CopyAddress } from '../components/copy-address.tsx';
import { Screen } from '../components/screen.tsx';
import { address } from '../format.ts';

/** The member's wallet: who is signed in and the address the wallet acts from. */
export function Home(props: { member: Member }) {
  return (
    <Screen title="Your wallet">
      <p class="lead">
        Signed in as <strong>{props.member.name}</strong> ({props.member.email}).
      </p>
      <section class="card" aria-labelledby="addresses-title">
        <h2 id="addresses-title">Your address</h2>
        <p class="muted">The same address on the main chain and every other EVM chain of this service.</p>
        <CopyAddress label="Main" address={address(props.member.main_address)} />
      </section>
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
