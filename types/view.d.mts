// TypeScript declarations of the attention view, dist/mha-explorer-view.js (web/entries/view.js,
// web/views/attention.js): `import { mountAttention } from 'mha-explorer/view'`. An ES module: its default export is
// the anywidget front end. tests/npm/package.test.mjs checks these names against the module.

/** Nested arrays of numbers ([L][B][H][T][S], or any shorter nesting); the shape is read from the nesting. */
export type NestedNumbers = readonly (number | NestedNumbers)[];

/** A row of a shape trace: the core's trace steps (`op`), or a host's own (`name`). */
export interface ViewTraceStep {
  op?: string;
  name?: string;
  shape: readonly number[];
  strides?: readonly number[];
  contiguous?: boolean;
}

export interface AttentionViewOptions {
  /** Laid out [L, B, H, T, S]: a Float32Array (copied), another typed array, an ArrayBuffer of float32, or numbers. */
  weights?: Float32Array | ArrayBuffer | DataView | ArrayLike<number> | NestedNumbers | null;
  /** [L, B, H, T, S]; shorter shapes ([H, T, S], …) get leading 1s; omitted for nested arrays. */
  shape?: readonly number[] | null;
  /** A model's attentions in place of weights and shape: `model.forward(ids).attentions`, [L, 1, H, T, T]. */
  attentions?: { readonly shape: readonly number[]; readonly data: Float32Array | ArrayLike<number> } | null;
  /** With `attentions`: the one layer drawn (default: every layer). */
  layer?: number | null;
  /** The S keys' labels. */
  tokens?: readonly (string | number)[] | null;
  /** The T queries' labels, when T ≠ S. */
  queryTokens?: readonly (string | number)[] | null;
  trace?: readonly ViewTraceStep[] | null;
  /** Default 'Attention weights'. */
  title?: string;
  /** A sentence before the view's note: how the host read its tensor (the Python package's "read as [H, T, S]"). */
  caption?: string;
  /** Called when the student picks a layer, batch item, head or query (a host keeping its own state in step). */
  onSelect?: (selection: AttentionViewSelection) => void;
  /** Default 'auto' (follows prefers-color-scheme). */
  theme?: 'auto' | 'light' | 'dark';
  /** Default 'blues'; 'cividis' is colour-blind safe. */
  scale?: ScaleName;
  /** The heatmaps' colour range: 'layer' (default: 0 to the shown layer's largest weight, one scale for its heads),
   * 'layer-p99' (0 to the layer's 99th percentile weight), 'head' (each from 0 to its own 99th percentile), 'one' (0 to 1). */
  range?: 'layer' | 'layer-p99' | 'head' | 'one';
}

/** A colour scale of the view (web/state/scales.js's names: tests/node/protocol.test.mjs checks this list). */
export type ScaleName = 'blues' | 'cividis';

/** Which heatmap the view enlarges. */
export interface AttentionViewSelection {
  layer: number;
  batch: number;
  head: number | 'avg';
  /** The query (row) of the enlarged head's cell cursor and line view. */
  query: number;
}

/** The script API on the view's root element (`root.mhaExplorer`, the element with `data-mha-explorer-view`). */
export interface AttentionViewScriptApi {
  /** Exactly the weights given, or null when none could be read. */
  getWeights(): { shape: number[]; data: Float32Array } | null;
  getLabels(): { tokens: string[]; queryTokens: string[] };
  getTrace(): ViewTraceStep[];
  /** What the view says about input that is not attention weights. */
  getNotes(): string[];
  getSelection(): AttentionViewSelection;
  select(selection: Partial<AttentionViewSelection>): void;
  /** The visible heads as SVG text, or null without weights. */
  toSVG(): string | null;
  toPNG(): Promise<Blob | null>;
  update(options: AttentionViewOptions): void;
  dispose(): void;
}

export interface AttentionView {
  root: HTMLElement & { mhaExplorer: AttentionViewScriptApi };
  /** Redraws with these options merged into the current ones. */
  update(options: AttentionViewOptions): void;
  /** Removes the view and its listeners. */
  dispose(): void;
}

/** Shows every head's attention in `element` (any number of views share a document). */
export function mountAttention(element: Element, options?: AttentionViewOptions): AttentionView;

/** Base64 of little-endian float32 (numpy's `tobytes()`) → Float32Array; anything else is returned as it is. */
export function decodeWeights<T>(weights: T): T extends string ? Float32Array | string : T;

/** The Python package's packed weights (above 4 M values: each chunk float16 low bytes then high bytes, deflated; base64
 * text or bytes) → Float32Array, the float16 values exactly. Rejects with a message on a chunk it cannot read. */
export function unpackWeights(chunks: ReadonlyArray<string | ArrayBuffer | ArrayBufferView>): Promise<Float32Array>;

/** The weights of a Python package's HTML output → what mountAttention takes: `'float16-planes-deflate'` chunks
 * unpacked (unpackWeights), else decodeWeights' reading. */
export function readWeights<T>(
  data: T,
  dtype?: 'float32' | 'float16-planes-deflate' | string,
): Promise<Float32Array | T | string>;

/** The notebook's theme where the host says it (JupyterLab, Notebook 7, VS Code, marimo), else 'auto'. */
export function hostTheme(node: Node): 'light' | 'dark' | 'auto';

/** Keeps `view` on the host's theme while the host switches theme, unless `chosen` is 'light' or 'dark'; returns the
 * cleanup. */
export function followHostTheme(view: AttentionView, node: Node, chosen?: string | null): () => void;

/** The part of an anywidget model the front end uses (a method that is missing or throws is passed over). */
export interface AnyWidgetModel {
  get(name: string): unknown;
  set?(name: string, value: unknown): void;
  save_changes?(): void;
  on?(event: string, callback: () => void): void;
  off?(event: string, callback: () => void): void;
}

/** The anywidget front-end contract: reads weights, shape, tokens, query_tokens, trace, title, caption, theme, scale;
 * with num_layers (the Python package's mx.Heads) also layer, head and query, synced both ways. */
declare const widget: {
  render(context: { model: AnyWidgetModel; el: HTMLElement }): () => void;
};
export default widget;
