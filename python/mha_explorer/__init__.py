"""MHA Explorer in a notebook: the heads of any attention weights, and of an attention module with the shape
trace of its forward, drawn by the explorer's own attention view, inline and offline.

    import mha_explorer as mx
    mx.show(attn, tokens)                 # [T, S], [H, T, S], [B, H, T, S] or a tuple of per-layer [B, H, T, S]
    mx.show(mha, x, tokens)               # runs the module once: its heads and the trace of its forward
    mx.show(model, tokenizer, text)       # a Hugging Face model: every head of every layer for that text
    mx.Heads(attn, tokens)                # the same view as an anywidget: layer, head, query synced with Python
    mx.show(...).save("heads.html")       # one self-contained HTML file
    mx.save_weights(mha, "mha.safetensors")   # a file the explorer's page loads (Load weights)
    mx.explore(mha, x, tokens)            # the explorer's page in the cell: your module's heads on your x, every control live
    mx.lab(preset="train-two-offsets")    # the training lab in the cell
    mx.explore_model("path/to/gpt2", text)    # the model page: every head of a checkpoint (folder or model), live
"""

from ._explore import PageFrame, explore, lab
from ._model_page import explore_model, explore_model_page
from ._safetensors import save_weights
from ._view import AttentionView, show

__all__ = [
    "show",
    "save_weights",
    "explore",
    "lab",
    "explore_model",
    "explore_model_page",
    "AttentionView",
    "PageFrame",
    "Heads",
]


def __getattr__(name):
    # mx.Heads: the anywidget class, made on first use (importing the package never imports anywidget)
    if name == "Heads":
        from ._widget import heads_class

        return heads_class()
    raise AttributeError("module 'mha_explorer' has no attribute %r" % name)


__version__ = "0.1.0"
