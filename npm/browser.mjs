// The package's entry for bundlers ("exports" → "." → "browser": Vite, webpack, Parcel, esbuild with platform
// browser): createMhaModule as Node's entry gives it, but the core is dist/mha-web.mjs, an ES module without Node's
// branches, imported when createMhaModule is first called (its own chunk), which fetches dist/mha-web.wasm from
// beside it (new URL(…, import.meta.url): the bundler copies the file as an asset). It needs WebAssembly SIMD
// (Chrome 91, Firefox 89, Safari 16.4 and later).
export default function createMhaModule(moduleOverrides) {
  return import('../dist/mha-web.mjs').then((core) => core.default(moduleOverrides));
}
