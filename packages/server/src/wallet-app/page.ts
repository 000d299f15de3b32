import type { FastifyPluginAsync } from 'fastify';

/**
 * The minimal web wallet that the universal link `{web_url}/?target=/a2a?request_key=K` opens:
 * sign in, see exactly what the request will do, approve with the PIN or cancel. The escrow claim
 * link `{web_url}/claim/<id>#<secret>` opens it too: sign in, see the card, claim it. Plain HTML and
 * one script, no build step; it only calls the wallet-app API.
 */
export const walletPageRoutes: FastifyPluginAsync = async (app) => {
  const headers = {
    'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  };
  app.get('/', async (_request, reply) => reply.headers(headers).type('text/html; charset=utf-8').send(WALLET_PAGE_HTML));
  // The secret is in the fragment, which browsers never send: the server sees the id alone.
  app.get('/claim/:claim_id', async (_request, reply) => reply.headers(headers).type('text/html; charset=utf-8').send(WALLET_PAGE_HTML));
  app.get('/wallet-app.js', async (_request, reply) =>
    reply.headers(headers).type('text/javascript; charset=utf-8').send(WALLET_PAGE_SCRIPT),
  );
};

export const WALLET_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Wallet</title>
<style>
  body { font: 16px/1.45 system-ui, sans-serif; max-width: 34rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1f; }
  h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; }
  form, section { display: grid; gap: .6rem; margin: 1rem 0; }
  input, button { font: inherit; padding: .55rem .7rem; border-radius: .4rem; border: 1px solid #9a9aa5; }
  button { cursor: pointer; background: #f2f2f6; } button.primary { background: #1d4ed8; color: #fff; border-color: #1d4ed8; }
  table { border-collapse: collapse; width: 100%; } td { border-top: 1px solid #ddd; padding: .35rem .3rem; vertical-align: top; word-break: break-all; }
  td:first-child { color: #555; width: 9rem; word-break: normal; }
  .summary { font-weight: 600; } .error { color: #b91c1c; } .ok { color: #047857; } .row { display: flex; gap: .6rem; }
  [hidden] { display: none !important; }
</style>
</head>
<body>
<h1>Wallet</h1>
<p id="message" role="status"></p>
<form id="sign-in" hidden>
  <h2>Sign in</h2>
  <input id="email" type="email" autocomplete="username" placeholder="E-mail" required>
  <input id="password" type="password" autocomplete="current-password" placeholder="Password" required>
  <button class="primary" type="submit">Sign in</button>
</form>
<section id="member" hidden>
  <div class="row"><span id="member-name"></span><button id="sign-out" type="button">Sign out</button></div>
</section>
<section id="request" hidden>
  <h2>Request from <span id="bapp-name"></span></h2>
  <p class="summary" id="summary"></p>
  <table><tbody id="details"></tbody></table>
  <form id="decision">
    <input id="pin" type="password" inputmode="numeric" autocomplete="off" placeholder="PIN" required>
    <div class="row">
      <button class="primary" id="approve" type="submit">Approve</button>
      <button id="cancel" type="button">Cancel request</button>
    </div>
  </form>
</section>
<section id="claim" hidden>
  <h2>A card for you</h2>
  <p class="summary" id="claim-summary"></p>
  <table><tbody id="claim-details"></tbody></table>
  <button class="primary" id="claim-button" type="button" hidden>Claim the card</button>
</section>
<section id="outcome" hidden>
  <h2>Result</h2>
  <table><tbody id="outcome-details"></tbody></table>
  <a id="return-link" hidden>Return to the app</a>
</section>
<script src="/wallet-app.js"></script>
</body>
</html>
`;

export const WALLET_PAGE_SCRIPT = String.raw`'use strict';
(function () {
  var API = '/v2/wallet-app';
  var TOKEN = 'wallet-session';
  var $ = function (id) { return document.getElementById(id); };
  var view = null;

  function requestKey() {
    var target = new URLSearchParams(location.search).get('target') || '';
    var match = /^\/a2a\?(.*)$/.exec(target);
    return match ? new URLSearchParams(match[1]).get('request_key') : null;
  }

  // A claim link: /claim/<id>#<secret>. The secret stays in the page and goes only in request bodies.
  function claimLink() {
    var match = /^\/claim\/([A-Za-z0-9_-]{22})$/.exec(location.pathname);
    if (!match) return null;
    var secret = location.hash.replace(/^#/, '');
    return { id: match[1], secret: /^[0-9a-fA-F]{64}$/.test(secret) ? secret : null };
  }

  function say(text, kind) { var m = $('message'); m.textContent = text || ''; m.className = kind || ''; }

  async function api(method, path, body) {
    var headers = body ? { 'content-type': 'application/json' } : {};
    var token = sessionStorage.getItem(TOKEN);
    if (token) headers.authorization = 'Bearer ' + token;
    var response = await fetch(API + path, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined });
    var data = await response.json().catch(function () { return {}; });
    if (response.status === 401) { sessionStorage.removeItem(TOKEN); }
    return { ok: response.ok, status: response.status, data: data };
  }

  function problem(data) {
    var error = data.error || data;
    return 'Error ' + (error.code || '') + ': ' + (error.message || error.err || 'request failed');
  }

  // SHA-256 hex: what the API takes in place of a password or PIN (crypto.subtle needs a secure origin).
  async function sha256Hex(text) {
    var bytes = new TextEncoder().encode(text);
    if (window.crypto && crypto.subtle) {
      var digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
      return Array.from(digest, function (b) { return b.toString(16).padStart(2, '0'); }).join('');
    }
    return sha256Fallback(bytes);
  }

  function sha256Fallback(bytes) {
    var K = [], H = [1779033703, -1150833019, 1013904242, -1521486534, 1359893119, -1694144372, 528734635, 1541459225];
    var n = 2, found = 0;
    while (found < 64) {
      var prime = true;
      for (var d = 2; d * d <= n; d++) if (n % d === 0) { prime = false; break; }
      if (prime) { K[found++] = (Math.pow(n, 1 / 3) % 1) * 4294967296 | 0; }
      n++;
    }
    var length = bytes.length, padded = new Uint8Array(((length + 9 + 63) >> 6) << 6);
    padded.set(bytes); padded[length] = 0x80;
    var view = new DataView(padded.buffer);
    view.setUint32(padded.length - 4, length * 8); view.setUint32(padded.length - 8, Math.floor(length / 536870912));
    var w = new Array(64);
    for (var offset = 0; offset < padded.length; offset += 64) {
      for (var i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
      for (i = 16; i < 64; i++) {
        var a = w[i - 15], b = w[i - 2];
        var s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
        var s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
      }
      var h = H.slice();
      for (i = 0; i < 64; i++) {
        var e = h[4], x = h[0];
        var t1 = h[7] + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & h[5]) ^ (~e & h[6])) + K[i] + w[i];
        var t2 = (((x >>> 2) | (x << 30)) ^ ((x >>> 13) | (x << 19)) ^ ((x >>> 22) | (x << 10))) + ((x & h[1]) ^ (x & h[2]) ^ (h[1] & h[2]));
        h = [(t1 + t2) | 0, h[0], h[1], h[2], (h[3] + t1) | 0, h[4], h[5], h[6]];
      }
      for (i = 0; i < 8; i++) H[i] = (H[i] + h[i]) | 0;
    }
    return H.map(function (v) { return (v >>> 0).toString(16).padStart(8, '0'); }).join('');
  }

  function rows(tbody, pairs) {
    tbody.textContent = '';
    pairs.forEach(function (pair) {
      if (pair[1] === undefined || pair[1] === null || pair[1] === '') return;
      var tr = document.createElement('tr');
      var k = document.createElement('td'); k.textContent = pair[0];
      var v = document.createElement('td'); v.textContent = typeof pair[1] === 'string' ? pair[1] : JSON.stringify(pair[1], null, 1);
      tr.append(k, v); tbody.append(tr);
    });
  }

  function safeLink(url) {
    try { var protocol = new URL(url).protocol; return ['javascript:', 'data:', 'vbscript:'].indexOf(protocol) === -1 ? url : null; }
    catch (e) { return null; }
  }

  function showRequest(v) {
    view = v;
    $('request').hidden = false;
    $('bapp-name').textContent = v.bapp.name;
    $('summary').textContent = v.summary;
    var tx = v.transaction || {}, msg = v.message || {};
    rows($('details'), [
      ['Type', v.type], ['Chain', v.chain], ['Status', v.status], ['From', tx.from || msg.from], ['To', tx.to],
      ['Amount', tx.amount], ['Contract', tx.contract], ['Card', tx.card_id], ['Value (wei)', tx.value && tx.value !== '0' ? tx.value : null],
      ['Function', tx.function], ['Arguments', tx.params], ['Call data', tx.data && tx.data !== '0x' ? tx.data : null],
      ['Message', msg.text !== undefined && msg.text !== null ? msg.text : msg.value], ['Typed data', v.typed_data],
      ['Fee paid by the app', v.fee_delegated ? 'yes' : null], ['Expires', new Date(v.expiration_time * 1000).toLocaleString()],
    ]);
  }

  function showOutcome(data, ok) {
    $('request').hidden = true;
    $('outcome').hidden = false;
    var result = data.result || {};
    rows($('outcome-details'), [['Status', data.status], ['Error', data.error ? problem(data) : null]].concat(
      Object.keys(result).map(function (k) { return [k, result[k]]; })));
    var callback = view && view.bapp.callback;
    var link = callback && safeLink(ok ? callback.success : callback.fail);
    if (link) { $('return-link').href = link; $('return-link').hidden = false; }
  }

  async function loadRequest() {
    var key = requestKey();
    if (!key) { say('Signed in. Open an App2App link to confirm a request.'); return; }
    var opened = await api('POST', '/a2a/requests/' + encodeURIComponent(key) + '/open');
    if (!opened.ok) {
      var seen = await api('GET', '/a2a/requests/' + encodeURIComponent(key));
      if (seen.ok) { view = seen.data; showOutcome(seen.data, seen.data.status === 'completed'); }
      say(problem(opened.data), 'error');
      return;
    }
    showRequest(opened.data);
    say('');
  }

  var CLAIM_STATUS = { in_escrow: 'Waiting for you to claim it', claimed: 'Claimed', not_in_escrow: 'No longer available: the sender took it back' };

  function showClaim(card) {
    $('claim').hidden = false;
    $('claim-summary').textContent = (card.partner || 'A partner') + ' sent you the card "' + (card.name || ('#' + card.card_id)) + '".';
    rows($('claim-details'), [['Card', card.name], ['From', card.partner], ['Card id', String(card.card_id)], ['Contract', card.contract_address],
      ['Chain', card.chain], ['Status', CLAIM_STATUS[card.status] || card.status], ['Claimed to', card.claimed_to], ['Transaction', card.tx_hash]]);
    $('claim-button').hidden = card.status !== 'in_escrow';
  }

  async function loadClaim(link) {
    if (!link.secret) { say('This claim link is incomplete: open the whole link you were sent.', 'error'); return; }
    var answer = await api('POST', '/claims/' + link.id + '/view', { secret: link.secret });
    if (!answer.ok) { say(problem(answer.data), 'error'); return; }
    showClaim(answer.data);
    say('');
  }

  async function start() {
    var link = claimLink();
    if (!sessionStorage.getItem(TOKEN)) {
      $('sign-in').hidden = false;
      say(link ? 'Sign in to claim the card.' : requestKey() ? 'Sign in to see the request.' : '');
      return;
    }
    var me = await api('GET', '/me');
    if (!me.ok) { $('sign-in').hidden = false; return; }
    $('member').hidden = false;
    $('member-name').textContent = me.data.name + ' (' + me.data.main_address + ')';
    if (link) await loadClaim(link); else await loadRequest();
  }

  $('sign-in').addEventListener('submit', async function (event) {
    event.preventDefault();
    var answer = await api('POST', '/sessions', { email: $('email').value, password: await sha256Hex($('password').value) });
    if (!answer.ok) { say(problem(answer.data), 'error'); return; }
    sessionStorage.setItem(TOKEN, answer.data.session_token);
    $('password').value = '';
    $('sign-in').hidden = true;
    await start();
  });

  $('sign-out').addEventListener('click', async function () {
    await api('DELETE', '/sessions/current');
    sessionStorage.removeItem(TOKEN);
    location.reload();
  });

  $('decision').addEventListener('submit', async function (event) {
    event.preventDefault();
    $('approve').disabled = true;
    var answer = await api('POST', '/a2a/requests/' + encodeURIComponent(view.request_key) + '/approve', { pin: await sha256Hex($('pin').value) });
    $('pin').value = '';
    $('approve').disabled = false;
    if (answer.data && answer.data.request_key) { showOutcome(answer.data, answer.ok); say(answer.ok ? 'Approved.' : problem(answer.data), answer.ok ? 'ok' : 'error'); }
    else say(problem(answer.data), 'error');
  });

  $('cancel').addEventListener('click', async function () {
    var answer = await api('POST', '/a2a/requests/' + encodeURIComponent(view.request_key) + '/cancel');
    if (answer.ok) { showOutcome(answer.data, false); say('Canceled.', 'ok'); } else say(problem(answer.data), 'error');
  });

  $('claim-button').addEventListener('click', async function () {
    var link = claimLink();
    $('claim-button').disabled = true;
    say('Claiming...');
    var answer = await api('POST', '/claims/' + link.id + '/claim', { secret: link.secret });
    $('claim-button').disabled = false;
    if (!answer.ok) { say(problem(answer.data), 'error'); return; }
    showClaim(answer.data);
    say('The card is yours.', 'ok');
  });

  // Another link pasted into the address bar changes only the fragment: start over with it.
  window.addEventListener('hashchange', function () { if (claimLink()) location.reload(); });

  start().catch(function (error) { say(String(error), 'error'); });
})();
`;
