import type { paths } from './generated/openapi.ts';

/**
 * The shapes the app sends and receives, named from the types generated from the service's OpenAPI
 * document (generated/openapi.ts, written by `npm run openapi`): a schema changed on the service
 * changes them here, and `tsc` finds every screen it breaks.
 */
type Method = 'get' | 'post' | 'put' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Json<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;

/** The 200 answer of an operation. */
export type Answer<P extends keyof paths, M extends Method> = Operation<P, M> extends { responses: { 200: infer Response } } ? Json<Response> : never;
/** The JSON body an operation takes. */
export type Body<P extends keyof paths, M extends Method> = Operation<P, M> extends { requestBody?: infer Request } ? Json<NonNullable<Request>> : never;
/** The 400 answer of an operation. */
type Refusal<P extends keyof paths, M extends Method> = Operation<P, M> extends { responses: { 400: infer Response } } ? Json<Response> : never;

type RequestPath = '/v2/wallet-app/a2a/requests/{request_key}';
type ApprovePath = '/v2/wallet-app/a2a/requests/{request_key}/approve';

export type Member = Answer<'/v2/wallet-app/me', 'get'>;
export type SignedIn = Answer<'/v2/wallet-app/sessions', 'post'>;
export type SignUpBody = Body<'/v2/wallet-app/members', 'post'>;
export type PhoneCountries = Answer<'/v2/wallet-app/phone-countries', 'get'>;
export type HomeView = Answer<'/v2/wallet-app/home', 'get'>;
export type ChainAccount = HomeView['chains'][number];
export type FaucetAnswer = Answer<'/v2/wallet-app/faucet', 'post'>;
export type PinState = Answer<'/v2/wallet-app/me/pin', 'get'>;
export type SessionView = Answer<'/v2/wallet-app/sessions', 'get'>['sessions'][number];
export type SignedOutEverywhere = Answer<'/v2/wallet-app/sessions', 'delete'>;

/** What approval will do, fixed at prepare. */
export type RequestView = Answer<RequestPath, 'get'>;
export type RequestType = RequestView['type'];
/** The B3 answer of a request, or the keyed body of a request that ended in error. */
export type RequestOutcome = (Answer<ApprovePath, 'post'> & { error?: undefined }) | (Extract<Refusal<ApprovePath, 'post'>, { request_key: string }> & { result?: undefined });

export type ClaimView = Answer<'/v2/wallet-app/claims/{claim_id}/view', 'post'>;
export type Claimed = Answer<'/v2/wallet-app/claims/{claim_id}/claim', 'post'>;
export type CardPage = Answer<'/v2/a2a/cards', 'get'>;
export type CardMetadata = Answer<'/v2/metadata/{nft_id}/{card_id}', 'get'>;
export type MemberBappList = Answer<'/v2/wallet-app/cards', 'get'>;
export type MemberBapp = MemberBappList['bapps'][number];
export type MemberCard = MemberBapp['cards'][number];
export type MemberBappCards = Answer<'/v2/wallet-app/cards/{nft_id}', 'get'>;
/** The holder's view of a card. */
export type HeldCard = Answer<'/v2/wallet-app/cards/{nft_id}/{card_id}', 'get'>;
export type Attribute = NonNullable<HeldCard['metadata']['attributes']>[number];
/** A secure image or video: the file names of the secure upload (one is shown). */
export type SecureFile = NonNullable<NonNullable<HeldCard['secure']>['images']>[number];
export type SendCardBody = Body<'/v2/wallet-app/cards/{nft_id}/{card_id}/send', 'post'>;
export type CardSent = Answer<'/v2/wallet-app/cards/{nft_id}/{card_id}/send', 'post'>;
export type Activity = Answer<'/v2/wallet-app/activity', 'get'>;
export type ActivityItem = Activity['items'][number];
export type TokenBalance = ChainAccount['tokens'][number];
export type TransferQuoteBody = Body<'/v2/wallet-app/transfers/quote', 'post'>;
export type TransferQuote = Answer<'/v2/wallet-app/transfers/quote', 'post'>;
export type TransferSent = Answer<'/v2/wallet-app/transfers', 'post'>;
/** A danger the service found in a request (request-facts.ts): acknowledged before the PIN. */
export type RequestWarning = NonNullable<RequestView['warnings']>[number];
export type KnownContract = NonNullable<RequestView['contracts']>[number];
