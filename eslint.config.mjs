// ESLint (flat config): recommended rules for every JS file of the project, with the globals of the place each
// folder's code runs in. scripts/lint runs it (`npx eslint .`); prettier owns the layout (.prettierrc).
import js from '@eslint/js';
import globals from 'globals';

export default [
  {
    ignores: [
      'build*/',
      'dist/',
      '**/node_modules/',
      'bench/results/',
      'tests/browser/artifacts/',
      'python/mha_explorer/static/',
      'python/build/', // setup.py's wheel build (python.install)
    ],
  },
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      'no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      'no-var': 'off', // the worker and wasm scripts are ES5-style classic scripts
      eqeqeq: ['error', 'smart'],
    },
  },
  // The page, the lab and the views: ES modules bundled by esbuild for the browser; web/build.mjs runs in Node.
  {
    files: ['web/**/*.js'],
    ignores: ['web/compute/forward-worker.js', 'web/compute/trainer-worker.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  { files: ['web/compute/forward-worker.js'], languageOptions: { globals: { ...globals.worker } } },
  // The Python package's anywidget views (ES modules run in the notebook's page).
  { files: ['python/mha_explorer/*.js'], languageOptions: { globals: { ...globals.browser } } },
  // Appended to a core build as a Blob worker's classic script (web/build.mjs), not a module.
  {
    files: ['web/compute/trainer-worker.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.worker } },
  },
  // The JS API: ES modules that wasm/bundle-api.mjs bundles into a script appended to Emscripten's output (a page,
  // a worker or Node).
  {
    files: ['wasm/api/*.js'],
    languageOptions: { globals: { ...globals.browser, ...globals.worker, ...globals.node } },
  },
  // Run inside Emscripten's output: a classic script that sees the names of Emscripten's closure.
  {
    files: ['wasm/pre.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, ...globals.worker, ...globals.node } },
  },
  {
    files: ['wasm/pre.js'],
    languageOptions: {
      globals: {
        Module: 'writable',
        wasmBinaryFile: 'readonly',
        tryParseAsDataURI: 'readonly',
        readyPromiseReject: 'readonly',
      },
    },
  },
  // The benchmark's drivers: CommonJS in Node (their page.evaluate callbacks run in Chromium).
  {
    files: ['bench/js/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node, ...globals.browser } },
  },
  // Node: the build, the package, the scripts, the tests (the browser tests' callbacks run in Chromium).
  {
    files: ['**/*.mjs', 'web/build.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  // Tests match printed tensors, whose columns are aligned with runs of spaces.
  {
    files: ['tests/**', 'bench/js/**/*.mjs', 'bench/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: { 'no-regex-spaces': 'off' },
  },
  // A classic script loaded by the CSP test page.
  {
    files: ['tests/node/fixtures/csp-page.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
];
