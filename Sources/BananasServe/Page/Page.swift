import Hummingbird

/// The page, embedded in the binary: HTML, CSS, JavaScript, a service worker, a manifest and an
/// icon, as text in these files (no build step, nothing fetched from anywhere else).
public enum Page {
    public struct Asset: Sendable {
        public let contentType: String
        public let bytes: [UInt8]

        init(contentType: String, text: String) {
            self.contentType = contentType
            bytes = Array(text.utf8)
        }

        init(contentType: String, base64: String) {
            self.contentType = contentType
            bytes = Self.decoded(base64)
        }

        /// Base64 (RFC 4648, with padding) of text this file holds; anything else is skipped.
        static func decoded(_ base64: String) -> [UInt8] {
            var bytes: [UInt8] = []
            var buffer: UInt32 = 0
            var bits = 0
            for c in base64.utf8 {
                let value: UInt8
                switch c {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = c - UInt8(ascii: "A")
                case UInt8(ascii: "a")...UInt8(ascii: "z"): value = c - UInt8(ascii: "a") + 26
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = c - UInt8(ascii: "0") + 52
                case UInt8(ascii: "+"): value = 62
                case UInt8(ascii: "/"): value = 63
                default: continue
                }
                buffer = buffer << 6 | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                }
            }
            return bytes
        }

        func response() -> Response {
            Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "no-cache"],
                     body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
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
        "/icon-maskable.svg": Asset(contentType: "image/svg+xml", text: maskableIcon),
        "/icon.png": Asset(contentType: "image/png", base64: touchIcon),
    ]

    static let indexHTML = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="theme-color" content="#f5d33b" media="(prefers-color-scheme: light)">
<meta name="theme-color" content="#17150f" media="(prefers-color-scheme: dark)">
<link rel="apple-touch-icon" href="/icon.png">
<title>bananas</title>
<link rel="stylesheet" href="/style.css">
<link rel="manifest" href="/manifest.webmanifest">
<link rel="icon" href="/icon.svg" type="image/svg+xml">
<script src="/app.js" defer></script>
</head>
<body>
<div id="app">
  <header class="bar">
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
  <section id="cart" class="cart" hidden aria-labelledby="cart-title">
    <h2 id="cart-title"><button id="cart-toggle" class="fold" type="button" aria-expanded="true" aria-controls="cart-list">In the cart (<span id="cart-count">0</span>)</button></h2>
    <ul id="cart-list" role="list"></ul>
    <div class="actions"><button id="clear" type="button" class="secondary">Clear the cart</button></div>
  </section>
  <section id="conflicts" class="panel" hidden aria-labelledby="conflicts-title">
    <h2 id="conflicts-title">To review (<span id="conflict-count">0</span>)</h2>
    <p class="hint">These values lost to an edit made at the same time elsewhere.</p>
    <ul id="conflict-list"></ul>
  </section>
  <details class="panel">
    <summary>Recently deleted</summary>
    <ul id="deleted-list"></ul>
  </details>
  <p id="insecure" class="hint" hidden>Plain HTTP: this page keeps your edits while it stays open, but it cannot open with no connection or be installed. Serve it over HTTPS for that (docs/serve.md).</p>
  <div id="toast" class="toast" role="alert" hidden></div>
  <dialog id="sheet" class="sheet" aria-labelledby="sheet-title">
    <form id="sheet-form" novalidate>
      <div class="sheet-head">
        <h2 id="sheet-title"></h2>
        <button id="sheet-close" type="button" class="plain" aria-label="Close" autofocus>&#x2715;</button>
      </div>
      <label for="sheet-name">Name</label>
      <input id="sheet-name" type="text" maxlength="500" enterkeyhint="done">
      <label for="sheet-amount">Amount</label>
      <input id="sheet-amount" type="text" maxlength="100" placeholder="e.g. 1 kg" enterkeyhint="done">
      <label for="sheet-section">Section</label>
      <select id="sheet-section"></select>
      <div id="new-section" class="field" hidden>
        <label for="sheet-new-section">New section</label>
        <input id="sheet-new-section" type="text" maxlength="100" enterkeyhint="done">
      </div>
      <label class="toggle"><input id="sheet-optional" type="checkbox"> Optional</label>
      <div class="sheet-row">
        <button id="sheet-up" type="button" class="secondary">&#x2191; Move up</button>
        <button id="sheet-down" type="button" class="secondary">&#x2193; Move down</button>
      </div>
      <div class="sheet-row">
        <button id="sheet-delete" type="button" class="danger">Delete</button>
        <button id="sheet-cancel" type="button" class="secondary">Cancel</button>
        <button id="sheet-save" type="submit">Save</button>
      </div>
    </form>
  </dialog>
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
const CACHE = 'bananas-v2';
const FILES = ['/', '/app.js', '/style.css', '/manifest.webmanifest', '/icon.svg', '/icon-maskable.svg', '/icon.png'];
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
  "id": "/",
  "start_url": "/",
  "scope": "/",
  "display": "standalone",
  "background_color": "#fffdf5",
  "theme_color": "#f5d33b",
  "icons": [
    { "src": "/icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any" },
    { "src": "/icon-maskable.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "maskable" },
    { "src": "/icon.png", "sizes": "180x180", "type": "image/png", "purpose": "any" }
  ]
}
"""#

    static let icon = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#f5d33b"/><path d="M14 40c10 8 28 8 38-10 1-2 3-2 3 0-1 16-22 28-42 14-2-1-1-5 1-4z" fill="#3b2f00"/></svg>
"""#

    /// The same banana on a square with no rounded corners: the phone cuts its own shape (its
    /// curve stays inside the middle 80 %, the safe zone of a maskable icon).
    static let maskableIcon = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" fill="#f5d33b"/><path d="M14 40c10 8 28 8 38-10 1-2 3-2 3 0-1 16-22 28-42 14-2-1-1-5 1-4z" fill="#3b2f00"/></svg>
"""#

    /// The maskable icon as a 180 px PNG, for iOS's home screen (`apple-touch-icon`), which
    /// takes no SVG. Drawn from `maskableIcon` by Chromium (docs/serve.md, "The page").
    static let touchIcon = "iVBORw0KGgoAAAANSUhEUgAAALQAAAC0CAIAAACyr5FlAAAJHUlEQVR4nOzdeXCU9R3H8V82x242931swI2aNRApARGDBlsstQVKegQFZhz/KdSOo7Z14oydsXSkpdVRp1opUizKOFChabHYWI4CcjW0INQkAtmEHJt7s5s72SvZxJ8ywyDku9lkn3P38xqGAfJkmIF3nuf3/H55nl/ESM0DDGAyGgZAQBxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAQhxAimCgZpZ2x6ET1pZ2p3G2fv3qnNgYIf9Dw0ZqHmCgTu+WW94/0Hb9t7Oyone+spAJB5cVtXp7b/ONZXCtnc5/n+pmwsFlRZUaLMPlFe23/nlj6wgTDuJQpW3vNU365739HiYcxKE+H5+11ZgHJ/1QQlwkEw7iUBmX2/unPU3UR9PTtEw4iENldn/Q2ts/Sn00PRlxhKrObtffD3b4OCAjFXGEqt//+arXO+HjgHTEEZqOnbF9ennAxwH66PCkhCgmHMShDj19njd3Nfg+psAUzwSFONThd9vMDpfX9zHz7kIcoefAkc7qK4NTHjY3L44JCnEoXYfVueP9pikP02hY/h2II8RsfsM8Ojox5WG8jKgogZdREYei/eHdhsYWv9bSlixMZkJDHMp16py94liXnwcvuz+NCQ1xKFR7l/OV7fV+Hmy6PTY9Rcjpr2sQhxLx1bUXX691e8b9PH5ZUSoTAeJQnPHxic1v1Da3Ofz/lKX3IY7QsHVX4yfV/f4fv6AgQYxrCkMcSrP3w7aK4/4OQq8pXZHNxIE4FOTU/+zv/NUyrU8xZOrunZ/ExIE4lKLyQs9v/2hm07RudU5YWBgTB+JQBH7O2LLVPDH1ROhXJMRFLC9OZ6JBHPI7fNL62ttX2fQ9ujonPFys0wZDHLL759HON3c1sunLStM9stLAxIQ45LRzb/O+yZ5N8sdPHstlIkMc8hgbG+eDjP980stmpHBuwpJ7hF9puwnikMGIY+yFVy9fqhtiM6IJYz/fcCcTH+KQWofVuem1Ky0dTjZTa1YZstJ1THzSxdE34Nm5z3LmfI9GwzasNa58KJOFnrMXel9+q27K7wb1gS/AblhnZJKQ6P0cVpvrpy9W3/ioVvG9KWVP5Ol14Sxk3PQ6jRmI0Ydv31KYkSbFaYNJduZ4a3fTTQ/x8VNIXdPwpmfy+ZcCC3b8rPny9vqLNdNYTpvUL540SVYGk+blLb39nsoLkwzLu+3upzZV7ff5fF8QOHbGtuG5/wdexpoV2YsLRb9DuZEUZ47qWl/PaW3f03TktPXZjXmm3GA7hfT0eV7aZq7y46mCKc3Lj//ReiOTlhRxdNvcvg9obHE89cuq5cVpG9cbhX2gTy5ut3f/oQ4+weVwznzsed1thujNz84J14g4Uz4pKeIY8/q1oHT0jO30+Z7Hvj/rew9n6bQqHqgeONK55x+t/YOjTAjxsRG/Lpsbo5dh0kGKv9L/N4q43eP8drf8o/a1JTkl38zUqi2Rgx937f6g1dYr5LuXtjw3N1PCQeiNpLiV5Zfe9U+fZ9OUGB+59ruGUpHXlgTB5y0OHu/iFxGhzhbXbfpZfvGiFCYTieY5Xt1Rf2RGb0GM00csX5q2YlmmMUfPlIfP33x4tOujY12BzGtRflM2R+Lbk5tIFAc/eTzzq6pAzrd5xpiHH8z41tJ0fbQirjXHK20894ufBXqDOqlorYaPM742J4HJSro3GA+NjPGZ43Of9rHAFC1IerAotagwWdhXOfvpUt3g6XM9vAzBryDX8RHoS88X3GmU/8Ze6tdbHz5p3fGXZh4KC9jCeYlfX5xSWJAowSoUb6LyYi9vokfQweatMtK0fAQ6O1sR11AZ3n3Ov+a27mo4da6HCYQPXe82xefnxRXwHwK93aaz29XYMnK5fuhK/dBndQLMYvljQUHCC0/nx8UqZalcthfj8/XJ19+52jcg/MmZf/Flpen47V92ho7/OjUpis+afPlDw3++9Z++0+qy97m77R5bn7u1w2lpc1g6HPymmknrkVWGjZLPgfom564JwyNj/BJz6KSVhbaoSM3zT5r4MjVTGPm31ODn7Z37mqtrJTp1Kw1flC77cZ4yb9SVst/K+ao+Pjfq54tKgoNWq3m8dHbpd7I1ki+a+ElBm/FMTEwcr7S/97eWTpuLBbv5c+LLnsjLSJVnXtxPStypiS9c7a1oE/umUS4pSVGP/3AWn/NliqfQbby83okT/7WX/6u90RI8F5rkxMh1JTmrHsqMjFDHBllK3+PtQk1/eUXbxUsDTM0S4yIfLTGULM/iNyZMPdSxASA/f+w/3HHirN0zKvX0Q4DSU7SlK7NXfCNDjd+hoqbdIR1O74mzNj4vUtswzBSPDzl/8O3sJfcki/eKBLGpcuvQ5rYvNlMVdfVrxvgNavGilDWrDHfMjmEqp+J9ZfmgtbZhiA9K+Lo5/8W4rBccvshetDB56X2pi+cnqWtg4UOQbDrMrzhVlwf4TFp17UAgTxpOF78vvfuu+GVFqfcvUtzkd+CCcEfqgaHRGvPgJfMg/7nBMuL1TvN9OT6lJEeZjLGm3Ni83BjT7XF8QZgFryDfrtzt9pobh/n6u63X3WXjS69uq93Nf+vnp8/KjM7Jjr7NoDdk6gxZ0bk5elm+C1wuIbqXPY/G5Rl3e8Zdbi9fnf/iXcFhTBel0UaF8xElHzRcW99noS1EX8Gg1Yar7rkH6QXJuBrEgDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiAhDiA9DkAAAD//5sedekAAAAGSURBVAMAfBbo1e8+9DcAAAAASUVORK5CYII="
}
