extension Page {
    /// Light and dark by the phone's setting; text contrast of at least 4.5:1 (WCAG AA) in
    /// both; every control at least 44 px high; nothing wider than 320 px needs scrolling.
    static let styleCSS = #"""
:root {
  --bg: #fffdf5; --fg: #1c1a14; --muted: #5c5646; --line: #e4dfcf; --accent: #7a5c00;
  --button: #f5d33b; --button-fg: #1c1a14; --checked: #5c5646; --danger: #9b1c1c; --panel: #f6f1e1;
  --ok: #2e7d32; --wait: #b26a00; --shade: rgb(28 26 20 / 0.45);
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #17150f; --fg: #f3efe3; --muted: #b9b29d; --line: #37321f; --accent: #f5d33b;
    --button: #f5d33b; --button-fg: #17150f; --checked: #a9a28c; --danger: #ff8a80; --panel: #221f15;
    --ok: #81c784; --wait: #ffb74d; --shade: rgb(0 0 0 / 0.6); }
}
* { box-sizing: border-box; }
/* What the keyboard's focus (or a link) scrolls to is not left under the bar or the toast. */
html { -webkit-text-size-adjust: 100%; scroll-padding: 4.5rem 0 5rem; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 17px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
#app, #pair { max-width: 40rem; margin: 0 auto; padding: 0 0.75rem 6rem; }
#pair { padding-top: 0.5rem; }
h1 { font-size: 1.3rem; margin: 0; }
h2 { font-size: 1rem; margin: 1.25rem 0 0.25rem; color: var(--muted); letter-spacing: 0.02em; }
/* The state stays in sight: the bar sticks to the top while the list scrolls. */
.bar { position: sticky; top: 0; z-index: 2; background: var(--bg); display: flex; flex-wrap: wrap; align-items: center;
  justify-content: space-between; gap: 0.25rem 0.75rem; padding: 0.5rem 0; border-bottom: 1px solid var(--line); margin-bottom: 0.5rem; }
.status { margin: 0; padding: 0.2rem 0.7rem; border-radius: 1rem; font-weight: 600; font-size: 0.95rem; background: var(--panel);
  border: 2px solid var(--wait); overflow-wrap: break-word; min-width: 0; max-width: 100%; }
.status::before { content: ""; display: inline-block; width: 0.6em; height: 0.6em; border-radius: 50%; margin-right: 0.4em; background: var(--wait); }
.status.synced { border-color: var(--ok); }
.status.synced::before { background: var(--ok); }
.status.offline, .status.unreachable, .status.unpaired, .status.paused, .status.held, .status.conflict { border-color: var(--danger); color: var(--danger); }
.status.offline::before, .status.unreachable::before, .status.unpaired::before, .status.paused::before, .status.held::before,
.status.conflict::before { background: var(--danger); }
.banner { padding: 0.75rem; border: 2px solid var(--danger); border-radius: 0.5rem; }
.add { display: flex; flex-wrap: wrap; gap: 0.5rem; position: relative; }
.add input { flex: 1 1 10rem; min-width: 0; }
input, select { font: inherit; color: var(--fg); background: var(--bg); border: 2px solid var(--line); border-radius: 0.5rem; min-height: 44px; padding: 0 0.6rem; }
input:focus, select:focus, button:focus-visible { outline: 3px solid var(--accent); outline-offset: 1px; }
button { font: inherit; min-height: 44px; min-width: 44px; border-radius: 0.5rem; border: 0; background: var(--button); color: var(--button-fg); padding: 0 1rem; cursor: pointer; }
button:disabled { opacity: 0.5; cursor: default; }
button.small { padding: 0 0.75rem; }
button.secondary { background: var(--panel); color: var(--fg); border: 2px solid var(--line); }
button.danger { background: none; color: var(--danger); border: 2px solid var(--danger); }
button.plain { background: none; color: var(--fg); padding: 0; font-size: 1.2rem; }
.suggestions { list-style: none; margin: 0; padding: 0; width: 100%; }
.suggestion { width: 100%; text-align: left; background: var(--panel); color: var(--fg); margin-top: 2px; }
ul { list-style: none; margin: 0; padding: 0; }
/* A row: a big checkbox, then the name and the amount. Names wrap between words only (a word
   is broken only when it alone is wider than the row); the amount follows the name, or drops
   below it when the line is full; neither is ever cut short. */
.item { display: flex; align-items: stretch; border-bottom: 1px solid var(--line); min-height: 56px;
  touch-action: pan-y; background: var(--bg); transition: transform 0.15s ease-out, opacity 0.15s;
  content-visibility: auto; contain-intrinsic-size: auto 56px; }
.item.swiping { transition: none; background: var(--panel); }
.item.gone { opacity: 0; }
.check { flex: none; width: 52px; min-height: 56px; padding: 0; display: flex; align-items: center; justify-content: center; background: none; color: var(--fg); border-radius: 0; }
.mark { width: 30px; height: 30px; border: 2px solid var(--muted); border-radius: 8px; display: inline-flex; align-items: center; justify-content: center; font-weight: 700; }
.open { flex: 1 1 auto; min-width: 0; display: flex; flex-wrap: wrap; align-items: baseline; align-content: center; gap: 0.1rem 0.75rem;
  padding: 0.55rem 0.25rem 0.55rem 0.1rem; text-align: left; background: none; color: var(--fg); border-radius: 0; font-size: 1.15em; line-height: 1.3; }
.name { flex: 0 1 auto; min-width: 0; max-width: 100%; overflow-wrap: break-word; white-space: pre-wrap; unicode-bidi: isolate; max-height: 6.5em; overflow: hidden; }
.amount { flex: 0 1 auto; min-width: 0; max-width: 100%; color: var(--accent); font-weight: 600; overflow-wrap: break-word; white-space: pre-wrap; unicode-bidi: isolate; }
.tag { font-size: 0.8rem; color: var(--muted); border: 1px solid var(--muted); border-radius: 0.75rem; padding: 0 0.45rem; }
/* A tap shows on the row itself, in the page's colours (not the browser's blue flash). */
.check, .open { -webkit-tap-highlight-color: transparent; }
.check:active, .open:active { background: var(--panel); }
.checked .name { text-decoration: line-through; color: var(--checked); }
.checked .amount { color: var(--checked); }
.checked .mark { background: var(--muted); color: var(--bg); }
.text { unicode-bidi: isolate; overflow-wrap: break-word; white-space: pre-wrap; min-width: 0; max-height: 8.5em; overflow: hidden; }
.cart { margin-top: 1.5rem; }
.cart h2 { margin: 0; }
.fold { width: 100%; text-align: left; background: none; color: var(--muted); padding: 0; font-weight: 700; font-size: 1rem; border-radius: 0; }
.fold::before { content: "\25BE"; display: inline-block; width: 1.2em; }
.fold[aria-expanded="false"]::before { content: "\25B8"; }
.actions { margin: 0.75rem 0; }
.panel { margin: 1rem 0; padding: 0.5rem 0.75rem; background: var(--panel); border-radius: 0.5rem; }
.panel summary { min-height: 44px; display: flex; align-items: center; cursor: pointer; font-weight: 600; }
.panel li { display: flex; align-items: center; gap: 0.5rem; justify-content: space-between; min-height: 48px; }
.hint, .empty { color: var(--muted); }
.toast { position: fixed; z-index: 3; left: 0.75rem; right: 0.75rem; bottom: 0.75rem; max-width: 38rem; margin: 0 auto; background: var(--fg); color: var(--bg);
  padding: 0.5rem 0.75rem; border-radius: 0.5rem; display: flex; gap: 0.75rem; align-items: center; justify-content: space-between; overflow-wrap: break-word; }
.toast[hidden], [hidden] { display: none !important; }
/* The item's sheet: a modal dialog that rises from the bottom, where the thumb is. */
.sheet { margin: auto auto 0; width: 100%; max-width: 40rem; max-height: 92vh; border: 0; border-radius: 1rem 1rem 0 0;
  padding: 0.75rem 1rem 1rem; background: var(--bg); color: var(--fg); }
.sheet::backdrop { background: var(--shade); }
.sheet form { display: flex; flex-direction: column; gap: 0.35rem; }
.sheet label { font-weight: 600; margin-top: 0.35rem; }
.sheet input[type=text], .sheet select, .field { width: 100%; }
.field { display: flex; flex-direction: column; gap: 0.35rem; }
.sheet-head { display: flex; align-items: flex-start; justify-content: space-between; gap: 0.5rem; }
.sheet-head h2 { margin: 0.5rem 0 0; color: var(--fg); font-size: 1.2rem; overflow-wrap: break-word; min-width: 0; unicode-bidi: isolate; }
.toggle { display: flex; align-items: center; gap: 0.6rem; min-height: 44px; }
.toggle input { width: 24px; height: 24px; min-height: 0; margin: 0; accent-color: var(--accent); }
.sheet-row { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-top: 0.5rem; }
.sheet-row button { flex: 1 1 0; padding: 0 0.5rem; }
#pair form { display: flex; flex-direction: column; gap: 0.5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
code { font-size: 0.95em; }
"""#
}
