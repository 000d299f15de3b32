/**
 * Cards to people: recipients named by name and phone (A8, A11). Members get cards at their address;
 * others at a wallet reserved for their name and phone, which becomes theirs when they sign up, and
 * an invite through the messenger under the invite limits.
 */
export { parsePersonPair, normalizePersonName, personKey, type Person } from './person.ts';
export { resolvePeople, type PeopleResolution, type PersonRecipient } from './resolve.ts';
export { invitePeople } from './commands.ts';
export { inviteRoutes } from './routes.ts';
export { findReservedWallet, reserveWallet } from './reserved-wallets.ts';
