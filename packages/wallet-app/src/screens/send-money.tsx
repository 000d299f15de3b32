import { useEffect, useRef, useState } from 'preact/hooks';
import { accountApi } from '../account-api.ts';
import { api, ApiError } from '../api.ts';
import type { ChainAccount, HomeView, TransferQuote, TransferQuoteBody, TransferSent } from '../wire.ts';
import { AppLink, PinField, RecipientFields, recipientOf } from '../components/fields.tsx';
import { Details, Loading, Mono, Screen } from '../components/screen.tsx';
import { formProblem } from '../components/validation.ts';
import { address, forPeople, fromUnits } from '../format.ts';
import { describeError } from '../messages.ts';

type Recipient = 'address' | 'person';

/** What to send, as the home lists it: the chain's coin, or one of its tokens. */
interface Asset {
  chain: ChainAccount;
  token: ChainAccount['tokens'][number] | null;
  symbol: string;
  decimals: number;
  /** The balance, exact. */
  balance: string;
}

/** A new send's idempotency key: 128 random bits (getRandomValues works on plain-http origins, where randomUUID does not). */
function sendKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** This form's refusals in its own words; the rest as everywhere (messages.ts). */
function sendProblem(error: unknown, asset: Asset): string {
  if (error instanceof ApiError) {
    if (error.code === 6403) return 'This address cannot receive it: it is the zero address or your own wallet. Check the recipient.';
    if (error.code === 6404) return `Enter an amount above 0 with at most ${asset.decimals} decimals.`;
    if (error.code === 6405) return 'This token does not answer as a token on this chain, so it cannot be sent from here.';
    if (error.code === 4090) return 'This send was already made with other details. Start a new send.';
    if (error.code === 6412) return `There is not enough ${asset.symbol} for this${asset.token ? '' : ' with its fee'}. You have ${forPeople(asset.balance)} ${asset.symbol}.`;
    if (error.code === 4202) return `There is not enough ${asset.chain.ticker} to pay the fee. Add some ${asset.chain.ticker}, then try again.`;
  }
  return describeError(error);
}

/**
 * Sending coins or a token: the recipient (an address, or a person by name and phone) and the
 * amount are checked by the service first, which answers the fee and the balances; only then is the
 * PIN asked. The answer comes once the transaction is mined. A retry of the same reviewed send
 * carries the same key, so it can never send twice.
 */
export function SendMoney(props: { chain: string; token: string | null }) {
  const [home, setHome] = useState<HomeView | null>(null);
  const [loadError, setLoadError] = useState('');
  const [kind, setKind] = useState<Recipient>('address');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [review, setReview] = useState<{ body: TransferQuoteBody; quote: TransferQuote; key: string } | null>(null);
  const [sent, setSent] = useState<TransferSent | null>(null);
  const pin = useRef<HTMLInputElement>(null);

  useEffect(() => {
    accountApi.home().then(setHome, (caught) => setLoadError(describeError(caught)));
  }, []);

  const chain = home?.chains.find((entry) => entry.chain === props.chain);
  const token = chain && props.token ? (chain.tokens.find((entry) => entry.contract === props.token!.toLowerCase()) ?? null) : null;
  const asset: Asset | null = chain && (!props.token || token) && chain.coins !== null
    ? { chain, token, symbol: token ? token.symbol : chain.ticker, decimals: token ? token.decimals : chain.decimals, balance: token ? token.amount : chain.coins }
    : null;
  const title = asset ? `Send ${asset.symbol}` : 'Send';

  if (loadError || (home && !asset))
    return (
      <Screen title={title}>
        <p class="notice" role="alert">
          {loadError || 'This is not in your wallet: the chain is not reachable now, or you hold no such token.'} <AppLink href="/">Back to your wallet</AppLink>
        </p>
      </Screen>
    );
  if (!asset)
    return (
      <Screen title={title}>
        <Loading what="Reading your balances" />
      </Screen>
    );

  if (sent)
    return (
      <Screen title="Sent">
        <p class="lead" role="status">
          {fromUnits(sent.units, asset.decimals)} {asset.symbol} went to <Mono>{address(sent.to_address)}</Mono>.
        </p>
        {kind === 'person' && <p>If they are not a member yet, it waits for them in that wallet: it becomes theirs when they sign up with that name and phone number.</p>}
        <Details label="Transfer" rows={[['Chain', asset.chain.display_name], ['Transaction', <Mono>{sent.hash}</Mono>]]} />
        <p class="actions">
          <AppLink class="button primary" href="/">
            Back to your wallet
          </AppLink>
          <AppLink class="button" href="/activity">
            See it in your activity
          </AppLink>
        </p>
      </Screen>
    );

  async function check(event: Event) {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const problem = formProblem(formElement);
    if (problem) return setError(problem);
    const form = new FormData(formElement);
    const body: TransferQuoteBody = {
      chain: asset!.chain.chain,
      ...(asset!.token ? { token: asset!.token.contract } : {}),
      amount: String(form.get('amount')).trim(),
      ...recipientOf(form, kind),
    };
    setBusy(true);
    setError('');
    try {
      setReview({ body, quote: await api.quoteTransfer(body), key: sendKey() });
    } catch (caught) {
      setError(sendProblem(caught, asset!));
    } finally {
      setBusy(false);
    }
  }

  async function send(event: Event) {
    event.preventDefault();
    const problem = formProblem(event.currentTarget as HTMLFormElement);
    if (problem) return setError(problem);
    setBusy(true);
    setError('');
    try {
      setSent(await api.sendTransfer(review!.body, pin.current!.value, review!.key));
    } catch (caught) {
      setError(sendProblem(caught, asset!));
      setBusy(false);
      if (pin.current) {
        pin.current.value = '';
        pin.current.focus();
      }
    }
  }

  const balanceLine = (
    <p class="muted">
      You have <span title={`${asset.balance} ${asset.symbol}`}>{forPeople(asset.balance)} {asset.symbol}</span> on {asset.chain.display_name}.
    </p>
  );

  if (review) {
    const { quote } = review;
    const coin = asset.chain.ticker;
    const coinDecimals = asset.chain.decimals;
    const coinsAfter = BigInt(quote.balance) - BigInt(quote.fee) - (asset.token ? 0n : BigInt(quote.units));
    return (
      <Screen title={`Send ${asset.symbol}`}>
        <Details
          label="What will be sent"
          rows={[
            ['Amount', `${fromUnits(quote.units, asset.decimals)} ${asset.symbol}`],
            ['To', <Mono>{address(quote.to_address)}</Mono>],
            ['Chain', asset.chain.display_name],
            ['Fee', <span title={`at most ${fromUnits(quote.max_fee, coinDecimals)} ${coin}`}>about {forPeople(fromUnits(quote.fee, coinDecimals))} {coin}</span>],
            ...(asset.token && quote.token_balance !== null
              ? ([['Your tokens after', `${forPeople(fromUnits((BigInt(quote.token_balance) - BigInt(quote.units)).toString(), asset.decimals))} ${asset.symbol}`]] as Array<[string, string]>)
              : []),
            ['Your coins after', `about ${forPeople(fromUnits((coinsAfter < 0n ? 0n : coinsAfter).toString(), coinDecimals))} ${coin}`],
          ]}
        />
        <p class="muted small">Your balance covers this and its fee. Check the address: a send cannot be undone.</p>
        <form class="stack" id="send-pin-form" noValidate onSubmit={send} aria-describedby={error ? 'send-error' : undefined}>
          <PinField id="pin" label="PIN (6 digits)" inputRef={pin} />
          {error && (
            <p id="send-error" class="error" role="alert">
              {error}
            </p>
          )}
          <div class="actions">
            <button class="primary" type="submit" disabled={busy}>
              {busy ? 'Sending…' : `Send ${asset.symbol}`}
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setReview(null);
                setError('');
              }}
            >
              Change
            </button>
          </div>
        </form>
      </Screen>
    );
  }

  return (
    <Screen title={title}>
      {balanceLine}
      <form class="stack" id="send-money-form" noValidate onSubmit={check} aria-describedby={error ? 'send-error' : undefined}>
        <RecipientFields kind={kind} onKind={setKind} what="it" />
        <label for="amount">Amount ({asset.symbol})</label>
        <input
          id="amount"
          name="amount"
          required
          inputMode="decimal"
          autocomplete="off"
          pattern={`[0-9]+(\\.[0-9]{1,${Math.max(asset.decimals, 1)}})?`}
          data-missing={`Enter how much ${asset.symbol} to send.`}
          data-invalid={`Write the amount with digits and at most ${asset.decimals} decimals after a point, like 1.5.`}
        />
        {error && (
          <p id="send-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button class="primary" type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Review'}
        </button>
      </form>
    </Screen>
  );
}
