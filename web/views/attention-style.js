// MHA Explorer — the attention view's stylesheet: every rule under .mhav (the view's root), injected once into
// the document or shadow root the view is mounted in, so nothing of it reaches the host's own elements.
// The custom properties have the page's names (the widgets read --border, --fg-muted, --accent, --line on
// the root) and its two palettes; data-mhav-theme on the root chooses one.
export const STYLE = `
.mhav { --bg: #f5f7fa; --bg-card: #ffffff; --bg-sunk: #f0f3f7; --fg: #1b2430; --fg-muted: #5b6675; --border: #d9dfe7;
  --accent: #1f6feb; --accent-soft: #e3edfd; --line: #2b6cb0; --ok: #1a7f37; --bad: #b42318; --warn-bg: #fff7e6;
  --warn-border: #f0c36d; --code-bg: #f6f8fa; color-scheme: light;
  display: block; box-sizing: border-box; background: var(--bg-card); color: var(--fg); border: 1px solid var(--border);
  border-radius: 12px; padding: 14px 16px; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif;
  text-align: left; min-width: 0; }
.mhav[data-mhav-theme="dark"] { --bg: #0f141a; --bg-card: #171d25; --bg-sunk: #1d2530; --fg: #e6edf3; --fg-muted: #9aa7b5;
  --border: #2c3642; --accent: #58a6ff; --accent-soft: #1b2a3d; --line: #79b8ff; --ok: #3fb950; --bad: #ff7b72;
  --warn-bg: #2b2210; --warn-border: #8a6d1f; --code-bg: #11161d; color-scheme: dark; }
.mhav *, .mhav *::before, .mhav *::after { box-sizing: border-box; }
.mhav [hidden] { display: none !important; }
.mhav :focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.mhav .mhav-head { display: flex; justify-content: space-between; align-items: center; flex-wrap: wrap; gap: 8px; }
.mhav .mhav-title { margin: 0; font-size: 1.05rem; line-height: 1.3; }
.mhav .mhav-sub { margin: 16px 0 0; font-size: .95rem; line-height: 1.3; }
.mhav .mhav-tools { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; font-size: .85rem; }
.mhav .mhav-tools label { display: inline-flex; align-items: center; gap: 4px; }
.mhav select { font: inherit; font-size: .85rem; color: var(--fg); background: var(--bg-card); border: 1px solid var(--border);
  border-radius: 8px; min-height: 28px; padding: 2px 6px; }
.mhav .mhav-btn { font: inherit; font-size: .8rem; font-weight: 600; color: var(--fg); background: var(--bg-card);
  border: 1px solid var(--border); border-radius: 8px; padding: 3px 9px; min-height: 28px; cursor: pointer; }
.mhav .mhav-btn:hover { border-color: var(--accent); color: var(--accent); }
.mhav .legend { display: inline-flex; align-items: center; gap: 6px; color: var(--fg-muted); font-size: .78rem; }
.mhav .legend-bar { display: inline-block; width: 90px; height: 10px; border-radius: 3px; border: 1px solid var(--border); }
.mhav .mhav-problem { margin: 10px 0 0; padding: 8px 12px; border: 1px solid var(--warn-border); background: var(--warn-bg);
  border-radius: 8px; font-size: .88rem; overflow-wrap: anywhere; }
.mhav .mhav-note { color: var(--fg-muted); font-size: .85rem; margin: 8px 0 0; }
.mhav .heads-grid { display: flex; flex-wrap: wrap; gap: 12px; margin-top: 10px; }
.mhav .head-card { display: flex; flex-direction: column; align-items: flex-start; gap: 6px; padding: 8px; margin: 0;
  background: var(--bg-card); border: 1px solid var(--border); border-radius: 10px; cursor: pointer; color: var(--fg);
  font: inherit; text-align: left; box-shadow: none; }
.mhav .head-card:hover { border-color: var(--accent); }
.mhav .head-card.selected { border-color: var(--accent); box-shadow: 0 0 0 2px var(--accent-soft), 0 0 0 3px var(--accent); }
.mhav .head-title { font-size: .85rem; font-weight: 600; }
.mhav .head-max:empty { display: none; }
.mhav canvas { display: block; }
.mhav .mhav-detail { display: flex; flex-wrap: wrap; gap: 20px; margin-top: 10px; align-items: flex-start; }
.mhav figure { margin: 0; min-width: 0; }
.mhav .mhav-map canvas { max-width: 100%; height: auto; border-radius: 4px; }
.mhav .mhav-lines { flex: 1 1 280px; }
.mhav .mhav-lines svg { max-width: 100%; height: auto; display: block; }
.mhav .readout { font-size: .85rem; color: var(--fg-muted); margin-top: 6px; max-width: 520px; min-height: 2.6em; }
.mhav .lv-head { font-size: 11px; fill: var(--fg-muted); text-transform: uppercase; letter-spacing: .06em; }
.mhav .lv-tok { font-size: 12px; fill: var(--fg); cursor: default; }
.mhav .lv-tok.on { font-weight: 700; fill: var(--accent); }
.mhav .mhav-table { margin-top: 12px; overflow: auto; max-height: 360px; }
.mhav table.matrix { border-collapse: collapse; font-size: .78rem; font-variant-numeric: tabular-nums; }
.mhav table.matrix caption { text-align: left; font-weight: 600; padding-bottom: 6px; }
.mhav table.matrix th, .mhav table.matrix td { border: 1px solid var(--border); padding: 2px 6px; text-align: right; white-space: nowrap; }
.mhav table.matrix th { background: var(--bg-sunk); }
.mhav .pipeline { display: flex; align-items: stretch; gap: 6px; margin: 10px 0; flex-wrap: wrap; }
.mhav .stage { flex: 1 1 110px; border: 1px solid var(--border); border-radius: 10px; padding: 6px 9px; background: var(--bg-sunk); display: grid; gap: 2px; }
.mhav .stage small { color: var(--fg-muted); font-size: .74rem; line-height: 1.3; }
.mhav .stage.current { background: var(--accent-soft); border-color: var(--accent); }
.mhav .arrow { align-self: center; color: var(--fg-muted); }
.mhav .mhav-scroll { overflow-x: auto; }
.mhav table.trace { width: 100%; border-collapse: collapse; font-size: .84rem; }
.mhav table.trace th { text-align: left; font-size: .76rem; color: var(--fg-muted); text-transform: uppercase;
  border-bottom: 1px solid var(--border); padding: 5px 8px; }
.mhav table.trace td { padding: 5px 8px; border-bottom: 1px solid var(--border); vertical-align: top; text-align: left; }
.mhav table.trace tr.current td, .mhav table.trace tbody tr:focus td { background: var(--accent-soft); }
.mhav table.trace code { font-size: .8rem; color: var(--fg); background: var(--code-bg); padding: 1px 5px; border-radius: 4px; }
.mhav table.trace small.desc { display: block; color: var(--fg-muted); font-size: .75rem; }
.mhav td.num { color: var(--fg-muted); }
.mhav td.mono { white-space: nowrap; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .8rem; }
.mhav td.yes { color: var(--ok); font-weight: 600; }
.mhav td.no { color: var(--bad); font-weight: 600; }
.mhav .tooltip { position: fixed; z-index: 20; pointer-events: none; max-width: 340px; background: var(--fg); color: var(--bg);
  border-radius: 8px; padding: 7px 10px; font-size: .8rem; box-shadow: 0 4px 14px rgba(0, 0, 0, .25); }
.mhav .tip-val { font-weight: 700; font-variant-numeric: tabular-nums; }
.mhav .tip-top { opacity: .85; }
@media (max-width: 500px) { .mhav .head-card { flex: 1 1 40%; } .mhav .arrow { display: none; } }
`;
