extension Page {
    /// The page's script: plain JavaScript, no framework, no build step. Item text only ever
    /// reaches the document through `textContent` (never `innerHTML`), and the CSP forbids
    /// any other script.
    static let appJS = #"""
'use strict';
// bananas serve: the list on a phone. The server's list (GET /api/list, then server-sent
// events) is the truth; edits the server has not answered yet wait in IndexedDB and are shown
// applied on top of it. They are sent one at a time, in order, each with its own key, so a
// request repeated after a lost answer changes nothing twice.
(function () {
  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs, text) => {
    const node = document.createElement(tag);
    if (attrs) for (const [k, v] of Object.entries(attrs)) {
      if (k === 'class') node.className = v; else if (k.startsWith('aria-') || k.startsWith('data-') || k === 'role') node.setAttribute(k, v); else node[k] = v;
    }
    if (text !== undefined) node.textContent = text;
    return node;
  };

  const state = {
    server: null,        // the last list the server sent
    queue: [],           // edits not answered yet: {seq, key, body}
    acked: [],           // answered edits the server's list may not show yet: {body, revision}
    reach: navigator.onLine === false ? 'offline' : 'online',  // or 'unreachable': online, but no server
    held: null,          // why the server keeps the first waiting edit waiting, in its words
    holdTimer: null,
    paired: true,
    sending: false,
    retryTimer: null,
    events: null,
    swiping: false,      // a row is following a finger (swipe to delete)
    sheet: null,         // the item whose sheet is open, as the sheet showed it
    cartOpen: remembered('cart') !== 'folded',
  };

  // Per device, not per list: how this phone likes the page (the cart folded or not).
  function remembered(key) { try { return localStorage.getItem('bananas.' + key); } catch (e) { return null; } }
  function remember(key, value) { try { localStorage.setItem('bananas.' + key, value); } catch (e) { /* private mode */ } }

  // ---- IndexedDB: the queue and the last list survive a reload with no connection.
  let db = null;
  function openDB() {
    return new Promise((resolve) => {
      if (!('indexedDB' in window)) return resolve(null);
      const request = indexedDB.open('bananas', 1);
      request.onupgradeneeded = () => {
        const d = request.result;
        d.createObjectStore('queue', { keyPath: 'seq', autoIncrement: true });
        d.createObjectStore('kv');
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => resolve(null);
    });
  }
  function tx(store, mode, work) {
    return new Promise((resolve, reject) => {
      if (!db) return resolve(undefined);
      const t = db.transaction(store, mode);
      const result = work(t.objectStore(store));
      t.oncomplete = () => resolve(result && 'result' in result ? result.result : undefined);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error);
    });
  }
  const loadQueue = () => tx('queue', 'readonly', (s) => s.getAll());
  const saveSnapshot = (snapshot) => tx('kv', 'readwrite', (s) => s.put(snapshot, 'snapshot')).catch(() => {});
  const loadSnapshot = () => tx('kv', 'readonly', (s) => s.get('snapshot'));

  // ---- Keys and ids: random, from crypto.getRandomValues (crypto.randomUUID needs HTTPS).
  function uuid() {
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
    return (h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20)).toUpperCase();
  }

  // ---- Edits: queued durably first, then shown, then sent.
  async function enqueue(body) {
    const entry = { key: uuid(), body };
    try {
      const seq = await tx('queue', 'readwrite', (s) => s.add(entry));
      entry.seq = seq === undefined ? Date.now() : seq;
    } catch (e) { entry.seq = Date.now(); }
    state.queue.push(entry);
    render();
    pump();
  }

  // The server's answer to an edit decides its fate. `ok`: done. A refusal that cannot succeed
  // later (a bad value, an item gone, a changed item: 400, 404, 409 `changed`): dropped, and
  // the page says why. Anything else keeps it first in the queue, sent again with the same key
  // (the server carries an edit out once per key): 409 `paused` (the list file cannot be read
  // or written), 429, and every 5xx (503: the server could not make it durable), as well as no
  // answer at all and a device not paired (401, 403).
  function kept(response, answer) {
    const status = response.status;
    return status === 408 || status === 429 || status >= 500 || (status === 409 && answer.error === 'paused');
  }
  function retryAfter(response, fallback) {
    const seconds = Number(response.headers.get('Retry-After'));
    return Math.min(60, Math.max(1, Number.isFinite(seconds) && seconds > 0 ? seconds : fallback)) * 1000;
  }

  async function pump() {
    if (state.sending || state.reach !== 'online' || !state.paired || state.holdTimer || state.queue.length === 0) return;
    state.sending = true;
    render();
    try {
      while (state.queue.length > 0 && state.reach === 'online') {
        const entry = state.queue[0];
        let response;
        try {
          response = await fetch('/api/edits', {
            method: 'POST', credentials: 'same-origin', cache: 'no-store',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(Object.assign({ key: entry.key }, entry.body)),
          });
        } catch (e) { lostConnection(); break; }
        if (response.status === 401 || response.status === 403) { notPaired(); break; }
        let answer = {};
        try { answer = await response.json(); } catch (e) { /* an answer without a body */ }
        if (kept(response, answer)) {
          hold(answer.message || 'the server answered ' + response.status, retryAfter(response, answer.error === 'paused' ? 5 : 2));
          break;
        }
        state.held = null;
        state.queue.shift();
        await tx('queue', 'readwrite', (s) => s.delete(entry.seq)).catch(() => {});
        if (response.ok && answer.ok) {
          // Shown on top of the server's list until a list as new as the answer comes (unless
          // it already came, the event stream being faster than the answer).
          if (!state.server || (answer.revision || 0) > state.server.revision) {
            state.acked.push({ body: entry.body, revision: answer.revision || 0 });
          }
        } else {
          toast(answer.message || 'The server refused an edit (' + response.status + ').');
        }
        render();
      }
    } finally {
      state.sending = false;
      render();
    }
  }

  // The first waiting edit stays first; it goes again after `wait`, or as soon as the server's
  // list says the pause is over.
  function hold(reason, wait) {
    state.held = reason;
    clearTimeout(state.holdTimer);
    state.holdTimer = setTimeout(() => { state.holdTimer = null; pump(); }, wait);
  }
  function release() {
    if (!state.holdTimer) return;
    clearTimeout(state.holdTimer);
    state.holdTimer = null;
    pump();
  }

  // ---- Connection: the phone offline (the browser says so), or online with the server out
  // of reach (a request failed), or connected.
  function lostConnection() {
    const reach = navigator.onLine === false ? 'offline' : 'unreachable';
    if (state.reach !== reach) { state.reach = reach; render(); }
    if (state.events) { state.events.close(); state.events = null; }
    scheduleRetry();
  }
  function scheduleRetry() {
    if (state.retryTimer) return;
    state.retryTimer = setTimeout(() => { state.retryTimer = null; refresh(); }, 2000);
  }
  async function refresh() {
    try {
      const response = await fetch('/api/list', { credentials: 'same-origin', cache: 'no-store' });
      if (response.status === 401 || response.status === 403) return notPaired();
      if (!response.ok) throw new Error('status ' + response.status);
      setServer(await response.json());
      state.reach = 'online';
      listen();
      render();
      pump();
    } catch (e) {
      lostConnection();
    }
  }
  function listen() {
    if (state.events || !('EventSource' in window)) return;
    const events = new EventSource('/api/events');
    state.events = events;
    events.addEventListener('list', (event) => {
      try { setServer(JSON.parse(event.data)); } catch (e) { return; }
      if (state.reach !== 'online') { state.reach = 'online'; pump(); }
      render();
    });
    events.onerror = () => { if (events.readyState === EventSource.CLOSED || navigator.onLine === false) lostConnection(); else refreshSoon(); };
  }
  let refreshing = null;
  function refreshSoon() {
    if (refreshing) return;
    refreshing = setTimeout(() => {
      refreshing = null;
      fetch('/api/list', { credentials: 'same-origin', cache: 'no-store' }).then((r) => {
        if (r.status === 401 || r.status === 403) notPaired();
      }).catch(() => lostConnection());
    }, 1500);
  }
  function setServer(snapshot) {
    state.server = snapshot;
    state.acked = state.acked.filter((a) => a.revision > snapshot.revision);
    saveSnapshot(snapshot);
    if (state.held && snapshot.state && snapshot.state.state !== 'paused') release();
  }
  function notPaired() {
    state.paired = false;
    if (state.events) { state.events.close(); state.events = null; }
    render();
  }
  window.addEventListener('online', () => refresh());
  window.addEventListener('offline', () => lostConnection());

  // ---- The list shown: the server's, with answered-but-not-yet-seen and waiting edits on top.
  function view() {
    const base = state.server || { items: [], sections: [], conflicts: [], deleted: [], state: { state: 'synced' } };
    const v = {
      items: base.items.map((i) => Object.assign({}, i)),
      sections: base.sections.slice(),
      conflicts: base.conflicts.slice(),
      deleted: base.deleted.slice(),
      state: base.state,
    };
    for (const a of state.acked) apply(v, a.body);
    for (const q of state.queue) apply(v, q.body);
    return v;
  }
  function apply(v, body) {
    const find = (id) => v.items.find((i) => i.id === id);
    switch (body.op) {
      case 'add': {
        const same = v.items.find((i) => i.id === body.id || i.name.toLowerCase() === body.name.toLowerCase());
        if (same) { same.checked = false; break; }
        const section = body.section || '';
        v.items.push({ id: body.id, name: body.name, amount: body.amount || '', section, checked: false, optional: false, seen: null });
        if (section && !v.sections.includes(section)) v.sections.push(section);
        break;
      }
      case 'check': { const i = find(body.id); if (i) i.checked = body.checked; break; }
      case 'amount': { const i = find(body.id); if (i) i.amount = body.amount; break; }
      case 'edit': {
        const i = find(body.id); if (!i) break;
        for (const field of ['name', 'amount', 'section', 'optional']) if (field in body) i[field] = body[field];
        if (body.section && !v.sections.includes(body.section)) v.sections.push(body.section);
        break;
      }
      case 'move': {
        const i = find(body.id); if (i) i.section = body.section;
        if (body.section && !v.sections.includes(body.section)) v.sections.push(body.section);
        break;
      }
      case 'place': {
        // Within its section: right after `after`, or first in the section.
        const from = v.items.findIndex((i) => i.id === body.id);
        if (from < 0) break;
        const [item] = v.items.splice(from, 1);
        let to = body.after ? v.items.findIndex((i) => i.id === body.after) + 1 : v.items.findIndex((i) => i.section === item.section);
        if (body.after && to === 0) to = from;  // the item it follows is gone: left where it was
        v.items.splice(to < 0 ? v.items.length : to, 0, item);
        break;
      }
      case 'delete': {
        const index = v.items.findIndex((i) => i.id === body.id);
        if (index >= 0) { v.deleted.unshift(v.items[index]); v.items.splice(index, 1); }
        break;
      }
      case 'clear_checked': {
        const ids = new Set(body.items.map((x) => x.id));
        v.items = v.items.filter((i) => !ids.has(i.id));
        break;
      }
      case 'restore': {
        const index = v.deleted.findIndex((i) => i.id === body.id);
        if (index >= 0 && !find(body.id)) { v.items.push(v.deleted[index]); v.deleted.splice(index, 1); }
        break;
      }
      case 'conflict': v.conflicts = v.conflicts.filter((c) => c.id !== body.id); break;
    }
  }

  // ---- The state, in words: always in sight (the bar sticks to the top).
  function stateWords(v) {
    const waiting = state.queue.length;
    const edits = waiting + ' edit' + (waiting === 1 ? '' : 's') + ' waiting';
    const also = waiting > 0 ? ' \u2014 ' + edits : '';
    if (!state.paired) return ['unpaired', 'not paired' + also];
    if (state.reach === 'offline') return ['offline', 'offline' + also];
    if (state.reach === 'unreachable') return ['unreachable', 'server unreachable' + also];
    if (state.held && waiting > 0) return ['held', edits + ': ' + state.held];
    const s = v.state || {};
    if (s.state === 'paused') return ['paused', 'paused: ' + (s.paused || 'the list file cannot be written')];
    if (s.state === 'conflict') return ['conflict', 'conflict'];
    // An answered edit is not `synced` until a list from the server shows it in the file.
    if (waiting > 0 || state.sending || state.acked.length > 0 || s.state === 'pending' || !state.server) return ['saving', 'saving'];
    return ['synced', 'synced'];
  }

  // ---- Rendering (the whole list each time: fast enough for a few thousand rows). What is
  // still to get comes first, by section; what is in the cart (checked) after all of it.
  let lastShown = null;
  // Long because it draws every part of the page from one view: the list, the cart, the
  // review and recently deleted.
  function render() {
    if (location.pathname === '/pair') return;
    const v = view();
    const [kind, words] = stateWords(v);
    const status = $('status');
    status.textContent = words;
    status.className = 'status ' + kind;
    $('not-paired').hidden = state.paired;
    $('insecure').hidden = window.isSecureContext;

    // The rows are drawn again only when what they show changed: a retry while offline, a
    // message or a ping must not take a row from the finger swiping it.
    if (state.swiping) { lastShown = null; return; }
    const shown = JSON.stringify([v.items, v.sections, v.conflicts, v.deleted.slice(0, 30), state.cartOpen]);
    if (shown === lastShown) return;
    lastShown = shown;

    const fragment = document.createDocumentFragment();
    const bySection = new Map();
    for (const s of v.sections) bySection.set(s, []);
    const cart = [];
    for (const item of v.items) {
      if (item.checked) { cart.push(item); continue; }
      if (!bySection.has(item.section)) bySection.set(item.section, []);
      bySection.get(item.section).push(item);
    }
    for (const [section, items] of bySection) {
      if (items.length === 0) continue;
      const group = el('section', { class: 'group', 'aria-label': section || 'No section' });
      group.append(el('h2', null, section || 'No section'));
      const ul = el('ul', { role: 'list' });
      for (const item of items) ul.append(row(item));
      group.append(ul);
      fragment.append(group);
    }
    if (v.items.length === 0) fragment.append(el('p', { class: 'empty' }, 'The list is empty. Add something above.'));
    else if (cart.length === v.items.length) fragment.append(el('p', { class: 'empty' }, 'Everything is in the cart.'));
    $('list').replaceChildren(fragment);

    $('cart').hidden = cart.length === 0;
    $('cart-count').textContent = String(cart.length);
    $('cart-toggle').setAttribute('aria-expanded', String(state.cartOpen));
    const cartList = $('cart-list');
    cartList.hidden = !state.cartOpen;
    cartList.replaceChildren(...cart.map((item) => row(item)));

    const conflicts = $('conflicts');
    conflicts.hidden = v.conflicts.length === 0;
    $('conflict-count').textContent = String(v.conflicts.length);
    const cl = document.createDocumentFragment();
    for (const c of v.conflicts) {
      const li = el('li', { class: 'conflict' });
      li.append(el('span', { class: 'text' }, c.name + ' \u00b7 ' + c.field + ': kept \u201c' + c.kept + '\u201d, lost \u201c' + c.lost + '\u201d'));
      const restore = el('button', { type: 'button', class: 'small' }, 'Restore');
      restore.setAttribute('aria-label', 'Restore ' + c.lost + ' as ' + c.name + '\u2019s ' + c.field);
      restore.addEventListener('click', () => enqueue({ op: 'conflict', id: c.id, action: 'restore' }));
      const dismiss = el('button', { type: 'button', class: 'small' }, 'Keep');
      dismiss.setAttribute('aria-label', 'Keep the current ' + c.field + ' of ' + c.name);
      dismiss.addEventListener('click', () => enqueue({ op: 'conflict', id: c.id, action: 'dismiss' }));
      li.append(restore, dismiss);
      cl.append(li);
    }
    $('conflict-list').replaceChildren(cl);

    const dl = document.createDocumentFragment();
    for (const d of v.deleted.slice(0, 30)) {
      const li = el('li', { class: 'deleted' });
      li.append(el('span', { class: 'text' }, d.name + (d.amount ? ' (' + d.amount + ')' : '')));
      const restore = el('button', { type: 'button', class: 'small' }, 'Restore');
      restore.setAttribute('aria-label', 'Restore ' + d.name);
      restore.addEventListener('click', () => enqueue({ op: 'restore', id: d.id }));
      li.append(restore);
      dl.append(li);
    }
    if (v.deleted.length === 0) dl.append(el('li', { class: 'empty' }, 'Nothing was deleted recently.'));
    $('deleted-list').replaceChildren(dl);
  }

  // A row: the checkbox, then the name and the amount, which open the item's sheet. The name
  // wraps between words; the amount follows it, or drops below it when the line is full.
  function row(item) {
    const li = el('li', { class: 'item' + (item.checked ? ' checked' : '') });
    li.dataset.id = item.id;
    const box = el('button', { type: 'button', class: 'check', role: 'checkbox', 'aria-checked': String(item.checked) });
    box.setAttribute('aria-label', item.name);
    box.append(el('span', { class: 'mark', 'aria-hidden': 'true' }, item.checked ? '\u2713' : ''));
    box.addEventListener('click', () => enqueue(withSeen({ op: 'check', id: item.id, checked: !item.checked }, item)));
    const open = el('button', { type: 'button', class: 'open', 'aria-haspopup': 'dialog' });
    open.setAttribute('aria-label', item.name + (item.amount ? ', ' + item.amount : '') + (item.optional ? ', optional' : '') + ': edit');
    open.append(el('span', { class: 'name' }, item.name));
    if (item.amount) open.append(el('span', { class: 'amount' }, item.amount));
    if (item.optional) open.append(el('span', { class: 'tag' }, 'optional'));
    open.addEventListener('click', () => openSheet(item));
    li.append(box, open);
    swipeToDelete(li, item);
    return li;
  }

  // ---- The item's sheet (a modal <dialog>: focus stays in it, Escape closes it, a screen
  // reader reads it as a dialog). Save sends one edit of the fields changed, with the stamps
  // of the values the sheet showed (rule 7).
  const NEW_SECTION = '\u0000new';
  function openSheet(item) {
    const v = view();
    state.sheet = Object.assign({}, item);
    $('sheet-title').textContent = item.name;
    $('sheet-name').value = item.name;
    $('sheet-amount').value = item.amount;
    $('sheet-optional').checked = !!item.optional;
    const sections = v.sections.includes(item.section) ? v.sections.slice() : v.sections.concat([item.section]);
    if (!sections.includes('')) sections.push('');
    const select = $('sheet-section');
    select.replaceChildren(...sections.map((s) => el('option', { value: s }, s || 'No section')),
      el('option', { value: NEW_SECTION }, 'New section\u2026'));
    select.value = item.section;
    $('sheet-new-section').value = '';
    $('new-section').hidden = true;
    // Up and down among the items of its section still to get, as the list shows them.
    const all = v.items.filter((i) => i.section === item.section);
    const shown = all.filter((i) => !i.checked);
    const at = shown.findIndex((i) => i.id === item.id);
    state.sheet.up = item.checked || at <= 0 ? undefined : (() => {
      const before = all.indexOf(shown[at - 1]);
      return before > 0 ? all[before - 1].id : null;
    })();
    state.sheet.down = item.checked || at < 0 || at >= shown.length - 1 ? undefined : shown[at + 1].id;
    $('sheet-up').disabled = state.sheet.up === undefined;
    $('sheet-down').disabled = state.sheet.down === undefined;
    $('sheet').showModal();
  }
  function setUpSheet() {
    const sheet = $('sheet');
    const close = () => { if (sheet.open) sheet.close(); state.sheet = null; };
    $('sheet-section').addEventListener('change', () => {
      const isNew = $('sheet-section').value === NEW_SECTION;
      $('new-section').hidden = !isNew;
      if (isNew) $('sheet-new-section').focus();
    });
    $('sheet-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const item = state.sheet;
      if (!item) return close();
      const name = $('sheet-name').value.trim();
      if (!name) { $('sheet-name').focus(); return; }
      const body = { op: 'edit', id: item.id };
      if (name !== item.name) body.name = name;
      const amount = $('sheet-amount').value.trim();
      if (amount !== item.amount) body.amount = amount;
      const chosen = $('sheet-section').value;
      const section = chosen === NEW_SECTION ? $('sheet-new-section').value.trim() : chosen;
      if (section !== item.section && !(chosen === NEW_SECTION && !section)) body.section = section;
      if ($('sheet-optional').checked !== !!item.optional) body.optional = $('sheet-optional').checked;
      close();
      if (Object.keys(body).length > 2) enqueue(withSeen(body, item));
    });
    $('sheet-close').addEventListener('click', close);
    $('sheet-cancel').addEventListener('click', close);
    sheet.addEventListener('close', () => { state.sheet = null; });
    // A tap on the dimmed page around the sheet closes it, as Cancel.
    sheet.addEventListener('click', (e) => { if (e.target === sheet) close(); });
    $('sheet-delete').addEventListener('click', () => { const item = state.sheet; close(); if (item) removeItem(item); });
    const place = (after) => { const item = state.sheet; close(); if (item && after !== undefined) enqueue({ op: 'place', id: item.id, after }); };
    $('sheet-up').addEventListener('click', () => place(state.sheet && state.sheet.up));
    $('sheet-down').addEventListener('click', () => place(state.sheet && state.sheet.down));
  }

  // ---- The cart: folded or open, as this phone last left it.
  function setUpCart() {
    $('cart-toggle').addEventListener('click', () => {
      state.cartOpen = !state.cartOpen;
      remember('cart', state.cartOpen ? 'open' : 'folded');
      render();
    });
  }

  function removeItem(item) {
    enqueue(withSeen({ op: 'delete', id: item.id }, item));
    toast('Deleted ' + item.name + '.', 'Undo', () => enqueue({ op: 'restore', id: item.id }));
  }

  // ---- Swipe a row sideways (a finger or a pen; not a mouse) to delete it, with the same Undo
  // as its \u2715 button, which stays for everyone else. A row follows the finger once it has
  // moved sideways more than up or down; let go past a third of its width (or 120 px) and it
  // is deleted, else it goes back. Vertical moves scroll as usual (touch-action: pan-y).
  function swipeToDelete(li, item) {
    let start = null;
    let dx = 0;
    let swiping = false;
    let swipedAt = 0;
    // The click a finger lifted after a swipe may still send checks nothing.
    li.addEventListener('click', (e) => {
      if (Date.now() - swipedAt < 500) { e.stopPropagation(); e.preventDefault(); }
    }, true);
    li.addEventListener('pointerdown', (e) => {
      if (e.pointerType === 'mouse' || !e.isPrimary) return;
      start = { x: e.clientX, y: e.clientY, id: e.pointerId };
      dx = 0;
      swiping = false;
    });
    li.addEventListener('pointermove', (e) => {
      if (!start || e.pointerId !== start.id) return;
      const x = e.clientX - start.x;
      const y = e.clientY - start.y;
      if (!swiping) {
        if (Math.abs(y) > 12 && Math.abs(y) > Math.abs(x)) { start = null; return; }
        if (Math.abs(x) < 12 || Math.abs(x) < Math.abs(y) * 1.5) return;
        swiping = true;
        state.swiping = true;
        try { li.setPointerCapture(e.pointerId); } catch (err) { /* the pointer is gone */ }
        li.classList.add('swiping');
      }
      dx = x;
      li.style.transform = 'translateX(' + dx + 'px)';
    });
    const end = (e) => {
      if (!start || e.pointerId !== start.id) return;
      start = null;
      if (!swiping) return;
      swiping = false;
      state.swiping = false;
      li.classList.remove('swiping');
      swipedAt = Date.now();
      if (e.type === 'pointerup' && Math.abs(dx) > Math.min(120, li.offsetWidth / 3)) {
        li.classList.add('gone');
        removeItem(item);
      } else {
        li.style.transform = '';
        lastShown = null;
        render();
      }
    };
    li.addEventListener('pointerup', end);
    li.addEventListener('pointercancel', end);
  }

  // The stamps of the values the page showed (as the server sent them): the server records an
  // overwritten value it did not show for review, and deletes only the version shown.
  function withSeen(body, item) {
    if (item.seen) body.seen = item.seen;
    return body;
  }

  // ---- Messages, with an optional action (undo).
  let toastTimer = null;
  function toast(text, actionLabel, action) {
    const box = $('toast');
    const message = el('span', null, text);
    const parts = [message];
    if (actionLabel) {
      const button = el('button', { type: 'button', class: 'small' }, actionLabel);
      button.addEventListener('click', () => { box.hidden = true; action(); });
      parts.push(button);
    }
    box.replaceChildren(...parts);
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, 8000);
  }

  // ---- Adding, with the remembered items as suggestions.
  function setUpAdd() {
    const form = $('add');
    const input = $('add-name');
    const list = $('suggestions');
    let asked = 0;
    input.addEventListener('input', async () => {
      const query = input.value.trim();
      const ticket = ++asked;
      if (!query || state.reach !== 'online') { list.replaceChildren(); list.hidden = true; return; }
      try {
        const response = await fetch('/api/suggestions?q=' + encodeURIComponent(query), { credentials: 'same-origin', cache: 'no-store' });
        if (!response.ok || ticket !== asked) return;
        const found = await response.json();
        const fragment = document.createDocumentFragment();
        for (const s of found) {
          const li = el('li', { role: 'option' });
          const button = el('button', { type: 'button', class: 'suggestion' }, s.name + (s.section ? ' \u00b7 ' + s.section : ''));
          button.addEventListener('click', () => { add(s.name); input.value = ''; list.hidden = true; input.focus(); });
          li.append(button);
          fragment.append(li);
        }
        list.replaceChildren(fragment);
        list.hidden = found.length === 0;
      } catch (e) { list.hidden = true; }
    });
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (!name) return;
      add(name);
      input.value = '';
      list.hidden = true;
    });
  }
  function add(name) { enqueue({ op: 'add', id: uuid(), name }); }

  // Clear the cart: deletes the checked items as the page shows them (one that changed since
  // stays, and the server says so), with an Undo that brings them back.
  function setUpClear() {
    $('clear').addEventListener('click', () => {
      const checked = view().items.filter((i) => i.checked);
      if (checked.length === 0) return;
      enqueue({ op: 'clear_checked', items: checked.map((i) => i.seen ? { id: i.id, seen: i.seen } : { id: i.id }) });
      toast('Cleared ' + checked.length + ' item' + (checked.length === 1 ? '' : 's') + ' from the cart.', 'Undo', () => {
        for (const item of checked) enqueue({ op: 'restore', id: item.id });
      });
    });
  }

  // ---- Pairing: /pair#CODE, from the QR code in the terminal.
  function pairView() {
    $('app').hidden = true;
    $('pair').hidden = false;
    const code = decodeURIComponent(location.hash.slice(1));
    if (code) $('pair-code').value = code;
    const ua = navigator.userAgent;
    $('pair-name').value = /iPhone/.test(ua) ? 'iPhone' : /iPad/.test(ua) ? 'iPad' : /Android/.test(ua) ? 'Android phone' : 'browser';
    $('pair-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      $('pair-message').textContent = 'Pairing\u2026';
      try {
        const response = await fetch('/api/pair', {
          method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ code: $('pair-code').value, name: $('pair-name').value }),
        });
        const answer = await response.json();
        if (response.ok) { history.replaceState(null, '', '/pair'); location.replace('/'); }
        else $('pair-message').textContent = answer.message || 'Pairing failed.';
      } catch (err) { $('pair-message').textContent = 'No connection to the computer.'; }
    });
  }

  async function start() {
    if (location.pathname === '/pair') return pairView();
    db = await openDB();
    try {
      state.queue = (await loadQueue()) || [];
      const snapshot = await loadSnapshot();
      if (snapshot) state.server = snapshot;
    } catch (e) { /* a browser without storage: edits live as long as the page */ }
    setUpAdd();
    setUpClear();
    setUpCart();
    setUpSheet();
    render();
    refresh();
    if ('serviceWorker' in navigator && window.isSecureContext) {
      navigator.serviceWorker.register('/sw.js').catch(() => {});
    }
    // For tests and the curious: the state in words and the edits waiting.
    window.bananas = {
      state: () => stateWords(view())[1],
      waiting: () => state.queue.length,
      why: () => ({ reach: state.reach, sending: state.sending, held: state.held, acked: state.acked.map((a) => a.revision),
        revision: state.server && state.server.revision, server: state.server && state.server.state, events: state.events && state.events.readyState }),
    };
  }
  start();
})();
"""#
}
