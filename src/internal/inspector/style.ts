/**
 * The inspector page's style sheet: a constant, so that its hash in the page's
 * Content-Security-Policy is one too (page.ts). Light and dark by the system's preference, text
 * contrast at WCAG AA or better in both (axe-core checks the light one in the browser test), a
 * visible focus ring, and no `style` attribute anywhere: the policy allows this sheet only.
 *
 * @module
 */

/** The page's CSS. */
export const STYLE = `
:root {
  color-scheme: light dark;
  --bg: #f4f6f8; --panel: #ffffff; --text: #1b1f24; --muted: #4a525b; --border: #c9d1d9;
  --accent: #0b57d0; --on-accent: #ffffff; --error: #a4161a; --code: #eef1f4;
  --note: #fff3cd; --note-border: #d4a72c;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0e1116; --panel: #161b22; --text: #e6edf3; --muted: #a8b3bf; --border: #30363d;
    --accent: #8ab4f8; --on-accent: #0e1116; --error: #ffb4ab; --code: #0e1116;
    --note: #3b2e0a; --note-border: #9e7a1a;
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
.skip { position: absolute; left: 8px; top: -60px; z-index: 1; padding: 6px 12px; background: var(--panel); color: var(--accent); border: 1px solid var(--accent); border-radius: 6px; }
.skip:focus { top: 8px; }
body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
code, pre, textarea, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.86rem; }
h1 { margin: 0; font-size: 1.45rem; }
h2 { margin: 0 0 10px; font-size: 1.1rem; }
h3 { margin: 14px 0 6px; font-size: 0.95rem; }
h4 { margin: 12px 0 6px; font-size: 0.9rem; }
p { margin: 0 0 8px; }
.top { display: grid; gap: 2px; padding: 14px 24px; background: var(--panel); border-bottom: 1px solid var(--border); }
.top p { margin: 0; }
.title { display: flex; flex-wrap: wrap; gap: 12px; align-items: baseline; }
.muted, .hint { color: var(--muted); }
.hint { font-size: 0.8rem; }
.description { white-space: pre-wrap; }
.dev-note { margin-top: 6px !important; padding: 6px 10px; background: var(--note); border: 1px solid var(--note-border); border-radius: 6px; font-size: 0.9rem; }
.layout { display: grid; grid-template-columns: minmax(180px, 240px) minmax(0, 1fr); gap: 16px; padding: 16px 24px; align-items: start; }
main, .stack { display: grid; gap: 16px; min-width: 0; }
nav, .panel { min-width: 0; padding: 12px 16px; background: var(--panel); border: 1px solid var(--border); border-radius: 8px; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; align-items: start; }
@media (max-width: 1100px) { .pair { grid-template-columns: minmax(0, 1fr); } }
@media (max-width: 760px) { .layout { grid-template-columns: minmax(0, 1fr); } }
label, legend { font-weight: 600; font-size: 0.9rem; }
input, select, textarea, button { font: inherit; color: inherit; }
input[type="text"], input[type="number"], input[type="search"], select, textarea {
  width: 100%; padding: 5px 8px; background: var(--panel); border: 1px solid var(--muted); border-radius: 6px;
}
textarea { resize: vertical; }
input[type="checkbox"] { width: 1.05rem; height: 1.05rem; margin: 0; accent-color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
button { white-space: nowrap; padding: 5px 14px; background: var(--panel); border: 1px solid var(--muted); border-radius: 6px; cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--on-accent); font-weight: 600; }
button:disabled, button[aria-disabled="true"] { cursor: not-allowed; opacity: 0.6; }
button.small { padding: 1px 8px; font-size: 0.82rem; }
.row { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-top: 10px; }
.field { display: grid; gap: 2px; margin-bottom: 10px; }
.field.check { grid-template-columns: auto minmax(0, 1fr); align-items: center; column-gap: 8px; margin-top: 8px; }
.field.check .hint { grid-column: 2; }
fieldset { margin: 0 0 10px; padding: 6px 12px; border: 1px solid var(--border); border-radius: 6px; }
ol.items { margin: 0 0 6px; padding-left: 22px; }
ol.items li { display: flex; gap: 8px; align-items: center; }
ol.items li .field { flex: 1; margin-bottom: 4px; }
ul.methods { margin: 0 0 10px; padding: 0; list-style: none; }
ul.methods li { padding: 3px 0; border-bottom: 1px solid var(--border); }
button.method { display: block; white-space: normal; width: 100%; padding: 3px 6px; background: none; border: 0; border-radius: 4px; color: var(--accent); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; text-align: left; overflow-wrap: anywhere; }
button.method[aria-current="true"] { background: var(--accent); color: var(--on-accent); }
button.method.deprecated { text-decoration: line-through; }
.summary { display: block; padding: 0 6px; color: var(--muted); font-size: 0.8rem; }
.badge { margin-right: 6px; padding: 0 6px; border: 1px solid var(--error); border-radius: 9px; color: var(--error); font-size: 0.75rem; }
.method-title { margin-top: 0; }
.method-title code { font-size: 1.05rem; }
pre.code { margin: 0 0 8px; padding: 8px 10px; background: var(--code); border: 1px solid var(--border); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; }
.problem { color: var(--error); font-weight: 600; }
#status { min-height: 1.45em; font-weight: 600; }
dl.error { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 12px; margin: 0 0 8px; padding: 8px 10px; background: var(--code); border-left: 4px solid var(--error); }
dl.error dt { font-weight: 600; }
dl.error dd { margin: 0; overflow-wrap: anywhere; }
ol.values { margin: 0 0 8px; padding-left: 32px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
ul.declared { margin: 0; padding-left: 20px; }
ol.entries { margin: 0 0 8px; padding-left: 24px; }
ol.entries li { display: flex; gap: 10px; align-items: baseline; justify-content: space-between; padding: 3px 0; border-bottom: 1px solid var(--border); }
ol.entries li > :first-child { min-width: 0; overflow-wrap: anywhere; }
`;
