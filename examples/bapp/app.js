// The example BApp: every call to the wallet service goes through the SDK's browser bundle
// (window.WalletA2A). Plain script, no build step.
'use strict';
(function () {
  var BAPP_NAME = 'Example BApp';
  // A request being confirmed while the wallet app has the screen (phones): resumed on return.
  var PENDING_KEY = 'example-bapp.pending';
  var $ = function (id) { return document.getElementById(id); };

  function say(text, kind) {
    var message = $('message');
    message.textContent = text || '';
    message.className = kind || '';
  }

  if (!window.WalletA2A) {
    say('The SDK bundle (wallet-a2a.js) did not load: run npm install, then reload this page.', 'error');
    return;
  }
  var a2a = WalletA2A.createClient({ baseUrl: location.origin });
  var waiting = null;
  var cardsCursor = '';

  function problem(error) {
    return 'Error ' + error.code + ': ' + error.err + (error.message && error.message !== error.err ? ' (' + error.message + ')' : '');
  }

  function connectedAddress() {
    var connection = a2a.getConnection();
    return connection ? connection.main_address : null;
  }

  function showConnection() {
    var address = connectedAddress();
    $('connected').hidden = !address;
    $('disconnected').hidden = Boolean(address);
    $('address').textContent = address || '';
  }

  function showOutcome(pairs) {
    var body = $('outcome-details');
    body.textContent = '';
    pairs.forEach(function (pair) {
      var row = body.insertRow();
      row.insertCell().textContent = pair[0];
      row.insertCell().textContent = pair[1];
    });
    $('outcome').hidden = pairs.length === 0;
  }

  function describe(answer) {
    if (answer.status === 'prepared') return 'Waiting for the wallet to open the request…';
    if (answer.status === 'requested') return 'The wallet has opened the request: confirm it there.';
    if (answer.status === 'completed' && answer.result.status === 'pending') return 'Sent: waiting for the transaction to be mined…';
    return '';
  }

  function returnLink() {
    return location.origin + location.pathname;
  }

  /** Shows the link (and on a computer the QR code) of a request, and waits for its outcome. */
  async function confirm(kind, prepared) {
    if (WalletA2A.isError(prepared)) {
      say(problem(prepared), 'error');
      return null;
    }
    var key = prepared.request_key;
    sessionStorage.setItem(PENDING_KEY, JSON.stringify({ key: key, kind: kind }));
    showPending(kind, key);
    var outcome = await a2a.request(key, async function () {
      var links = await a2a.getRequestUrl(key);
      if (WalletA2A.isError(links)) return say(problem(links), 'error');
      $('qr').src = links.qr_png_url;
      $('qr').hidden = false;
      // On a computer the wallet page opens beside this one, which keeps waiting.
      $('wallet-link').target = '_blank';
      $('wallet-link').href = links.url;
    });
    if (WalletA2A.isError(outcome)) {
      hidePending();
      say(problem(outcome), 'error');
      return null;
    }
    if (outcome.opened) $('wallet-link').href = outcome.url;
    return wait(kind, key);
  }

  /** While a request waits, no other can be started. */
  function setBusy(busy) {
    var buttons = document.querySelectorAll('#connect, form button[type=submit]');
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = busy;
  }

  function showPending(kind, key) {
    setBusy(true);
    say('');
    showOutcome([]);
    $('pending-title').textContent = kind === 'connect' ? 'Connect: confirm in your wallet' : 'Confirm in your wallet';
    $('pending-state').textContent = '';
    $('request-key').textContent = key;
    $('qr').hidden = true;
    $('qr').removeAttribute('src');
    $('wallet-link').removeAttribute('href');
    $('wallet-link').removeAttribute('target');
    $('pending').hidden = false;
  }

  function hidePending() {
    setBusy(false);
    $('pending').hidden = true;
    sessionStorage.removeItem(PENDING_KEY);
  }

  async function wait(kind, key) {
    waiting = new AbortController();
    try {
      return await a2a.waitForResult(key, {
        signal: waiting.signal,
        untilMined: kind === 'send',
        onUpdate: function (answer) { $('pending-state').textContent = describe(answer); },
      });
    } catch (error) {
      if (waiting && waiting.signal.aborted) return null;
      say('The wallet service cannot be reached: ' + error.message, 'error');
      return null;
    } finally {
      waiting = null;
      hidePending();
    }
  }

  /** What each kind of request shows when it is over. */
  var finish = {
    connect: function (answer) {
      if (answer.status === 'completed') say('Connected.', 'ok');
      else finishOther(answer);
      showConnection();
    },
    send: function (answer) {
      if (answer.status !== 'completed') return finishOther(answer);
      say(answer.result.status === 'success' ? 'Sent.' : 'The transaction failed.', answer.result.status === 'success' ? 'ok' : 'error');
      showOutcome([['transaction', answer.result.tx_hash], ['status', answer.result.status]]);
    },
    sign: function (answer) {
      if (answer.status !== 'completed') return finishOther(answer);
      say('Signed.', 'ok');
      showOutcome([['signature', answer.result.signature], ['hash', answer.result.hash]]);
    },
  };

  function finishOther(answer) {
    if (answer.status === 'canceled') say('The request was canceled in the wallet.', 'error');
    else if (WalletA2A.isError(answer)) say(problem(answer), 'error');
  }

  async function run(kind, prepare) {
    try {
      var answer = await confirm(kind, await prepare());
      if (answer) finish[kind](answer);
    } catch (error) {
      hidePending();
      say('The wallet service cannot be reached: ' + error.message, 'error');
    }
  }

  $('connect').addEventListener('click', function () {
    run('connect', function () {
      return a2a.prepare.auth({ bappName: BAPP_NAME, successLink: returnLink(), failLink: returnLink() });
    });
  });

  $('disconnect').addEventListener('click', function () {
    if (waiting) waiting.abort();
    a2a.disconnect();
    $('cards-table').hidden = true;
    $('cards-more').hidden = true;
    $('cards-title').textContent = '';
    showOutcome([]);
    showConnection();
    say('Disconnected: this page no longer keeps your address.', 'ok');
  });

  $('stop').addEventListener('click', function () {
    if (waiting) waiting.abort();
    say('Stopped waiting. The request can still be confirmed in the wallet until it expires.');
  });

  $('send-coin').addEventListener('submit', function (event) {
    event.preventDefault();
    run('send', function () {
      return a2a.prepare.sendCoin({
        bappName: BAPP_NAME,
        to: $('send-to').value.trim(),
        amount: $('send-amount').value.trim(),
        from: connectedAddress(),
        successLink: returnLink(),
        failLink: returnLink(),
      });
    });
  });

  $('sign-message').addEventListener('submit', function (event) {
    event.preventDefault();
    run('sign', function () {
      return a2a.prepare.signMessage({
        bappName: BAPP_NAME,
        value: $('sign-text').value,
        from: connectedAddress(),
        successLink: returnLink(),
        failLink: returnLink(),
      });
    });
  });

  async function listCards(cursor) {
    var page = await a2a.getCardList({ contract: $('cards-contract').value.trim(), eoa: connectedAddress(), cursor: cursor });
    if (WalletA2A.isError(page)) return say(problem(page), 'error');
    say('');
    var list = $('cards-list');
    if (!cursor) list.textContent = '';
    page.cards.forEach(function (card) {
      var row = list.insertRow();
      var name = row.insertCell();
      var link = document.createElement('a');
      link.textContent = '#' + card.card_id;
      if (/^https?:\/\//.test(card.card_uri)) link.href = card.card_uri;
      name.appendChild(link);
      row.insertCell().textContent = card.sender;
      row.insertCell().textContent = card.updated_at_format;
    });
    $('cards-title').textContent = (page.name || 'Cards') + ': ' + list.rows.length + (page.next_cursor ? ' shown so far' : ' in all');
    $('cards-table').hidden = list.rows.length === 0;
    cardsCursor = page.next_cursor;
    $('cards-more').hidden = !cardsCursor;
  }

  $('cards').addEventListener('submit', function (event) {
    event.preventDefault();
    listCards('').catch(function (error) { say('The wallet service cannot be reached: ' + error.message, 'error'); });
  });
  $('cards-more').addEventListener('click', function () {
    listCards(cardsCursor).catch(function (error) { say('The wallet service cannot be reached: ' + error.message, 'error'); });
  });

  showConnection();
  // Back from the wallet app (phones): pick up the request that was being confirmed.
  var pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) || 'null');
  if (pending && finish[pending.kind]) {
    showPending(pending.kind, pending.key);
    wait(pending.kind, pending.key).then(function (answer) { if (answer) finish[pending.kind](answer); });
  }
})();
