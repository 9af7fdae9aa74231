extension Page {
    /// Light and dark by the phone's setting; text contrast of at least 4.5:1 (WCAG AA) in
    /// both; every control at least 44 px high; nothing wider than 320 px needs scrolling.
    static let styleCSS = #"""
:root {
  --bg: #fffdf5; --fg: #1c1a14; --muted: #5c5646; --line: #e4dfcf; --accent: #7a5c00;
  --button: #f5d33b; --button-fg: #1c1a14; --checked: #5c5646; --danger: #9b1c1c; --panel: #f6f1e1;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #17150f; --fg: #f3efe3; --muted: #b9b29d; --line: #37321f; --accent: #f5d33b;
    --button: #f5d33b; --button-fg: #17150f; --checked: #a9a28c; --danger: #ff8a80; --panel: #221f15; }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 17px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
#app, #pair { max-width: 40rem; margin: 0 auto; padding: 0.5rem 0.75rem 6rem; }
header { display: flex; align-items: baseline; justify-content: space-between; gap: 0.5rem; }
h1 { font-size: 1.4rem; margin: 0.5rem 0; }
h2 { font-size: 1rem; margin: 1rem 0 0.25rem; color: var(--muted); letter-spacing: 0.02em; }
.status { margin: 0; padding: 0.2rem 0.6rem; border-radius: 1rem; font-weight: 600; font-size: 0.95rem; border: 2px solid var(--line); overflow-wrap: anywhere; }
.status.synced { border-color: #2e7d32; }
.status.offline, .status.paused, .status.conflict { border-color: var(--danger); color: var(--danger); }
.banner { padding: 0.75rem; border: 2px solid var(--danger); border-radius: 0.5rem; }
.add { display: flex; flex-wrap: wrap; gap: 0.5rem; position: relative; }
.add input { flex: 1 1 10rem; min-width: 0; }
input, select { font: inherit; color: var(--fg); background: var(--bg); border: 2px solid var(--line); border-radius: 0.5rem; min-height: 44px; padding: 0 0.6rem; }
input:focus, select:focus, button:focus-visible { outline: 3px solid var(--accent); outline-offset: 1px; }
button { font: inherit; min-height: 44px; min-width: 44px; border-radius: 0.5rem; border: 0; background: var(--button); color: var(--button-fg); padding: 0 1rem; cursor: pointer; }
button:disabled { opacity: 0.6; cursor: default; }
button.small { min-height: 44px; padding: 0 0.75rem; }
.suggestions { list-style: none; margin: 0; padding: 0; width: 100%; }
.suggestion { width: 100%; text-align: left; background: var(--panel); color: var(--fg); margin-top: 2px; }
ul { list-style: none; margin: 0; padding: 0; }
.item { display: flex; align-items: center; gap: 0.25rem; border-bottom: 1px solid var(--line); min-height: 48px;
  touch-action: pan-y; background: var(--bg); transition: transform 0.15s ease-out, opacity 0.15s;
  content-visibility: auto; contain-intrinsic-size: auto 48px; }
.item.swiping { transition: none; background: var(--panel); }
.item.gone { opacity: 0; }
.check { flex: 1 1 auto; display: flex; align-items: center; gap: 0.6rem; background: none; color: var(--fg); text-align: left; padding: 0 0.25rem; min-width: 0; }
.mark { flex: none; width: 28px; height: 28px; border: 2px solid var(--muted); border-radius: 6px; display: inline-flex; align-items: center; justify-content: center; font-weight: 700; }
.name, .text { unicode-bidi: isolate; overflow-wrap: anywhere; white-space: pre-wrap; min-width: 0; max-height: 8.5em; overflow: hidden; }
.checked .name { text-decoration: line-through; color: var(--checked); }
.checked .mark { background: var(--muted); color: var(--bg); }
.amount { background: none; color: var(--accent); padding: 0 0.4rem; max-width: 7rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; unicode-bidi: isolate; }
.amount-input { width: 6rem; }
.move { max-width: 6.5rem; padding: 0 0.2rem; }
.delete { background: none; color: var(--danger); padding: 0; font-size: 1.2rem; }
.actions { margin: 1rem 0; }
.panel { margin: 1rem 0; padding: 0.5rem 0.75rem; background: var(--panel); border-radius: 0.5rem; }
.panel summary { min-height: 44px; display: flex; align-items: center; cursor: pointer; font-weight: 600; }
.panel li { display: flex; align-items: center; gap: 0.5rem; justify-content: space-between; min-height: 48px; }
.hint, .empty { color: var(--muted); }
.toast { position: fixed; left: 0.75rem; right: 0.75rem; bottom: 0.75rem; max-width: 38rem; margin: 0 auto; background: var(--fg); color: var(--bg);
  padding: 0.5rem 0.75rem; border-radius: 0.5rem; display: flex; gap: 0.75rem; align-items: center; justify-content: space-between; overflow-wrap: anywhere; }
.toast[hidden], [hidden] { display: none !important; }
#pair form { display: flex; flex-direction: column; gap: 0.5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
code { font-size: 0.95em; }
"""#
}
