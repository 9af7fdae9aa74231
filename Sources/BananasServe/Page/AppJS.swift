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
    online: navigator.onLine !== false,
    paired: true,
    sending: false,
    retryTimer: null,
    events: null,
    editingAmount: null,
    swiping: false,      // a row is following a finger (swipe to delete)
    amountDraft: null,
  };

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

  async function pump() {
    if (state.sending || !state.online || !state.paired || state.queue.length === 0) return;
    state.sending = true;
    render();
    try {
      while (state.queue.length > 0 && state.online) {
        const entry = state.queue[0];
        let response;
        try {
          response = await fetch('/api/edits', {
            method: 'POST', credentials: 'same-origin', cache: 'no-store',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(Object.assign({ key: entry.key }, entry.body)),
          });
        } catch (e) { goOffline(); break; }
        if (response.status === 401) { notPaired(); break; }
        if (response.status === 429 || response.status >= 500) {
          const wait = Number(response.headers.get('Retry-After') || '2') * 1000;
          await new Promise((r) => setTimeout(r, wait));
          continue;
        }
        let answer = {};
        try { answer = await response.json(); } catch (e) { /* an answer without a body */ }
        state.queue.shift();
        await tx('queue', 'readwrite', (s) => s.delete(entry.seq)).catch(() => {});
        if (answer.ok) {
          // Shown on top of the server's list until a list as new as the answer comes (unless
          // it already came, the event stream being faster than the answer).
          if (!state.server || (answer.revision || 0) > state.server.revision) {
            state.acked.push({ body: entry.body, revision: answer.revision || 0 });
          }
        } else if (answer.message) {
          toast(answer.message);
        }
        render();
      }
    } finally {
      state.sending = false;
      render();
    }
  }

  // ---- Connection.
  function goOffline() {
    if (state.online) { state.online = false; render(); }
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
      if (response.status === 401) return notPaired();
      if (!response.ok) throw new Error('status ' + response.status);
      setServer(await response.json());
      state.online = true;
      listen();
      render();
      pump();
    } catch (e) {
      state.online = false;
      render();
      scheduleRetry();
    }
  }
  function listen() {
    if (state.events || !('EventSource' in window)) return;
    const events = new EventSource('/api/events');
    state.events = events;
    events.addEventListener('list', (event) => {
      try { setServer(JSON.parse(event.data)); } catch (e) { return; }
      if (!state.online) { state.online = true; pump(); }
      render();
    });
    events.onerror = () => { if (events.readyState === EventSource.CLOSED || !navigator.onLine) goOffline(); else refreshSoon(); };
  }
  let refreshing = null;
  function refreshSoon() {
    if (refreshing) return;
    refreshing = setTimeout(() => {
      refreshing = null;
      fetch('/api/list', { credentials: 'same-origin', cache: 'no-store' }).then((r) => {
        if (r.status === 401) notPaired();
      }).catch(() => goOffline());
    }, 1500);
  }
  function setServer(snapshot) {
    state.server = snapshot;
    state.acked = state.acked.filter((a) => a.revision > snapshot.revision);
    saveSnapshot(snapshot);
  }
  function notPaired() {
    state.paired = false;
    if (state.events) { state.events.close(); state.events = null; }
    render();
  }
  window.addEventListener('online', () => refresh());
  window.addEventListener('offline', () => goOffline());

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

  // ---- The state, in words.
  function stateWords(v) {
    if (!state.paired) return ['paused', 'paused: this device is not paired'];
    const waiting = state.queue.length;
    if (!state.online) return ['offline', waiting > 0 ? 'offline \u2014 ' + waiting + ' edit' + (waiting === 1 ? '' : 's') + ' waiting' : 'offline'];
    const s = v.state || {};
    if (s.state === 'paused') return ['paused', 'paused: ' + (s.paused || 'the list file cannot be written')];
    if (s.state === 'conflict') return ['conflict', 'conflict'];
    // An answered edit is not `synced` until a list from the server shows it in the file.
    if (waiting > 0 || state.sending || state.acked.length > 0 || s.state === 'pending' || !state.server) return ['saving', 'saving'];
    return ['synced', 'synced'];
  }

  // ---- Rendering (the whole list each time: fast enough for a few thousand rows).
  let lastShown = null;
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
    // message or a ping must not take the focus from the amount being typed, nor a row from
    // the finger swiping it.
    if (state.swiping) { lastShown = null; return; }
    const shown = JSON.stringify([v.items, v.sections, v.conflicts, v.deleted.slice(0, 30), state.editingAmount]);
    if (shown === lastShown) return;
    lastShown = shown;

    const main = $('list');
    const fragment = document.createDocumentFragment();
    const bySection = new Map();
    for (const s of v.sections) bySection.set(s, []);
    for (const item of v.items) {
      if (!bySection.has(item.section)) bySection.set(item.section, []);
      bySection.get(item.section).push(item);
    }
    let checkedCount = 0;
    for (const [section, items] of bySection) {
      if (items.length === 0) continue;
      const group = el('section', { class: 'group', 'aria-label': section || 'No section' });
      group.append(el('h2', null, section || 'No section'));
      const ul = el('ul', { role: 'list' });
      items.forEach((item, index) => {
        if (item.checked) checkedCount++;
        ul.append(row(item, v.sections, items, index));
      });
      group.append(ul);
      fragment.append(group);
    }
    if (v.items.length === 0) fragment.append(el('p', { class: 'empty' }, 'The list is empty. Add something above.'));
    main.replaceChildren(fragment);
    $('clear').disabled = checkedCount === 0;
    $('clear').textContent = checkedCount > 0 ? 'Clear checked (' + checkedCount + ')' : 'Clear checked';

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

  function row(item, sections, siblings, index) {
    const li = el('li', { class: 'item' + (item.checked ? ' checked' : '') });
    li.dataset.id = item.id;
    const box = el('button', { type: 'button', class: 'check', role: 'checkbox', 'aria-checked': String(item.checked) });
    box.setAttribute('aria-label', item.name);
    box.append(el('span', { class: 'mark', 'aria-hidden': 'true' }, item.checked ? '\u2713' : ''));
    box.append(el('span', { class: 'name' }, item.name));
    box.addEventListener('click', () => enqueue(withSeen({ op: 'check', id: item.id, checked: !item.checked }, item)));
    li.append(box);

    if (state.editingAmount === item.id) {
      // The list is drawn again at every change from anywhere: what is typed is kept aside.
      const input = el('input', { type: 'text', class: 'amount-input', value: state.amountDraft !== null ? state.amountDraft : item.amount, maxLength: 100 });
      input.setAttribute('aria-label', 'Amount of ' + item.name);
      input.addEventListener('input', () => { state.amountDraft = input.value; });
      const done = () => {
        if (!input.isConnected || state.editingAmount !== item.id) return;
        state.editingAmount = null;
        state.amountDraft = null;
        if (input.value !== item.amount) enqueue(withSeen({ op: 'amount', id: item.id, amount: input.value }, item));
        else render();
      };
      input.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') done();
        if (e.key === 'Escape') { state.editingAmount = null; state.amountDraft = null; render(); }
      });
      input.addEventListener('blur', done);
      li.append(input);
      setTimeout(() => { if (input.isConnected) { input.focus(); input.setSelectionRange(input.value.length, input.value.length); } }, 0);
    } else {
      const amount = el('button', { type: 'button', class: 'amount' }, item.amount || '+ amount');
      amount.setAttribute('aria-label', (item.amount ? 'Amount ' + item.amount : 'Add an amount') + ', ' + item.name);
      amount.addEventListener('click', () => { state.editingAmount = item.id; state.amountDraft = null; render(); });
      li.append(amount);
    }

    // One menu moves the item: up or down within its section (the editor's J/K), or to
    // another section. It shows the item's section.
    const move = el('select', { class: 'move' });
    move.setAttribute('aria-label', 'Move ' + item.name + ', in ' + (item.section || 'no section'));
    const options = sections.includes(item.section) ? sections : sections.concat([item.section]);
    const places = el('optgroup', { label: 'Within ' + (item.section || 'no section') });
    if (index > 0) places.append(el('option', { value: '', 'data-place': 'up' }, '\u2191 Move up'));
    if (index < siblings.length - 1) places.append(el('option', { value: '', 'data-place': 'down' }, '\u2193 Move down'));
    const others = el('optgroup', { label: 'Section' });
    for (const s of options) {
      const option = el('option', { value: s }, s || 'No section');
      if (s === item.section) option.selected = true;
      others.append(option);
    }
    if (places.children.length > 0) move.append(places);
    move.append(others);
    move.addEventListener('change', () => {
      const place = move.selectedOptions[0] && move.selectedOptions[0].dataset.place;
      if (place === 'up') enqueue({ op: 'place', id: item.id, after: index >= 2 ? siblings[index - 2].id : null });
      else if (place === 'down') enqueue({ op: 'place', id: item.id, after: siblings[index + 1].id });
      else enqueue(withSeen({ op: 'move', id: item.id, section: move.value }, item));
    });
    li.append(move);

    const remove = el('button', { type: 'button', class: 'delete' }, '\u2715');
    remove.setAttribute('aria-label', 'Delete ' + item.name);
    remove.addEventListener('click', () => removeItem(item));
    li.append(remove);
    swipeToDelete(li, item);
    return li;
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
      if (!query || !state.online) { list.replaceChildren(); list.hidden = true; return; }
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

  function setUpClear() {
    $('clear').addEventListener('click', () => {
      const checked = view().items.filter((i) => i.checked);
      if (checked.length === 0) return;
      enqueue({ op: 'clear_checked', items: checked.map((i) => i.seen ? { id: i.id, seen: i.seen } : { id: i.id }) });
      toast('Cleared ' + checked.length + ' checked item' + (checked.length === 1 ? '' : 's') + '. Recently deleted brings them back.');
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
    render();
    refresh();
    if ('serviceWorker' in navigator && window.isSecureContext) {
      navigator.serviceWorker.register('/sw.js').catch(() => {});
    }
    // For tests and the curious: the state in words and the edits waiting.
    window.bananas = { state: () => stateWords(view())[1], waiting: () => state.queue.length };
  }
  start();
})();
"""#
}
