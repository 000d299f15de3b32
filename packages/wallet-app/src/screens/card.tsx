import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import type { Attribute, HeldCard, SecureFile } from '../wire.ts';
import { Code128, QrCode, QrSvg } from '../components/codes.tsx';
import { Details, Loading, Mono, Screen } from '../components/screen.tsx';
import { safeLink } from '../format.ts';
import { describeError } from '../messages.ts';
import { navigate } from '../router.ts';

/**
 * A card the member holds: its picture or video, what its BApp wrote on it, its public codes and,
 * for its holder only, its secure part (codes drawn here, images and videos fetched through the
 * holder-only route). A card with a status_url shows what the service read there just now.
 */
export function CardPage(props: { nftId: number; cardId: number }) {
  const [card, setCard] = useState<HeldCard | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    let cancelled = false;
    api.card(props.nftId, props.cardId).then(
      (held) => !cancelled && setCard(held),
      (caught) =>
        !cancelled &&
        setError(caught instanceof ApiError && caught.code === 404 ? 'This card is not in your wallet: you never held it, or it was sent on.' : describeError(caught)),
    );
    return () => {
      cancelled = true;
    };
  }, [props.nftId, props.cardId]);

  if (error)
    return (
      <Screen title="Card">
        <p class="notice" role="alert">
          {error}
        </p>
        <p>
          <a href="/cards">Back to your cards</a>
        </p>
      </Screen>
    );
  if (!card)
    return (
      <Screen title="Card">
        <Loading what="Loading the card" />
      </Screen>
    );

  const m = card.metadata;
  const background = m.background_color && /^#?[0-9a-fA-F]{6}$/.test(m.background_color) ? `#${m.background_color.replace('#', '')}` : undefined;
  const sendHref = `/cards/${card.nft_id}/${card.card_id}/send`;
  const external = safeLink(m.external_link ?? m.external_url);
  return (
    <Screen title={m.name}>
      <p class="bapp" id="card-bapp">
        A card of <strong>{card.bapp_name}</strong>
      </p>
      {/* Set through the CSSOM (Preact's style object), which the strict style-src allows. */}
      <figure class={`card-face layout-${m.layout ?? 'general'}`} style={background ? { backgroundColor: background } : undefined}>
        {m.animation_url ? (
          <video controls playsInline muted poster={m.image} aria-label={`Video of ${m.name}`}>
            <source src={m.animation_url} type="video/mp4" />
          </video>
        ) : (
          <img src={m.image} alt={`Card: ${m.name}`} />
        )}
        {background && <figcaption class="muted small">Background colour {background}</figcaption>}
      </figure>
      {m.description && <p class="lead">{m.description}</p>}
      {card.status || card.status_error ? <CardStatus card={card} /> : null}
      <Details
        label="Card details"
        rows={[
          ['Card', `#${card.card_id}`],
          ['Layout', m.layout ?? 'general'],
          ['Attributes', m.attributes && m.attributes.length > 0 ? <Attributes items={m.attributes} /> : null],
          ['Hashtags', m.hashtags && m.hashtags.length > 0 ? m.hashtags.map((tag) => `#${tag}`).join(' ') : null],
          ['Link', external ? <a href={external} rel="noopener noreferrer" target="_blank">{external}</a> : null],
          [
            'Links',
            m.custom_links && m.custom_links.length > 0 ? (
              <ul class="plain">
                {m.custom_links.map((link) => {
                  const href = safeLink(link.value);
                  return <li key={link.value}>{href ? <a href={href} rel="noopener noreferrer" target="_blank">{link.display_name}</a> : link.display_name}</li>;
                })}
              </ul>
            ) : null,
          ],
          ['QR code', m.qr_code ? <img class="code-img" src={m.qr_code} alt={`QR code of ${m.name}`} /> : null],
          ['Bar code', m.bar_code ? <img class="code-img" src={m.bar_code} alt={`Bar code of ${m.name}`} /> : null],
          ['Minted in', <Mono>{card.transaction_hash}</Mono>],
        ]}
      />
      {card.secure && <SecurePart name={m.name} secure={card.secure} />}
      <section class="card" aria-labelledby="send-title">
        <h2 id="send-title">Send</h2>
        {m.send_friend_only ? (
          <p class="muted" id="send-unavailable">
            This card can only be sent to a friend, which is not available: it stays in your wallet.
          </p>
        ) : m.sendable ? (
          <a
            class="button primary"
            id="send-card"
            href={sendHref}
            onClick={(event) => {
              event.preventDefault();
              navigate(sendHref);
            }}
          >
            Send this card
          </a>
        ) : (
          <p class="muted" id="send-unavailable">
            Its app made this card not sendable: it stays in your wallet.
          </p>
        )}
      </section>
    </Screen>
  );
}

/** Attributes; a status_url's answer may hold anything, so only trait and value pairs are shown. */
function Attributes(props: { items: Attribute[] | unknown[] }) {
  const pairs = (props.items as unknown[]).filter((item): item is Attribute => typeof item === 'object' && item !== null && 'trait_type' in item && 'value' in item);
  return (
    <dl class="tree">
      {pairs.map((item, index) => (
        <div key={index}>
          <dt>{String(item.trait_type)}</dt>
          <dd>{String(item.value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function CardStatus(props: { card: HeldCard }) {
  const { status, status_error: error } = props.card;
  return (
    <p class={status ? (status.valid ? 'ok' : 'error') : 'muted'} id="card-status" role="status">
      {status ? (status.valid ? 'Valid: its app says this card can be used now.' : 'Not valid: its app says this card cannot be used now.') : `Its app could not tell whether it is valid (${error}).`}
      {status?.attributes && status.attributes.length > 0 && <Attributes items={status.attributes} />}
    </p>
  );
}

/** The part only the holder sees. */
function SecurePart(props: { name: string; secure: NonNullable<HeldCard['secure']> }) {
  const { secure } = props;
  const images = secure.images ?? [];
  const animations = secure.animations ?? [];
  const [counter, setCounter] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  return (
    <section class="card secure" aria-labelledby="secure-title" id="secure-part">
      <h2 id="secure-title">Only for you</h2>
      <p class="muted small">Shown to the card's holder only. Show it where the card is used.</p>
      {(secure.qr_code || secure.bar_code) && (
        <button type="button" class="primary" id="show-at-counter" ref={opener} onClick={() => setCounter(true)}>
          Show at the counter
        </button>
      )}
      {counter && (
        <CounterView
          name={props.name}
          qrCode={secure.qr_code}
          barCode={secure.bar_code}
          onClose={() => {
            setCounter(false);
            opener.current?.focus();
          }}
        />
      )}
      {secure.qr_code && <QrCode value={secure.qr_code} label={`Secure QR code of ${props.name}`} />}
      {secure.bar_code && <Code128 value={secure.bar_code} label={`Secure bar code of ${props.name}`} />}
      {secure.attributes && secure.attributes.length > 0 && <Attributes items={secure.attributes} />}
      {animations.map((file, index) => (
        <SecureMedia key={`a${index}`} file={file} poster={images[index]} kind="video" label={`Secure video ${index + 1} of ${props.name}`} />
      ))}
      {images.slice(animations.length).map((file, index) => (
        <SecureMedia key={`i${index}`} file={file} kind="image" label={`Secure image ${index + 1} of ${props.name}`} />
      ))}
    </section>
  );
}

/** One secure file: the high resolution when there is one, else the low. */
function SecureMedia(props: { file: SecureFile; poster?: SecureFile | undefined; kind: 'image' | 'video'; label: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [poster, setPoster] = useState<string | undefined>(undefined);
  const [failed, setFailed] = useState(false);
  const name = props.file.high_resolution ?? props.file.low_resolution;
  const posterName = props.poster?.low_resolution ?? props.poster?.high_resolution;
  useEffect(() => {
    if (!name) return;
    api.secureFile(name).then(setUrl, () => setFailed(true));
    if (posterName) api.secureFile(posterName).then(setPoster, () => {});
  }, [name, posterName]);
  if (failed) return <p class="muted">{props.label} could not be loaded.</p>;
  if (!url) return <Loading what={`Loading ${props.label.toLowerCase()}`} />;
  return props.kind === 'video' ? (
    <video class="secure-media" controls playsInline muted poster={poster} src={url} aria-label={props.label} />
  ) : (
    <img class="secure-media" src={url} alt={props.label} />
  );
}

type WakeLockState = 'asking' | 'on' | 'unavailable';

/**
 * The holder-only codes alone on the whole screen, large on white, for a scanner at a counter. The
 * screen is kept on with the Screen Wake Lock API where the browser allows it (it is released on
 * leaving, and the browser drops it when the page is hidden); elsewhere a note says so. Done or
 * Escape closes it.
 */
function CounterView(props: { name: string; qrCode?: string | undefined; barCode?: string | undefined; onClose: () => void }) {
  const [wake, setWake] = useState<WakeLockState>('asking');
  const done = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    done.current?.focus();
    let lock: WakeLockSentinel | null = null;
    let closed = false;
    const wakeLock = 'wakeLock' in navigator ? navigator.wakeLock : undefined;
    if (!wakeLock) setWake('unavailable');
    else
      wakeLock.request('screen').then(
        (sentinel) => {
          if (closed) return void sentinel.release();
          lock = sentinel;
          setWake('on');
        },
        () => !closed && setWake('unavailable'),
      );
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') props.onClose();
    };
    document.addEventListener('keydown', onKey);
    document.body.classList.add('counter-open');
    return () => {
      closed = true;
      void lock?.release();
      document.removeEventListener('keydown', onKey);
      document.body.classList.remove('counter-open');
    };
  }, []);
  return (
    <div class="counter" role="dialog" aria-modal="true" aria-labelledby="counter-title" id="counter-view">
      <h2 id="counter-title">{props.name}</h2>
      {props.qrCode && <QrSvg value={props.qrCode} label={`Secure QR code of ${props.name}`} />}
      {props.barCode && <Code128 value={props.barCode} label={`Secure bar code of ${props.name}`} />}
      <p class="small" id="wake-lock-note" role="status">
        {wake === 'on'
          ? 'The screen stays on while this is shown.'
          : wake === 'unavailable'
            ? 'This browser cannot keep the screen on: turn the brightness up and touch the screen now and then.'
            : 'Asking the browser to keep the screen on…'}
      </p>
      <button type="button" class="primary" ref={done} id="counter-done" onClick={props.onClose}>
        Done
      </button>
    </div>
  );
}
