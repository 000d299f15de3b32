import type { Config } from '../config/config.ts';
import type { Person } from './person.ts';
import { walletWebUrl } from '../config/wallet-web-url.ts';

/** Where a person signs up: the wallet's web host (`a2a.links.webUrl`), or this service. */
export function signUpUrl(config: Readonly<Config>): string {
  return walletWebUrl(config);
}

/** The invite that goes with a card minted or sent to a person who is not a member (A8, A11). */
export function cardInviteText(config: Readonly<Config>, person: Person, context: { cardName: string; partnerServiceName: string }): string {
  return (
    `${context.partnerServiceName} sent you the card "${context.cardName}". It is kept for you: sign up at ` +
    `${signUpUrl(config)} as ${person.name} with this phone number to receive it.`
  );
}

/** The invite of POST /v2/wallet/invite. */
export function plainInviteText(config: Readonly<Config>, person: Person, partnerServiceName: string): string {
  return (
    `${partnerServiceName} invites you to the wallet. Sign up at ${signUpUrl(config)} as ${person.name} with ` +
    `this phone number; cards sent to you before then are kept for you.`
  );
}
