// The ES-module entry of the package ("exports" → "." → "import"): dist/mha.js is a classic script that is also a
// CommonJS module (module.exports = createMhaModule), so this re-exports that as the default export.
import createMhaModule from '../dist/mha.js';

export default createMhaModule;
