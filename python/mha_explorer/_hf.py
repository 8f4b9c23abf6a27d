"""mx.show(model, tokenizer, text): a Hugging Face transformers model's attentions for one text, in one line.

The model runs once on the tokenizer's ids for the text: eval mode, no gradients, output_attentions=True and
attn_implementation "eager" for that call (SDPA and flash attention compute no weights), each put back afterwards.
Encoder-decoder models give three views: the encoder's self-attention, the decoder's (causal) self-attention and the
cross-attention (decoder queries → encoder keys); the decoder reads `target` (by default the same text). The tokens
are the tokenizer's own (convert_ids_to_tokens)."""

import contextlib


def is_transformers_model(x):
    config = getattr(x, "config", None)
    return config is not None and isinstance(getattr(config, "model_type", None), str) and hasattr(x, "forward")


def _configs(config):
    """The config and its sub-configs (encoder/decoder, text/vision of composite models): each has its own
    attention implementation."""
    out, seen = [], set()

    def walk(c):
        if id(c) in seen:
            return
        seen.add(id(c))
        out.append(c)
        for name in ("encoder", "decoder", "text_config", "vision_config"):
            sub = getattr(c, name, None)
            if sub is not None and hasattr(sub, "model_type"):
                walk(sub)

    walk(config)
    return out


@contextlib.contextmanager
def _eager(model):
    configs = _configs(model.config)
    before = [getattr(c, "_attn_implementation_internal", None) for c in configs]
    for c in configs:
        c._attn_implementation_internal = "eager"
    try:
        yield before[0]
    finally:
        for c, b in zip(configs, before):
            c._attn_implementation_internal = b


@contextlib.contextmanager
def _quiet_transformers():
    """transformers' once-per-process notes (an SDPA module falling back to eager for output_attentions) stay out of
    the cell."""
    try:
        from transformers.utils import logging
    except ImportError:
        yield
        return
    level = logging.get_verbosity()
    logging.set_verbosity_error()
    try:
        yield
    finally:
        logging.set_verbosity(level)


def _encode(tokenizer, text, model, what):
    if not isinstance(text, str):
        raise TypeError("mx.show(model, tokenizer, text): %s must be a string; got a %s." % (what, type(text).__name__))
    enc = tokenizer(text, return_tensors="pt")
    ids = enc["input_ids"]
    config = model.config
    limit = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
    if limit and ids.shape[1] > limit:
        raise ValueError(
            "the %s has %d tokens, but this %s model takes at most %d positions "
            "(config.max_position_embeddings): shorten it." % (what, ids.shape[1], config.model_type, limit)
        )
    return enc


def _check_tokenizer(model, tokenizer):
    if not (callable(tokenizer) and hasattr(tokenizer, "convert_ids_to_tokens")):
        raise TypeError(
            "mx.show(model, tokenizer, text): the second argument must be the model's tokenizer "
            "(AutoTokenizer.from_pretrained of the same checkpoint); got a %s." % type(tokenizer).__name__
        )
    emb = model.get_input_embeddings() if hasattr(model, "get_input_embeddings") else None
    rows = getattr(emb, "num_embeddings", None)
    if rows is not None and len(tokenizer) > rows:
        raise ValueError(
            "the tokenizer does not match the model: it has %d tokens, the model's embedding only %d rows "
            "(%s). Load both from the same checkpoint." % (len(tokenizer), rows, model.config.model_type)
        )


def run_model(model, tokenizer, text, target=None):
    """→ [(title, attentions tuple, key tokens, query tokens or None)]: one entry, or three for an encoder-decoder."""
    import torch

    config = model.config
    _check_tokenizer(model, tokenizer)
    enc = _encode(tokenizer, text, model, "text")
    device = next(model.parameters()).device
    import inspect

    params = inspect.signature(model.forward).parameters
    anything = any(p.kind is p.VAR_KEYWORD for p in params.values())
    inputs = {
        k: v.to(device)
        for k, v in enc.items()
        if k in ("input_ids", "attention_mask", "token_type_ids") and (k in params or anything)
    }
    tokens = tokenizer.convert_ids_to_tokens(enc["input_ids"][0].tolist())
    dec_tokens = None
    if getattr(config, "is_encoder_decoder", False):
        if target is not None:
            labels = tokenizer(text_target=target, return_tensors="pt")["input_ids"]
        else:
            labels = enc["input_ids"]
        if hasattr(model, "prepare_decoder_input_ids_from_labels"):
            dec = model.prepare_decoder_input_ids_from_labels(labels=labels)
        else:
            start = config.decoder_start_token_id
            dec = torch.cat([torch.full_like(labels[:, :1], start), labels[:, :-1]], dim=1)
        inputs["decoder_input_ids"] = dec.to(device)
        dec_tokens = tokenizer.convert_ids_to_tokens(dec[0].tolist())
    elif target is not None:
        raise TypeError(
            "target= is the decoder's text of an encoder-decoder model; this %s model has no decoder "
            "input." % config.model_type
        )
    if "output_attentions" not in params and not anything:
        raise ValueError(
            "this %s model returns no attention weights: its forward takes no output_attentions (a model "
            "without attention layers)." % config.model_type
        )
    was_training = model.training
    model.eval()
    try:
        with _eager(model) as implementation, _quiet_transformers(), torch.no_grad():
            out = model(**inputs, output_attentions=True, return_dict=True)
    finally:
        model.train(was_training)
    kind = config.model_type
    if dec_tokens is not None:
        parts = [
            ("Encoder self-attention (%s)" % kind, "encoder_attentions", tokens, None),
            ("Decoder self-attention, causal (%s)" % kind, "decoder_attentions", dec_tokens, None),
            ("Cross-attention: decoder queries → encoder keys (%s)" % kind, "cross_attentions", tokens, dec_tokens),
        ]
    else:
        parts = [("Self-attention (%s)" % kind, "attentions", tokens, None)]
    views = []
    for title, name, keys, queries in parts:
        att = getattr(out, name, None)
        if att is None or len(att) == 0 or any(a is None for a in att):
            raise ValueError(
                "this %s model computed no attention weights (%s is %s) with attn_implementation %r, even "
                "set to 'eager' for the call: its attention cannot return weights."
                % (kind, name, "empty" if att is not None and len(att) == 0 else "None", implementation)
            )
        views.append((title, tuple(att), keys, queries))
    return views
