// MHA Explorer — the markup of one explorer (the body of the page, dist/index.html): scope.js gives its ids the
// instance's prefix and inserts it into the explorer's root. The links to the other page get their file names from
// compute/source.js's FILES at mount (the one-file pages name each other).
export const TEMPLATE = `
<a class="skip" href="#heads-title">Skip to the heatmaps</a>
<header class="top" data-section="header">
  <div class="brand">
    <h1>MHA Explorer</h1>
    <p class="tagline">Multi-head attention, every head and every shape — computed live in your browser, matching PyTorch.</p>
  </div>
  <div class="top-actions">
    <span id="status" class="status" role="status" aria-live="polite">Loading the WebAssembly core…</span>
    <a id="open-full" class="btn ghost" href="index.html" target="_blank" rel="noopener" hidden>Open full page ↗</a>
    <a id="open-models" class="btn ghost models-link" href="models.html">Real models ↗</a>
    <a id="open-lab" class="btn ghost" href="lab.html?preset=train-two-offsets">Train heads ↗</a>
    <button id="theme-toggle" class="btn ghost" type="button" aria-label="Switch colour theme"><svg class="icon" viewBox="0 0 16 16" aria-hidden="true"><circle cx="8" cy="8" r="6.5" fill="none" stroke="currentColor" stroke-width="1.5"/><path d="M8 1.5a6.5 6.5 0 0 1 0 13z" fill="currentColor"/></svg>Theme</button>
  </div>
</header>

<div id="messages" class="messages" aria-live="polite"></div>

<main class="layout">
  <aside class="panel controls" data-section="controls" aria-labelledby="controls-title">
    <details id="controls-box" open>
    <summary><h2 id="controls-title">Controls</h2></summary>
    <form id="controls" autocomplete="off">
      <div class="field">
        <label for="c-preset">Example</label>
        <select id="c-preset" name="preset"></select>
      </div>
      <div class="field" id="f-view" hidden>
        <label for="c-view">Example of the lesson shown in the heatmaps</label>
        <select id="c-view" name="view"></select>
      </div>
      <div class="field" id="f-text">
        <label for="c-text">Sentence <span class="hint">(tokens: words and punctuation)</span></label>
        <textarea id="c-text" name="text" rows="3" spellcheck="false"></textarea>
      </div>
      <fieldset id="model-fields">
        <legend>Model</legend>
        <div class="row2">
          <div class="field">
            <label for="c-dmodel">d_model</label>
            <select id="c-dmodel" name="dmodel"></select>
          </div>
          <div class="field">
            <label for="c-heads">num_heads</label>
            <select id="c-heads" name="heads" aria-describedby="dk-note"></select>
          </div>
        </div>
        <p id="dk-note" class="note"></p>
        <div class="row2">
          <div class="field">
            <label for="c-seed">Seed <span class="hint nowrap">(manual_seed)</span></label>
            <input id="c-seed" name="seed" type="number" min="0" max="4294967295" step="1" inputmode="numeric">
          </div>
          <div class="field">
            <label for="c-fill">Mask fill</label>
            <select id="c-fill" name="fill"><option value="-inf">−inf</option><option value="-1e9">−1e9</option></select>
          </div>
        </div>
        <div class="field weights" id="f-weights">
          <span class="label" id="weights-label">Weights</span>
          <p id="weights-note" class="note" aria-live="polite"></p>
          <div class="weights-buttons">
            <input id="load-weights" type="file" accept=".safetensors,application/octet-stream" class="sr-only" aria-describedby="weights-note">
            <label class="btn small" for="load-weights">Load weights…</label>
            <button id="random-weights" class="btn small" type="button" hidden>Back to random weights</button>
          </div>
          <p id="weights-msg" class="msg weights-msg" role="alert" hidden></p>
          <div class="field" id="f-layer" hidden>
            <label for="c-layer">Layer of the lab's model</label>
            <select id="c-layer" name="layer"></select>
          </div>
        </div>
        <div class="checks">
          <label class="check"><input id="c-causal" name="causal" type="checkbox"> Causal mask</label>
          <label class="check" id="f-pos"><input id="c-pos" name="pos" type="checkbox"> Sinusoidal positions</label>
        </div>
        <div class="row2">
          <div class="field">
            <label for="c-dropout">Dropout p</label>
            <input id="c-dropout" name="dropout" type="number" min="0" max="0.9" step="0.05">
          </div>
          <div class="field">
            <label for="c-train">Mode</label>
            <select id="c-train" name="train"><option value="0">eval()</option><option value="1">train()</option></select>
          </div>
        </div>
        <button id="reset-preset" class="btn small reset-preset" type="button" hidden>Reset to the lesson's values</button>
      </fieldset>
      <fieldset>
        <legend>View</legend>
        <div class="row2">
          <div class="field">
            <label for="c-scale">Colour scale</label>
            <select id="c-scale" name="scale"></select>
          </div>
          <div class="field">
            <label for="c-norm">Colour range</label>
            <select id="c-norm" name="norm"><option value="shared">0 – max of all heads</option><option value="max">0 – each head's max</option><option value="one">0 – 1</option></select>
          </div>
        </div>
        <div class="field">
          <label for="c-theme">Theme</label>
          <select id="c-theme" name="theme"><option value="auto">System</option><option value="light">Light</option><option value="dark">Dark</option></select>
        </div>
      </fieldset>
    </form>
    </details>
  </aside>

  <div class="content">
    <section class="panel" data-section="input" aria-labelledby="input-title">
      <h2 id="input-title">Input</h2>
      <p id="input-desc" class="note"></p>
      <div id="chips" class="chips" aria-label="Tokens"></div>
    </section>

    <section class="panel" data-section="heads" aria-labelledby="heads-title">
      <div class="section-head">
        <h2 id="heads-title" tabindex="-1">Attention weights per head</h2>
        <div class="tools">
          <span id="f-batch" hidden><label for="c-batch">batch item</label> <select id="c-batch" name="batch"></select></span>
          <span id="legend" class="legend" aria-hidden="true"></span>
          <span id="legend-note" class="legend-note"></span>
          <button id="export-png" class="btn small" type="button">Export PNG</button>
          <button id="export-svg" class="btn small" type="button">Export SVG</button>
        </div>
      </div>
      <p class="note heads-note" id="heads-note"></p>
      <p class="note heads-hint" id="heads-hint">Hover a cell for the exact weight; click a head to enlarge it.</p>
      <div id="heads" class="heads-grid"></div>
    </section>

    <section class="panel" data-section="detail" aria-labelledby="detail-title">
      <div class="section-head">
        <h2 id="detail-title">Head</h2>
        <div class="tools">
          <button id="show-table" class="btn small" type="button" aria-expanded="false" aria-controls="table-box">Show as table</button>
        </div>
      </div>
      <div class="detail">
        <figure class="detail-map">
          <canvas id="detail-canvas" tabindex="0" role="img" aria-describedby="cell-readout"></canvas>
          <figcaption id="cell-readout" class="readout" aria-live="polite">Use the arrow keys on the heatmap to read cells.</figcaption>
        </figure>
        <figure class="detail-lines">
          <svg id="lines" role="img" aria-label="Line view of the selected head"></svg>
          <figcaption class="note" id="lines-note"></figcaption>
        </figure>
      </div>
      <div id="table-box" class="table-box" hidden></div>
    </section>

    <section class="panel" data-section="trace" aria-labelledby="trace-title">
      <h2 id="trace-title">Shape trace of the forward pass</h2>
      <p class="note" id="trace-note"></p>
      <div id="pipeline" class="pipeline" aria-label="Pipeline: Mix, Split, Attend, Concat, Mix"></div>
      <div class="table-scroll">
      <table class="trace">
        <thead><tr><th scope="col">#</th><th scope="col">Step</th><th scope="col">PyTorch expression</th><th scope="col">Shape</th><th scope="col">Strides</th><th scope="col">Contiguous</th></tr></thead>
        <tbody id="trace-body"></tbody>
      </table>
      </div>
    </section>

    <section class="panel" data-section="lesson" aria-labelledby="lesson-title">
      <h2 id="lesson-title">PyTorch</h2>
      <p id="lesson-blurb" class="note"></p>
      <div id="cells"></div>
    </section>

    <section class="panel" data-section="share" aria-labelledby="share-title">
      <h2 id="share-title">Share, embed, reproduce</h2>
      <div class="share-buttons">
        <button id="copy-link" class="btn" type="button">Copy link</button>
        <span class="embed-pick"><label for="embed-host">Embed in</label>
          <select id="embed-host"></select>
          <button id="copy-embed" class="btn" type="button">Copy embed code</button></span>
        <button id="copy-py" class="btn" type="button">Copy as PyTorch</button>
      </div>
      <label for="share-out" class="sr-only">Copied text</label>
      <textarea id="share-out" class="share-out" rows="6" readonly></textarea>
      <p class="note" id="mem"></p>
    </section>
  </div>
</main>
<div id="tooltip" class="tooltip" role="tooltip" hidden></div>
`;
