// MHA Explorer, the model page — issue 41's panels (generation.js, lens.js, attribution.js, patching.js) made
// together, updated after each render of the text (forward.js) and disposed with the page; and their
// window.mhaExplorer methods (docs/model-page.md's Scripting).
import { createGeneration } from './generation.js';
import { createLens } from './lens.js';
import { createAttribution } from './attribution.js';
import { createPatching } from './patching.js';

export function createHeadsPanels(ctx) {
  const gen = createGeneration(ctx),
    lens = createLens(ctx),
    dla = createAttribution(ctx),
    patch = createPatching(ctx);
  const all = [gen, lens, dla, patch];
  const need = () => {
    if (!ctx.S.model || !ctx.S.out) throw new Error('no model is loaded: drop a model folder, or call load({files})');
  };
  const api = {
    // → a promise of {ids, tokens, stopped}: the new tokens (the page's text then holds them)
    generate: (o) => gen.run(o),
    stop: () => (gen.stop(), patch.cancel()),
    getGeneration: () => gen.read(),
    getLens: (o) => (need(), lens.read(o && o.target)),
    getAttribution: (o) => (need(), dla.read(o)),
    // → a promise of {shape: [L, H] or [L, T], data, what, clean, corrupted, tokens}
    patch: (o) => patch.run(o),
    getPatch: () => patch.read(),
    getPanelSnippet: (name) => {
      need();
      const p = { generate: gen, lens, attribution: dla, patch }[name];
      if (!p)
        throw new Error('getPanelSnippet takes generate, lens, attribution or patch, got ' + JSON.stringify(name));
      return p.snippet();
    },
  };
  return {
    api,
    update: () => all.forEach((p) => p.update()),
    dispose: () => all.forEach((p) => p.dispose()),
  };
}
