// The attention view and the element in typed use (tsc --strict; the README's view example is checked as written too).
import { mountAttention, decodeWeights } from 'mha-explorer/view';
import type { AttentionView, AttentionViewOptions, AttentionViewSelection } from 'mha-explorer/view';
import widget from 'mha-explorer/view';
import type { MhaExplorerElement } from 'mha-explorer/element';
import type { TraceStep } from 'mha-explorer';

declare const trace: TraceStep[];
const options: AttentionViewOptions = {
  weights: [[[0.5, 0.5], [1, 0]]],          // nested numbers: the shape comes from the nesting
  tokens: ['a', 'b'], title: 'Nested', theme: 'dark', scale: 'cividis', trace,
};
const view: AttentionView = mountAttention(document.createElement('div'), options);
view.update({ weights: new Float32Array([1, 0, 0, 1]), shape: [2, 2], queryTokens: [0, 1] });
const api = view.root.mhaExplorer;
const selection: AttentionViewSelection = api.getSelection();
api.select({ head: 'avg' });
const weights: Float32Array | undefined = api.getWeights()?.data;
const notes: string[] = api.getNotes();
const svg: string | null = api.toSVG();
api.toPNG().then((blob) => blob?.size);
view.dispose();
const decoded: Float32Array | string = decodeWeights('AACAPw==');
const cleanup: () => void = widget.render({ model: { get: (name: string) => (name === 'shape' ? [1, 1] : null) }, el: document.body });
cleanup();
const element: MhaExplorerElement = document.createElement('mha-explorer');
element.setAttribute('base', '/mha-explorer/');
void selection; void weights; void notes; void svg; void decoded;
