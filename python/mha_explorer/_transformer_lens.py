"""TransformerLens's ActivationCache in mx.show: its attention patterns (blocks.{l}.attn.hook_pattern, [B, H, T, S]
each, every layer it holds) shown as transformers' outputs.attentions are, with the model's tokens as labels.
TransformerLens is never imported here: the cache is recognised by its type's name and module."""

import re

_PATTERN = re.compile(r"^blocks\.(\d+)\.attn\.hook_pattern$")


def is_activation_cache(x):
    t = type(x)
    return t.__name__ == "ActivationCache" and t.__module__.split(".")[0] == "transformer_lens"


def _patterns(cache):
    """The per-layer patterns, layer 0 first; a ValueError naming what is missing."""
    layers = {}
    for key in cache.keys():
        m = _PATTERN.match(key)
        if m:
            layers[int(m.group(1))] = cache[key]
    if not layers:
        raise ValueError(
            "this ActivationCache holds no attention pattern (blocks.{l}.attn.hook_pattern): run "
            "model.run_with_cache(tokens) without names_filter, or with one that keeps 'hook_pattern'."
        )
    missing = [l for l in range(max(layers) + 1) if l not in layers]
    if missing:
        raise ValueError(
            "this ActivationCache holds the attention patterns of layers %s but not of %s: mx.show labels layers "
            "from 0, so keep every layer's hook_pattern (names_filter=lambda n: n.endswith('hook_pattern'))."
            % (sorted(layers), missing)
        )
    return tuple(layers[l] for l in range(len(layers)))


def _labels(cache, tokens):
    """tokens as given (a list of strings), or the cache's model's to_str_tokens of a text or of token ids."""
    if tokens is None or isinstance(tokens, (list, tuple)) and all(isinstance(t, str) for t in tokens):
        return tokens
    model = getattr(cache, "model", None)
    if model is None or not hasattr(model, "to_str_tokens"):
        raise TypeError(
            "mx.show(cache, tokens): tokens is a list of strings here (this cache has no model to read a text "
            "or token ids with)."
        )
    if hasattr(tokens, "ndim") and tokens.ndim == 2:
        if tokens.shape[0] != 1:
            raise ValueError(
                "mx.show(cache, tokens): tokens has %d rows; give one row (tokens[0]) or the strings, one "
                "label per position." % tokens.shape[0]
            )
        tokens = tokens[0]
    return list(model.to_str_tokens(tokens))


def read_cache(cache, tokens):
    """(the patterns as a tuple of per-layer [B, H, T, S], the labels) of a TransformerLens ActivationCache."""
    return _patterns(cache), _labels(cache, tokens)
