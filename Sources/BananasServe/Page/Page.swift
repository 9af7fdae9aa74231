import Hummingbird

/// The page, embedded in the binary: HTML, CSS, JavaScript, a service worker, a manifest and an
/// icon, as text in these files (no build step, nothing fetched from anywhere else).
public enum Page {
    public struct Asset: Sendable {
        public let contentType: String
        public let text: String

        func response() -> Response {
            Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "no-cache"],
                     body: .init(byteBuffer: ByteBuffer(string: text)))
        }
    }

    public static let index = Asset(contentType: "text/html; charset=utf-8", text: indexHTML)

    /// The static files by path; none holds list data, so none needs a device token.
    public static let assets: [String: Asset] = [
        "/app.js": Asset(contentType: "text/javascript; charset=utf-8", text: appJS),
        "/style.css": Asset(contentType: "text/css; charset=utf-8", text: styleCSS),
        "/sw.js": Asset(contentType: "text/javascript; charset=utf-8", text: serviceWorkerJS),
        "/manifest.webmanifest": Asset(contentType: "application/manifest+json", text: manifest),
        "/icon.svg": Asset(contentType: "image/svg+xml", text: icon),
    ]

    static let indexHTML = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="theme-color" content="#f5d33b">
<title>bananas</title>
<link rel="stylesheet" href="/style.css">
<link rel="manifest" href="/manifest.webmanifest">
<link rel="icon" href="/icon.svg" type="image/svg+xml">
<script src="/app.js" defer></script>
</head>
<body>
<div id="app">
  <header>
    <h1>bananas</h1>
    <p id="status" class="status saving" role="status" aria-live="polite">saving</p>
  </header>
  <p id="not-paired" class="banner" hidden>This device is not paired, or its pairing was ended. On the computer, run <code>bananas pair</code> and scan the code.</p>
  <form id="add" class="add" autocomplete="off">
    <label for="add-name" class="visually-hidden">Add an item</label>
    <input id="add-name" type="text" placeholder="Add an item" maxlength="500" enterkeyhint="done" aria-describedby="suggestions-hint">
    <button type="submit">Add</button>
    <span id="suggestions-hint" class="visually-hidden">Suggestions from what you bought before appear below.</span>
    <ul id="suggestions" class="suggestions" role="listbox" aria-label="Suggestions" hidden></ul>
  </form>
  <main id="list" aria-label="Shopping list"></main>
  <section id="conflicts" class="panel" hidden aria-labelledby="conflicts-title">
    <h2 id="conflicts-title">To review (<span id="conflict-count">0</span>)</h2>
    <p class="hint">These values lost to an edit made at the same time elsewhere.</p>
    <ul id="conflict-list"></ul>
  </section>
  <div class="actions"><button id="clear" type="button" disabled>Clear checked</button></div>
  <details class="panel">
    <summary>Recently deleted</summary>
    <ul id="deleted-list"></ul>
  </details>
  <p id="insecure" class="hint" hidden>Plain HTTP: this page keeps your edits while it stays open, but it cannot open with no connection or be installed. Serve it over HTTPS for that (docs/serve.md).</p>
  <div id="toast" class="toast" role="alert" hidden></div>
</div>
<div id="pair" hidden>
  <h1>Pair with bananas</h1>
  <form id="pair-form">
    <label for="pair-code">Code</label>
    <input id="pair-code" type="text" autocomplete="one-time-code" maxlength="64" required>
    <label for="pair-name">Name of this device</label>
    <input id="pair-name" type="text" maxlength="40">
    <button id="pair-button" type="submit">Pair</button>
  </form>
  <p id="pair-message" role="status" aria-live="polite"></p>
</div>
</body>
</html>
"""#

    /// What a browser that is not paired gets at `/` (no script, nothing of the list).
    static let notPaired = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>bananas: not paired</title><link rel="stylesheet" href="/style.css"></head>
<body><div id="app"><h1>bananas</h1>
<p class="banner">This device is not paired with this list, or its pairing was ended.</p>
<p>On the computer that serves the list, run <code>bananas pair</code> and scan the QR code it shows.</p>
</div></body></html>
"""#

    static let serviceWorkerJS = #"""
'use strict';
// Keeps the page's own files so it opens with no connection (HTTPS or localhost only).
// The list and the edits are the page's business (IndexedDB); the API is never cached here.
const CACHE = 'bananas-v1';
const FILES = ['/', '/app.js', '/style.css', '/manifest.webmanifest', '/icon.svg'];
self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});
self.addEventListener('activate', (event) => {
  event.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin || !FILES.includes(url.pathname)) return;
  event.respondWith(fetch(event.request).then((response) => {
    if (response.ok) { const copy = response.clone(); caches.open(CACHE).then((cache) => cache.put(event.request, copy)); }
    return response;
  }).catch(() => caches.match(event.request)));
});
"""#

    static let manifest = #"""
{
  "name": "bananas",
  "short_name": "bananas",
  "description": "Your shopping list, from the computer that keeps it.",
  "start_url": "/",
  "scope": "/",
  "display": "standalone",
  "background_color": "#fffdf5",
  "theme_color": "#f5d33b",
  "icons": [{ "src": "/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any" }]
}
"""#

    static let icon = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#f5d33b"/><path d="M14 40c10 8 28 8 38-10 1-2 3-2 3 0-1 16-22 28-42 14-2-1-1-5 1-4z" fill="#3b2f00"/></svg>
"""#
}
