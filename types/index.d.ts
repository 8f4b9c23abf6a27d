// TypeScript declarations of the MHA Explorer JS API (wasm/api/ over wasm/bindings.cpp).
// `require('mha-explorer')` is the factory itself (CommonJS `module.exports`), and `import createMhaModule from
// 'mha-explorer'` its default export; the types live in the namespace of the same name:
//   import createMhaModule, { type Tensor, type MultiHeadAttention } from 'mha-explorer';
// tests/npm/package.test.mjs checks these declarations against the module: every name it defines is declared here,
// and the string literal types (mask modes, tasks, trace ops, implementation) hold every value it produces.

/**
 * Starts one instance of the WebAssembly core and resolves with the JS API.
 * Each call makes an independent instance (its own memory); objects of one instance cannot be passed to another.
 * @param moduleOverrides Emscripten's module object (for example `print`, `printErr`).
 */
declare function createMhaModule(moduleOverrides?: createMhaModule.ModuleOverrides): Promise<createMhaModule.MhaModule>;

declare namespace createMhaModule {
  /** Emscripten's module object, passed through to the core. */
  interface ModuleOverrides {
    print?: (text: string) => void;
    printErr?: (text: string) => void;
    /** A module compiled before (another instance's `wasmModule`): instantiated without compiling again. */
    wasmModule?: WebAssembly.Module;
    /** Threads of the kernels' pool (dist/mha-threads.js starts threads - 1 pthread workers; other builds run 1). Default: the host's cores, at most 8. */
    threads?: number;
    /** The least multiply-adds a call splits across threads (default 262144); tests set 0 to split every call. */
    splitThreshold?: number;
    [key: string]: unknown;
  }

  /** A tensor as the API returns it: row-major float32 data, always a fresh copy. */
  interface Tensor {
    shape: number[];
    data: Float32Array;
  }

  /** A tensor as the API accepts it: `data` may also be plain numbers; `data.length` must equal the shape's product. */
  interface TensorLike {
    readonly shape: readonly number[];
    readonly data: Float32Array | readonly number[];
  }

  /**
   * How `mask` is read (bindings.cpp's protocol): `'keep'` is `masked_fill(mask == 0, fill)`, `'block'` is
   * `masked_fill(mask == 1, fill)`, `'bool'` is nn.MultiheadAttention's bool mask (true blocks), `'additive'`
   * adds the mask to the scores.
   */
  type MaskMode = 'keep' | 'block' | 'bool' | 'additive';

  /** Options of an attention call; masks broadcast as in PyTorch ([S,S], [1,1,S,S], [B,1,S,S], [B,H,S,S]). */
  interface AttentionOptions {
    mask?: TensorLike | null;
    /** Default `'keep'`. */
    maskMode?: MaskMode;
    /** Value written into masked scores; default `-Infinity` (fully masked rows give NaN), or e.g. `-1e9`. */
    fill?: number;
    /** The lessons' `tril` mask. */
    causal?: boolean;
    /** `[B, Skv]`, nonzero = padding. */
    keyPaddingMask?: TensorLike | null;
    /** Default `true`; `false` takes the streaming path that never forms the weights (`weights` is then `null`). */
    needWeights?: boolean;
  }
  /** Options that keep the weights (`needWeights` absent or `true`). */
  type WeightsOptions = AttentionOptions & { needWeights?: true };
  /** Options that drop the weights. */
  type NoWeightsOptions = AttentionOptions & { needWeights: false };
  /** MultiHeadAttention.forward's own option: `heads: [start, end)` computes only those heads (their weights and
   *  their term of W_o's sum; the bias in the part that starts at head 0), so the parts of a partition sum to the output. */
  interface HeadsOption {
    heads?: readonly [number, number];
  }

  /** `{output, weights, fullyMaskedRows}` of scaledDotProductAttention; `weights` is `null` with `needWeights: false`. */
  interface AttentionResult<W extends Tensor | null = Tensor> {
    output: Tensor;
    weights: W;
    /** Queries whose keys were all blocked (NaN weights with `fill: -Infinity`, uniform with `-1e9`). */
    fullyMaskedRows: number;
  }

  /** What MultiHeadAttention.forward returns; `trace` is computed when first read (a getter that spread skips). */
  interface ForwardResult<W extends Tensor | null = Tensor> extends AttentionResult<W> {
    readonly trace: TraceStep[];
  }

  /** The operations of a shape trace: lesson 004's table, and the tiny model's tokens, embedding, residual and readouts. */
  type TraceOp =
    | 'input'
    | 'linear'
    | 'view'
    | 'transpose'
    | 'attention'
    | 'contiguous_view'
    | 'tokens'
    | 'embedding'
    | 'residual'
    | 'readout';

  /** One row of a shape trace. */
  interface TraceStep {
    step: number;
    op: TraceOp;
    shape: number[];
    strides: number[];
    contiguous: boolean;
    /** For `attention`: the shape of the weights, [B, H, S, Skv]. */
    weights?: number[];
    /** For the tiny model's trace: the layer of a step. */
    layer?: number;
  }

  /** The operations of a real checkpoint's trace (Model.forward): each layer's attention steps as transformers' eager
   *  attention takes them (`qkv` for GPT-2's fused c_attn, `rope_*` for Llama/Qwen2, `repeat_kv_*` with grouped-query
   *  attention), between the residual stream's norms and MLPs. */
  type ModelTraceOp =
    | 'tokens'
    | 'embedding'
    | 'norm'
    | 'qkv'
    | 'query'
    | 'key'
    | 'value'
    | 'query_heads'
    | 'key_heads'
    | 'value_heads'
    | 'rope_query'
    | 'rope_key'
    | 'repeat_kv_key'
    | 'repeat_kv_value'
    | 'query_norm'
    | 'key_norm'
    | 'scores'
    | 'softcap'
    | 'window'
    | 'softmax'
    | 'context'
    | 'merge'
    | 'output'
    | 'residual'
    | 'mlp'
    | 'post_norm'
    | 'readout';

  /** One row of a real checkpoint's trace; `layer` is absent for the embedding, the final norm and the readout. */
  interface ModelTraceStep {
    step: number;
    op: ModelTraceOp;
    shape: number[];
    strides: number[];
    contiguous: boolean;
    /** For `softmax`: the attention weights' shape, [1, H, T, T]. */
    weights?: number[];
    layer?: number;
  }

  /**
   * One of a checkpoint's files: a `File` (an `<input type="file" multiple>`'s or a drop's), its name with its bytes
   * (in Node, `await fs.openAsBlob(path)` reads the file in place), or its name with an address that loadModel fetches
   * (the body streamed into the core's memory; its size from Content-Length). Another origin must send
   * Access-Control-Allow-Origin. In Node a url is absolute: http(s), or file:// (read with fs.openAsBlob).
   */
  type CheckpointFile =
    File | { name: string; bytes: Uint8Array | ArrayBuffer | Blob } | { name: string; url: string | URL };

  /** How far loadModel has read the weights: `loaded` of `total` bytes, the last read from `file`. */
  interface LoadProgress {
    loaded: number;
    total: number;
    file: string;
  }

  interface LoadModelOptions {
    /** Called before the weights are read, after every 4 MiB of them and at the end of each file. */
    onProgress?: (progress: LoadProgress) => void;
    /** Aborting rejects loadModel at once with the signal's reason, whatever read it waits on, and frees what it had read. */
    signal?: AbortSignal;
    /** Milliseconds a read may give no bytes: then a Blob's read is tried once more as one slice, then refused naming the file and the byte. Default 20000. */
    stallTimeout?: number;
  }

  /**
   * A Hugging Face Hub model by its id (docs/hub.md): `{hub: 'owner/name'}` (or 'hf:owner/name@revision'), its files
   * fetched from `{endpoint}/{repo}/resolve/{revision}/{file}` as huggingface_hub fetches them.
   */
  interface HubSource {
    /** 'owner/name', 'owner/name@revision' or 'hf:owner/name@revision'. */
    hub: string;
    /** A branch, tag or commit (default 'main'); the id's @revision is the same setting. */
    revision?: string;
    /** The Hub's address, as HF_ENDPOINT is for huggingface_hub (a mirror, a proxy, a local server). Default https://huggingface.co. */
    endpoint?: string | URL;
    /** Aborting stops the preview or the download at once. */
    signal?: AbortSignal;
    /** Where the files are kept for the next visit: a CacheStorage (default: the browser's `caches`, none in Node), or false for none. */
    store?: CacheStorage | false;
    /** Ask the Hub even when a stored copy of the revision exists. */
    refresh?: boolean;
    /** Milliseconds a download may give no bytes before it is resumed (default 20000). */
    stallTimeout?: number;
  }

  /** One file a Hub model is loaded from. */
  interface HubFile {
    /** Its path in the repository (1_Pooling/config.json for a sentence-transformers model's pooling). */
    path: string;
    /** Bytes: exact for the weights (their Content-Range), from a HEAD request for the others. */
    size: number;
    kind: 'config' | 'tokenizer' | 'sentence' | 'index' | 'weights';
    /** The weights' ETag (X-Linked-Etag), checked again when they download. */
    etag?: string | null;
  }

  /** What a Hub model is and needs, read before any weight downloads (config.json and one Range request per weight file). */
  interface HubPreview {
    /** 'owner/name@commit'. */
    id: string;
    repo: string;
    revision: string;
    /** The commit the revision resolved to (X-Repo-Commit); null where the Hub did not say. */
    commit: string | null;
    endpoint: string;
    modelType: string | null;
    layers: number | null;
    heads: number | null;
    /** Why the core cannot compute this config.json, or null. */
    unsupported: string | null;
    files: HubFile[];
    downloadBytes: number;
    params: number;
    /** Parameters by safetensors dtype ('F32', 'F16', 'BF16', …), and the commonest. */
    dtypes: Record<string, number>;
    dtype: string | null;
    /** The weights' bytes against the memory this JavaScript can give the core (wasm32's 4 GB, less where the browser says). */
    memory: { needed: number; limit: number; fits: boolean };
    /** The requests and header bytes the preview took (0 when stored). */
    requests: number;
    headerBytes: number;
    /** Every file is in the store: loading asks nothing of the network. */
    stored: boolean;
  }

  interface HubLoadOptions extends HubSource {
    /** Download progress (phase 'download'), then loadModel's (phase 'load'). */
    onProgress?: (progress: {
      loaded: number;
      total: number;
      file: string | null;
      phase?: 'download' | 'load';
    }) => void;
    /** A preview already made (previewHubModel's), not asked again. */
    preview?: HubPreview;
    /** Refuse (before any weight is fetched) a download above this many bytes. */
    maxBytes?: number;
  }

  interface HubDownload {
    preview: HubPreview;
    /** Every file the preview lists, by its path in the repository. */
    files: { name: string; bytes: Blob }[];
    /** Whether the files are in the store for the next visit. */
    stored: boolean;
    /** Why they are not (a full quota, no Cache API), or null. */
    storeError: string | null;
  }

  interface StoredHubModel {
    /** 'owner/name@commit'. */
    id: string;
    repo: string;
    commit: string;
    revision: string;
    endpoint: string;
    files: number;
    bytes: number;
    storedAt: string;
  }

  /** A loaded checkpoint's sizes, as its config.json gives them. */
  interface ModelInfo {
    /** The core's family: GPT-2 (gpt2), BERT (bert), DistilBERT (distilbert), Llama-style (llama: Llama, Mistral, Qwen2, Qwen3), GPT-NeoX (gpt_neox: Pythia), GPT-Neo (gpt_neo: TinyStories), OPT (opt), Phi (phi), RoBERTa (roberta: RoBERTa, XLM-R), Gemma (gemma: Gemma, Gemma 2, Gemma 3), ModernBERT (modernbert). */
    family: 'gpt2' | 'bert' | 'distilbert' | 'llama' | 'gpt_neox' | 'gpt_neo' | 'opt' | 'phi' | 'roberta' | 'gemma' | 'modernbert';
    /** config.json's model_type: 'gpt2', 'bert', 'distilbert', 'llama', 'qwen2', 'gpt_neox', 'gpt_neo', 'opt', 'qwen3', 'mistral', 'phi', 'smollm3', 'roberta', 'xlm-roberta', 'gemma', 'gemma2', 'gemma3_text', 'modernbert'. */
    modelType: string;
    layers: number;
    heads: number;
    /** Key/value heads: fewer than `heads` with grouped-query attention. */
    kvHeads: number;
    dModel: number;
    headDim: number;
    /** Features of each head the rotary embedding turns: headDim (Llama), fewer (GPT-NeoX's rotary_pct), 0 without rotary embeddings. */
    rotaryDim: number;
    /** Each layer's window: a query sees itself and the window - 1 tokens before it (GPT-Neo's local layers, sliding windows), or in an encoder the window - 1 tokens on either side (ModernBERT's local layers); 0: every key the mask allows. */
    windows: number[];
    /** The rotary embedding's base θ (Gemma 3: of its full-attention layers); 0 without rotary embeddings. */
    ropeTheta: number;
    /** Gemma 3 and ModernBERT: the sliding (local) layers' base θ (rope_parameters.sliding_attention); 0: ropeTheta on every layer. */
    ropeLocalTheta: number;
    /** rope_type 'linear' on the full layers (Gemma 3 4b and up): the angles divided by ropeFactor; 1: none. */
    ropeFactor: number;
    /** Gemma 2 and 3: the scores are scaled by queryPreAttnScalar^-0.5; 0: by headDim^-0.5 (or as the family says). */
    queryPreAttnScalar: number;
    /** Gemma 2: scores = tanh(scores / attnSoftcap) * attnSoftcap before the mask; 0: no cap. */
    attnSoftcap: number;
    /** Gemma 2: logits = tanh(logits / finalSoftcap) * finalSoftcap; 0: no cap. */
    finalSoftcap: number;
    vocab: number;
    /** The longest input, in tokens. */
    maxPositions: number;
    /** GPT-2 and Llama-style models see only the past. */
    causal: boolean;
    /** A causal LM head, or BERT/DistilBERT's MLM head: forward can give logits. */
    hasLmHead: boolean;
    /** The dtype that holds most of the weights, kept as stored. */
    dtype: 'F32' | 'F16' | 'BF16';
    /** The weights' bytes in the core's memory. */
    weightBytes: number;
    /** Threads the forward runs on (the module's `threads`, read when asked). */
    readonly threads: number;
  }

  interface ModelForwardOptions {
    /** Heads switched off, as [layer, head] pairs: their output before the output projection replaced as `ablation` says. */
    headsOff?: readonly (readonly [number, number])[];
    /**
     * How `headsOff` are switched off (TransformerLens's hook_z replaced): 'zero' (the default) zeroes their output,
     * 'mean' replaces it at every position by its mean over the text's positions (mean ablation), 'resample' by their
     * output on `resampleFrom` (resample ablation). The replacements are the full model's outputs.
     */
    ablation?: Ablation;
    /** 'resample' only: the ids of the other text, as many as `ids`. */
    resampleFrom?: readonly number[];
    /** true: `writes` [L, H, T], ‖v_j·W_O^h‖ (what key j writes through head h; Kobayashi et al. 2020). Default false. */
    writes?: boolean;
    /** Positions whose logits to give; default the last (causal models) or none (encoders: the [MASK] positions). */
    logitsAt?: readonly number[];
    /**
     * `false`: no attention weights (`attentions` is null), and the forward resumes from the model's activations
     * cache: with the ids of the model's last forward, layers below the lowest head off are not computed again
     * (`firstLayer` says where it started). `hidden` and `logits` are bit-identical to the whole forward's. Default true.
     */
    attentions?: boolean;
    /**
     * > 0: `thumbnails` [L, H, s, s] with s = min(thumbnail, T): every head's map pooled as the forward computes it,
     * without holding every layer's [H, T, T] (at most 4096). Cell (a, b) covers rows a·T/s to (a+1)·T/s - 1 and the
     * same columns (integer division). The forward then computes every layer. Default 0.
     */
    thumbnail?: number;
    /** A cell's maximum ('max', the default: a sharp weight stays visible) or mean ('mean': a causal map's masked zeros count). */
    pool?: Pool;
  }

  /** How a thumbnail's cell sums its weights: `core.pools`. */
  type Pool = 'max' | 'mean';
  /** How a head is switched off: `core.ablations`. */
  type Ablation = 'zero' | 'mean' | 'resample';

  interface ModelAttentionOptions {
    layer: number;
    /** One head: its [T, T] map; default every head, [1, H, T, T]. */
    head?: number;
    headsOff?: readonly (readonly [number, number])[];
    ablation?: Ablation;
    resampleFrom?: readonly number[];
  }

  interface ModelForwardResult<W extends Tensor | null = Tensor> {
    /** Every layer's attention weights, [L, 1, H, T, T]; `null` with `attentions: false`. */
    attentions: W;
    /** transformers' last_hidden_state, [1, T, D]. */
    hidden: Tensor;
    /** [P, V] at `logitsAt`; `null` without an LM or MLM head. */
    logits: Tensor | null;
    logitsAt: number[];
    trace: ModelTraceStep[];
    /** The first layer this forward computed: 0, or the layer it resumed at from the activations cache. */
    firstLayer: number;
    /** [L, H, s, s] with `thumbnail`, else null. */
    thumbnails: Tensor | null;
    /** [L, H, T] with `writes`: ‖v_j·W_O^h‖, the value vector (bias in) through head h's rows of the output projection. */
    writes: Tensor | null;
  }

  /** Token ids as the checkpoint's tokenizer gives them (special tokens added as `tokenizer(text)` adds them). */
  interface Tokens {
    ids: number[];
    tokens: string[];
  }

  /** A checkpoint loaded by `loadModel`. Its weights live in the core's memory until `dispose()`. */
  interface Model {
    readonly info: Readonly<ModelInfo>;
    /** What of the files the model does not use, in words (tensors of layers past config.json's count); empty when all is used. */
    readonly warnings: readonly string[];
    /** Where a model loaded by its Hub id came from (loadModel({hub})); null for files. */
    readonly hub: Readonly<{
      repo: string;
      revision: string;
      commit: string | null;
      endpoint: string;
      /** Loaded from the store, nothing downloaded. */
      fromStore: boolean;
      /** Kept in the store for the next visit. */
      stored: boolean;
      storeError: string | null;
    }> | null;
    /** Needs tokenizer.json among loadModel's files. */
    tokenize(text: string): Tokens;
    /** ids: 1 to `info.maxPositions` token ids, each below `info.vocab`. */
    forward(
      ids: readonly number[] | Int32Array | Uint32Array,
      options?: ModelForwardOptions & { attentions?: true },
    ): ModelForwardResult<Tensor>;
    forward(
      ids: readonly number[] | Int32Array | Uint32Array,
      options: ModelForwardOptions & { attentions: false },
    ): ModelForwardResult<null>;
    forward(
      ids: readonly number[] | Int32Array | Uint32Array,
      options?: ModelForwardOptions,
    ): ModelForwardResult<Tensor | null>;
    /**
     * One layer's attention at any length, equal bit for bit to the whole forward's `attentions[layer]` (which at
     * long texts would not fit): from the activations cache, one layer's compute after a forward of the same ids.
     */
    attention(ids: readonly number[] | Int32Array | Uint32Array, options: ModelAttentionOptions): Tensor;
    /** True after `dispose()`. */
    readonly disposed: boolean;
    /** Gives the weights' and the activations cache's memory back; the model cannot be used after (again: nothing). */
    dispose(): void;
  }

  /** `torch.manual_seed(seed)`'s CPU stream. Needs `.delete()`. */
  interface Generator {
    /** Reseeds as `torch.manual_seed(seed)`. */
    manualSeed(seed: number): this;
    initialSeed(): number;
    /** `torch.rand(shape)`. */
    rand(shape: readonly number[]): Tensor;
    /** `torch.randn(shape)`. */
    randn(shape: readonly number[]): Tensor;
    /** Frees its wasm memory; the object cannot be used afterwards. */
    delete(): void;
  }
  interface GeneratorConstructor {
    /** @param seed a whole number (default PyTorch's default seed, 67280421310721) */
    new (seed?: number): Generator;
    readonly prototype: Generator;
  }

  interface MultiHeadAttentionOptions {
    dModel: number;
    /** Must divide dModel. */
    numHeads: number;
    /** Default `true`. */
    bias?: boolean;
    /** Dropout on the attention weights in training mode, in [0, 1); default 0. */
    dropout?: number;
    /** Draws the parameters as four nn.Linear (W_q, W_k, W_v, W_o). */
    generator: Generator;
  }

  /** One nn.Linear's parameters: weight [out, in], bias [out] or null. */
  interface LinearParameters {
    weight: Tensor;
    bias: Tensor | null;
  }

  /** `{name: tensor}` named as PyTorch's `state_dict()`. */
  type StateDict = Record<string, Tensor>;
  /** What loadStateDict accepts: an object or a Map of tensors (as stateDict() and loadSafetensors() give). */
  type StateDictLike = Readonly<Record<string, TensorLike>> | ReadonlyMap<string, TensorLike>;

  /** The lessons' MultiHeadAttention. Starts in training mode, as nn.Module. Needs `.delete()`. */
  interface MultiHeadAttention {
    readonly dModel: number;
    readonly numHeads: number;
    /** dModel / numHeads. */
    readonly dK: number;
    /** Whether dropout is active (`train()` / `eval()`). */
    readonly training: boolean;
    /** Self-attention with `forward(x)`; `key` defaults to `query`, `value` to `key`. */
    forward(
      query: TensorLike,
      key?: TensorLike,
      value?: TensorLike,
      options?: WeightsOptions & HeadsOption,
    ): ForwardResult<Tensor>;
    forward(
      query: TensorLike,
      key: TensorLike | undefined,
      value: TensorLike | undefined,
      options: NoWeightsOptions & HeadsOption,
    ): ForwardResult<null>;
    forward(
      query: TensorLike,
      key?: TensorLike,
      value?: TensorLike,
      options?: AttentionOptions & HeadsOption,
    ): ForwardResult<Tensor | null>;
    parameterCount(): number;
    parameters(): { W_q: LinearParameters; W_k: LinearParameters; W_v: LinearParameters; W_o: LinearParameters };
    train(mode?: boolean): this;
    eval(): this;
    /** `W_q.weight`, `W_q.bias`, …, `W_o.bias`. */
    stateDict(): StateDict;
    /** Strict: names every missing, unexpected or mis-shaped entry. */
    loadStateDict(state: StateDictLike): this;
    /** The bytes of a .safetensors file (metadata: format, d_model, num_heads). */
    toSafetensors(): Uint8Array;
    delete(): void;
  }
  interface MultiHeadAttentionConstructor {
    new (options: MultiHeadAttentionOptions): MultiHeadAttention;
    readonly prototype: MultiHeadAttention;
  }

  /** The training tasks of TinyAttentionModel. */
  type Task = 'two-offsets' | 'first-and-previous' | 'reverse' | 'induction' | 'next-larger';

  /** One entry of the core's task table (`M.taskTable`). */
  interface TaskInfo {
    readonly name: Task;
    /** The task's title in the lab. */
    readonly title: string;
    /** One line on what is predicted and what the heads learn. */
    readonly brief: string;
    /** What each readout predicts, e.g. `'x[t−1]'`. */
    readonly readouts: readonly string[];
    /** The role each head is scored for, in order. */
    readonly roles: readonly string[];
    /** Whether a role picks its keys by their tokens rather than their positions (next larger, induction). */
    readonly byContent: boolean;
    readonly defaults: Readonly<ModelConfig>;
    /** The step by which this task's heads usually have their roles (where the lab pauses). */
    readonly goalSteps: number;
  }
  /** A tiny model's settings; the task's defaults fill what is left out (`modelDefaults(task)`). */
  interface TinyAttentionModelOptions {
    /** Default `'two-offsets'`. */
    task?: Task;
    vocab?: number;
    seqLen?: number;
    dModel?: number;
    numHeads?: number;
    /** 1 to 4. */
    layers?: number;
    causal?: boolean;
    generator: Generator;
  }

  /** A model's settings, complete. */
  interface ModelConfig {
    task: Task;
    vocab: number;
    seqLen: number;
    dModel: number;
    numHeads: number;
    layers: number;
    causal: boolean;
  }

  /** Loss and accuracy of a batch. */
  interface StepResult {
    loss: number;
    accuracy: number;
  }

  /** Token ids of one sequence. */
  type TokenIds =
    | readonly number[]
    | Int8Array
    | Uint8Array
    | Int16Array
    | Uint16Array
    | Int32Array
    | Uint32Array
    | Float32Array
    | Float64Array;

  /** A head's best role for its task (`'1 token back'`, `'first token'`, `'mirror'`, `'induction'`, …). */
  interface RoleScore {
    layer: number;
    head: number;
    role: string;
    score: number;
  }

  /** One layer's attention for one sequence: weights [H, T, T]. */
  interface LayerAttention {
    layer: number;
    weights: Tensor;
  }

  type OptimizerName = 'sgd' | 'adam' | 'adamw' | 'SGD' | 'Adam' | 'AdamW';
  /** What activation patching puts in: each head's z ([L, H]), or the residual stream, an attention or an MLP output at each layer and position ([L, T]). */
  type PatchKind = 'heads' | 'resid' | 'attn' | 'mlp';

  /** toPyTorch's options: the script's steps and batch size, and its optimizer (a name with its options, or an optimizer). */
  interface ToPyTorchOptions {
    /** Default 200. */
    steps?: number;
    /** Default 32. */
    batchSize?: number;
    /** Default `'adam'`. */
    optimizer?: OptimizerName | Optimizer;
    /** Decimals of the printed loss; default 4. */
    lossDigits?: number;
    lr?: number;
    momentum?: number;
    dampening?: number;
    nesterov?: boolean;
    betas?: readonly [number, number];
    eps?: number;
    weightDecay?: number;
  }

  /** The core's tiny attention model: embeddings, residual MultiHeadAttention layers, one readout per target. Needs `.delete()`. */
  interface TinyAttentionModel {
    readonly config: Readonly<ModelConfig>;
    /** Draws a batch from the generator, zero_grad, forward, backward, `optimizer.step()`. */
    trainStep(optimizer: Optimizer, options?: { batchSize?: number }): StepResult;
    /** On a batch from its own `Generator(seed)` (default batchSize 256, seed 1); the training stream is untouched. */
    evaluate(options?: { batchSize?: number; seed?: number }): StepResult;
    attention(tokens: TokenIds): LayerAttention[];
    /** The logits [T, V] of each readout. */
    predict(tokens: TokenIds): Tensor[];
    /** Per readout, the task's target at each position of `tokens` (-100 where there is nothing to predict). */
    targets(tokens: TokenIds): number[][];
    /** The sequence of seqLen tokens the lab first shows the heads on (the task's example). */
    example(): number[];
    roleScores(): RoleScore[];
    shapeTrace(seqLen?: number): TraceStep[];
    /** Zeroes that head's output before W_o (forward and backward). */
    ablate(layer: number, head: number, on?: boolean): this;
    parameterCount(): number;
    zeroGrad(): this;
    /** `tok.weight`, `pos.weight`, `layers.0.W_q.weight`, …, `readouts.1.bias`. */
    stateDict(): StateDict;
    loadStateDict(state: StateDictLike): this;
    toSafetensors(): Uint8Array;
    /** The PyTorch script that trains the same model on the same batches and prints the same curve. */
    toPyTorch(options?: ToPyTorchOptions): string;
    delete(): void;
  }
  interface TinyAttentionModelConstructor {
    new (options: TinyAttentionModelOptions): TinyAttentionModel;
    readonly prototype: TinyAttentionModel;
  }

  /** An optimizer's settings as torch.optim's, with its defaults filled in. */
  interface OptimizerSettings {
    kind: 'SGD' | 'Adam' | 'AdamW';
    lr: number;
    momentum: number;
    dampening: number;
    nesterov: boolean;
    beta1: number;
    beta2: number;
    eps: number;
    weightDecay: number;
  }
  /** SGD, Adam or AdamW. Needs `.delete()`. */
  interface Optimizer {
    readonly options: Readonly<OptimizerSettings>;
    readonly model: TinyAttentionModel;
    /** Steps taken. */
    readonly steps: number;
    zeroGrad(): this;
    delete(): void;
  }
  /** torch.optim.SGD's options (defaults lr 1e-3, the rest 0 / false). */
  interface SGDOptions {
    lr?: number;
    momentum?: number;
    dampening?: number;
    nesterov?: boolean;
    weightDecay?: number;
  }
  /** torch.optim.Adam's and AdamW's options (defaults lr 1e-3, betas [0.9, 0.999], eps 1e-8, weightDecay 0; AdamW 1e-2). */
  interface AdamOptions {
    lr?: number;
    betas?: readonly [number, number];
    eps?: number;
    weightDecay?: number;
  }
  interface SGDConstructor {
    new (model: TinyAttentionModel, options?: SGDOptions): Optimizer;
    readonly prototype: Optimizer;
  }
  interface AdamConstructor {
    new (model: TinyAttentionModel, options?: AdamOptions): Optimizer;
    readonly prototype: Optimizer;
  }

  /** A .safetensors file: tensors by name and the `__metadata__` strings. */
  interface SafetensorsFile {
    tensors: Record<string, Tensor>;
    metadata: Record<string, string>;
  }

  /** Lesson 002's parameter counts. */
  interface ParameterScenarios {
    full: number;
    reduced: number;
    actual: number;
    withBias: number;
    withoutBias: number;
  }

  /** Lesson 002's mix demo. */
  interface MixThenSplitResult {
    x0: Tensor;
    W: Tensor;
    /** x0 @ W. */
    q0: Tensor;
    /** W[:, outputIndex]. */
    column: Tensor;
    outputIndex: number;
    /** q0[outputIndex] from the matmul. */
    q0AtIndex: number;
    /** sum_i x0[i] * W[i, outputIndex], by hand. */
    manual: number;
  }

  /** One of lesson 002's hand-built heads. */
  interface HandBuiltHead {
    name: string;
    /** [n, n] */
    logits: Tensor;
    /** [n, n] */
    weights: Tensor;
    /** Each query's top key when its weight is above 0.5. */
    patterns: { from: number; to: number; weight: number }[];
  }

  interface LoopVsVectorizedResult {
    maxAbsDiff: number;
    meanAbsDiff: number;
    vectorized: Tensor;
    loop: Tensor;
  }

  /** Which kernels the build runs: dist/mha-relaxed.js, dist/mha.js, dist/mha-nosimd.js. */
  type Implementation = 'wasmsimd-relaxed' | 'wasmsimd' | 'scalar';

  /** The API one createMhaModule() call resolves with. */
  interface MhaModule {
    Generator: GeneratorConstructor;
    MultiHeadAttention: MultiHeadAttentionConstructor;
    TinyAttentionModel: TinyAttentionModelConstructor;
    SGD: SGDConstructor;
    Adam: AdamConstructor;
    AdamW: AdamConstructor;
    /** A .safetensors file's tensors and metadata; a damaged file throws a message naming what is wrong. */
    readSafetensors(bytes: Uint8Array | ArrayBuffer): SafetensorsFile;
    /** A .safetensors file's tensors, as a state dict. */
    loadSafetensors(bytes: Uint8Array | ArrayBuffer): StateDict;
    /**
     * A Hugging Face checkpoint from its files: config.json and model.safetensors (or model.safetensors.index.json with
     * its shards), tokenizer.json (+ tokenizer_config.json) for `tokenize`. The weights are read in slices straight into
     * the core's memory (F16 and BF16 stay half); a missing or damaged file rejects with a message naming it.
     */
    loadModel(files: Iterable<CheckpointFile> | ArrayLike<CheckpointFile>, options?: LoadModelOptions): Promise<Model>;
    /** A Hub model by its id: its files from the store or the Hub (resumed when a connection drops, kept for the next visit), then loaded. */
    loadModel(source: HubLoadOptions, options?: Omit<HubLoadOptions, 'hub'>): Promise<Model>;
    /** What a Hub model is and needs before it downloads: config.json, each weight file's header (one Range request each), the sizes. */
    previewHubModel(source: HubSource): Promise<HubPreview>;
    /** A Hub model's files as Blobs (from the store, or downloaded and stored), refused before any weight when it cannot load. */
    downloadHubModel(source: HubLoadOptions): Promise<HubDownload>;
    /** The Hub models kept in this browser's store (the Cache API's 'mha-explorer-hub'). */
    storedHubModels(options?: { store?: CacheStorage | false }): Promise<StoredHubModel[]>;
    /** Deletes a stored model ('owner/name@commit'; endpoint: that Hub's copy only), or every one (no id). → whether anything was deleted. */
    deleteStoredHubModel(
      id?: string,
      options?: { store?: CacheStorage | false; endpoint?: string | URL },
    ): Promise<boolean>;
    /** The training tasks. */
    readonly tasks: readonly Task[];
    /** The core's task table, in the order of `tasks`. */
    readonly taskTable: readonly TaskInfo[];
    /** The core's optimizers, as torch.optim's class names (`M.SGD`, `M.Adam`, `M.AdamW`). */
    readonly optimizers: readonly ('SGD' | 'Adam' | 'AdamW')[];
    /** What `model.patch({what})` puts in, as the core's protocol names them. */
    readonly patchKinds: readonly PatchKind[];
    /** The thumbnails' pools (protocol()). */
    readonly pools: readonly Pool[];
    /** The ways `forward`'s `ablation` switches a head off (protocol()). */
    readonly ablations: readonly Ablation[];
    /** The largest sizes the core accepts (its protocol): a module's `dModel` (and `numHeads`), a model's `modelDModel`, `vocab`, `seqLen`, `layers`, a `batch`, a script's `scriptSteps`, `headSpecialization`'s tokens. */
    readonly limits: Readonly<
      Record<
        'dModel' | 'modelDModel' | 'vocab' | 'seqLen' | 'batch' | 'layers' | 'scriptSteps' | 'specializationTokens',
        number
      >
    >;
    modelDefaults(task: Task): ModelConfig;
    readonly implementation: Implementation;
    /** This instance's compiled WebAssembly module: `createMhaModule({wasmModule})` starts another without compiling. */
    readonly wasmModule: WebAssembly.Module;
    /** torch.matmul (broadcast). */
    matmul(a: TensorLike, b: TensorLike): Tensor;
    /** torch.softmax(t, dim); dim default -1. */
    softmax(t: TensorLike, dim?: number): Tensor;
    /** [B, S, D] → [B, H, S, D/H]. */
    splitHeads(t: TensorLike, numHeads: number): Tensor;
    /** [B, H, S, d_k] → [B, S, H·d_k]. */
    mergeHeads(t: TensorLike): Tensor;
    scaledDotProductAttention(
      q: TensorLike,
      k: TensorLike,
      v: TensorLike,
      options?: WeightsOptions,
    ): AttentionResult<Tensor>;
    scaledDotProductAttention(
      q: TensorLike,
      k: TensorLike,
      v: TensorLike,
      options: NoWeightsOptions,
    ): AttentionResult<null>;
    scaledDotProductAttention(
      q: TensorLike,
      k: TensorLike,
      v: TensorLike,
      options?: AttentionOptions,
    ): AttentionResult<Tensor | null>;
    /** MultiHeadAttention.forward's trace without computing; kvLen defaults to seqLen. */
    shapeTrace(config: {
      batch: number;
      seqLen: number;
      dModel: number;
      numHeads: number;
      kvLen?: number;
    }): TraceStep[];
    parameterScenarios(dModel: number, numHeads: number): ParameterScenarios;
    /** Defaults: seed 1, dModel 8, outputIndex 3; a generator replaces the seed. */
    mixThenSplit(config?: {
      seed?: number;
      dModel?: number;
      outputIndex?: number;
      generator?: Generator;
    }): MixThenSplitResult;
    headSpecialization(tokens: readonly string[]): HandBuiltHead[];
    /** Lesson 002's loop over heads against the vectorized module. */
    loopVsVectorized(mha: MultiHeadAttention, x: TensorLike, options?: AttentionOptions): LoopVsVectorizedResult;
    /** PyTorch's message for `.view` on a transposed tensor. */
    viewError(): string;
    /** Bytes of the wasm heap. */
    memoryStats(): { heapUsed: number; heapSize: number };
    /** Threads of the kernels' pool: 1 but in dist/mha-threads.js. */
    readonly threads: number;
    /** Sets the pool's size, at most the threads the module started with; returns the size set. Results do not depend on it. */
    setThreads(n: number): number;
  }
}

export = createMhaModule;

// ---- What heads do to the answer (issue 41: wasm/api/analysis.js, docs/analysis.md) ----------------------------
declare namespace createMhaModule {
  interface GenerateOptions {
    /** Default 20. */
    maxNewTokens?: number;
    /** Any of temperature, topK, topP, seed makes it sample as generate(do_sample=True); none: greedy. */
    temperature?: number;
    /** Default 50 when sampling (transformers' GenerationConfig.top_k); 0 turns it off. */
    topK?: number;
    topP?: number;
    /** torch.manual_seed(seed) before the first draw (default 0). */
    seed?: number;
    /** The end-of-text id: generation stops after it. */
    eos?: number;
    /** After each new token with the 5 most probable it was drawn from; return false to stop. */
    onToken?: (token: { id: number; top: { id: number; prob: number }[] }) => boolean | void;
    signal?: AbortSignal;
  }
  interface GenerateResult {
    /** The new tokens. */
    ids: number[];
    stopped: 'length' | 'eos' | 'positions' | 'stopped' | 'cancelled';
  }
  interface PatchOptions {
    clean: readonly number[];
    corrupted: readonly number[];
    /** [a, b]: the metric is logit[a] - logit[b] at the last position. */
    tokens: readonly [number, number];
    /** Default 'heads' ([L, H]); the others are [L, T]. */
    what?: PatchKind;
    signal?: AbortSignal;
    onProgress?: (progress: { done: number; total: number }) => void;
  }
  interface Attribution {
    /** [L][H]: each head's term (stack_head_results(apply_ln=True) · the token's direction). */
    heads: number[][];
    mlps: number[];
    embed: number;
    biases: number;
    /** The terms' sum: equals `centred`. */
    sum: number;
    logit: number;
    /** The logit minus its mean over the vocabulary (one token), or the difference itself (two). */
    centred: number;
  }
  interface LensRows {
    /** L + 1: the embeddings, then after each layer. */
    readonly rows: number;
    row(l: number): Tensor;
    dispose(): void;
  }
  interface Model {
    generate(ids: readonly number[] | Int32Array | Uint32Array, options?: GenerateOptions): Promise<GenerateResult>;
    /** [L + 1, T, V] logits of the residual stream entering each layer (then leaving the last), through the final norm and the LM head; an encoder's (BERT, DistilBERT) through its MLM head. Throws for a model without a head. */
    lens(ids: readonly number[] | Int32Array | Uint32Array): Tensor;
    /** The lens a row at a time, for texts whose whole lens does not fit: `row(l)` is `lens(ids)`'s [T, V] row `l`; `dispose()` frees the kept residual stream. */
    lensRows(ids: readonly number[] | Int32Array | Uint32Array): LensRows;
    /** (patched - corrupted) / (clean - corrupted). */
    patch(options: PatchOptions): Promise<Tensor>;
    /** Direct logit attribution at `position` (default the last) of one token, or of a difference of two. */
    attribute(
      ids: readonly number[] | Int32Array | Uint32Array,
      options: { position?: number; tokens: readonly number[] },
    ): Attribution;
    /** [L, H]: logit[a] - logit[b] with each head's output replaced by its mean over the positions. */
    meanAblation(
      ids: readonly number[] | Int32Array | Uint32Array,
      options: { tokens: readonly [number, number] },
    ): Tensor;
  }
}
