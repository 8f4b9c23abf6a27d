// @ts-check
// MHA Explorer — the training lab as a component: createLab(root, options) puts the lab into root and returns
// {ready, api, update, dispose}. Its state is one object (state.js); its jobs are modules by concern, each taking that
// object: training (the model in a Web Worker, compute/trainer.js; steps, pace, goal), draw (one module per panel:
// chart, cards, predictions, closer), controls (bound by name= through state/lab.js's property list), files, api.
// Every element is looked up inside root through the instance's scope (chrome/scope.js: ids with its prefix), and its
// window and document listeners go through its own AbortSignal: two labs in one document share nothing.
import { labProps } from '../state/lab.js';
import { start as startTrainer } from '../compute/trainer.js';
import { asRegion } from '../chrome/landmarks.js';
import { labState, readSettings } from './state.js';
import { Player } from './player.js';
import { showMessages, showTheme, status, say } from './draw.js';
import { onFrame, play, reset } from './training.js';
import { bindAll } from './controls.js';
import { labApi, update } from './api.js';

/** @typedef {import('./state.js').LabState} LabState */

// The layout the settings ask for: an embed shows the chart and the heads first, the settings folded below them;
// a phone starts with the settings and the model's trace folded; hidden sections; no share panel but the lab page's.
/** @param {LabState} lab */
function layOut(lab) {
  const { root, $, values } = lab,
    ownsPage = lab.options.ownsPage;
  showTheme(lab);
  if (values.embed) {
    root.classList.add('embed');
    if (ownsPage) document.body.classList.add('embed');
    if (values.hide.indexOf('controls') < 0) {
      $('lab-settings').open = false;
      root.querySelector('.content').appendChild($('lab-settings'));
      $('lab-settings').classList.add('panel');
    }
  }
  if (window.matchMedia && window.matchMedia('(max-width: 720px)').matches) {
    $('closer-trace-box').open = false;
    $('lab-settings').open = false; // Play, Step and Reset stay in view; the settings unfold on demand
  }
  values.hide.concat(values.embed || !ownsPage ? ['share'] : []).forEach((name) => {
    /** @type {HTMLElement} */ (root.querySelector('[data-section="' + name + '"]')).hidden = true;
  });
  root.classList.toggle('no-controls', values.hide.indexOf('controls') >= 0);
}

// The worker started once, the task table taken from it, the settings read again with it, the first model built;
// when the lab is disposed meanwhile, the worker stopped as soon as it is there. → whether the lab started
/** @param {LabState} lab @returns {Promise<boolean>} */
function start(lab) {
  return startTrainer({ base: lab.base })
    .then((t) => {
      if (lab.disposed) {
        t.terminate();
        throw new Error('the lab was closed');
      }
      lab.trainer = t;
      return t.tasks();
    })
    .then((table) => {
      lab.tasks = table;
      lab.props = labProps(table);
      const parsed = readSettings(lab.options, lab.props);
      lab.values = parsed.values;
      lab.explicit = parsed.explicit;
      lab.messages = parsed.messages;
      showMessages(lab);
      return reset(lab);
    })
    .then(
      () => {
        if (lab.disposed) return false;
        if (lab.values.autoplay) play(lab);
        lab.player.start();
        return true;
      },
      (err) => {
        if (lab.disposed) return false;
        status(lab, 'Could not start');
        say(lab, 'Could not start the training worker: ' + err.message);
        return false;
      },
    );
}

// Stops training, ends the instance's workers (the model's and the one-head twin's), its animation frame and its
// listeners on window and document, and takes its elements out of root.
/** @param {LabState} lab @param {(() => void) | null} unRegion */
function dispose(lab, unRegion) {
  if (lab.disposed) return;
  lab.disposed = true;
  lab.player.dispose();
  lab.lifetime.abort();
  if (lab.trainer) lab.trainer.terminate();
  if (lab.twin) lab.twin.terminate();
  lab.trainer = lab.twin = null;
  lab.scope.remove();
  lab.root.classList.remove('mhx', 'mhx-lab', 'embed', 'no-controls', 'dropping');
  lab.root.removeAttribute('data-theme');
  lab.root.removeAttribute('data-mha-explorer-lab');
  if (unRegion) unRegion();
  delete (/** @type {any} */ (lab.root).mhaExplorer);
}

// root: the element the lab fills (its markup goes first in it). options: {
//   query: a lab URL query to start from ('?preset=train-two-offsets&heads=4'; the lab page passes its own),
//   values: properties of state/lab.js set over the query ({heads: 4, seed: 3}),
//   embed, theme ('auto' follows prefers-color-scheme, 'light', 'dark'): as the properties of the same names,
//   ownsPage: the lab is the document's page (the lab page's entry only): it writes the document's URL, takes files
//     dropped anywhere, posts its height to an embedding page, and mirrors its theme on <html> and embed on <body>,
//   idPrefix: put in front of every id ('' on the lab page; by default a fresh mhxlabN-),
//   base: the folder of the lab's files (trainer-<build>.js, the page's index.html; '' : the document's),
//   styles: a stylesheet's text put into root as a <style> (style.css and lab.css, for a shadow root),
//   onPage(query): a link to the explorer page was followed: the host shows the page for that query instead of the
//     browser leaving (as <mha-explorer> does)}.
// → {ready (a promise of whether the lab started), api (the lab page's window.mhaExplorer; every method that needs the
//   model waits for ready), update(values) (a refused value rejects), setFromHost(values) (a refused value is said in
//   the lab's messages, as in a query), dispose()}.
/** @param {HTMLElement} root @param {Record<string, any>} [options] */
export function createLab(root, options) {
  const lab = labState(root, Object.assign({ query: '', values: {}, ownsPage: false }, options));
  root.classList.add('mhx', 'mhx-lab');
  root.setAttribute('data-mha-explorer-lab', '');
  const unRegion = lab.options.ownsPage ? null : asRegion(root, 'MHA Explorer training lab');
  lab.player = new Player(lab.$('play'), () => onFrame(lab));
  layOut(lab);
  bindAll(lab);
  const ready = start(lab),
    api = labApi(lab, ready);
  /** @type {any} */ (root).mhaExplorer = api; // as the attention view's root: a host finds a lab by [data-mha-explorer-lab] and scripts it
  return {
    ready,
    api,
    update: (changes) => update(lab, ready, changes),
    setFromHost: (changes) => update(lab, ready, changes, true),
    dispose: () => dispose(lab, unRegion),
  };
}
