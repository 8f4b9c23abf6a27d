"""mx.save_weights: an attention module's weights as a .safetensors file the explorer's page loads (Load weights),
written here from the format's specification (the safetensors package is not needed).

The file holds the lessons' names, W_q.weight, W_q.bias, …, W_o.bias (float32, [d_model, d_model] and [d_model]),
whatever the module calls them: nn.MultiheadAttention's in_proj_weight / in_proj_bias are split into W_q, W_k,
W_v and out_proj is W_o; q_proj / k_proj / v_proj / o_proj (or out_proj) are renamed; a module without biases
gets zero biases (the same function). Its metadata says num_heads (the page sets its heads from it).

Format: 8-byte little-endian header length N, N bytes of JSON {"__metadata__": {str: str}, name: {"dtype",
"shape", "data_offsets": [begin, end]}}, padded with spaces to a multiple of 8, then the tensors' bytes.
"""

import json
import struct
from pathlib import Path

LINEARS = ("W_q", "W_k", "W_v", "W_o")
ALIASES = {
    "W_q": ("W_q", "q_proj", "query"),
    "W_k": ("W_k", "k_proj", "key"),
    "W_v": ("W_v", "v_proj", "value"),
    "W_o": ("W_o", "o_proj", "out_proj", "dense"),
}


def heads_of(module):
    """The module's number of heads under the names attention modules give it (num_heads, n_heads, h), or None."""
    return getattr(module, "num_heads", None) or getattr(module, "n_heads", None) or getattr(module, "h", None)


def _linears(module):
    """→ ({W_q: (weight, bias or None), …}, num_heads) from the module's own layout."""
    import torch

    nn = torch.nn
    if isinstance(module, nn.TransformerEncoderLayer):
        module = module.self_attn
    state = dict(module.state_dict())
    heads = heads_of(module)
    if isinstance(module, nn.MultiheadAttention):
        if not module._qkv_same_embed_dim:
            w = [state["q_proj_weight"], state["k_proj_weight"], state["v_proj_weight"]]
        else:
            w = list(state["in_proj_weight"].chunk(3, dim=0))
        b = list(state["in_proj_bias"].chunk(3, dim=0)) if "in_proj_bias" in state else [None] * 3
        out = {
            "W_q": (w[0], b[0]),
            "W_k": (w[1], b[1]),
            "W_v": (w[2], b[2]),
            "W_o": (state["out_proj.weight"], state.get("out_proj.bias")),
        }
        return out, module.num_heads
    out = {}
    for name, aliases in ALIASES.items():
        found = next((a for a in aliases if a + ".weight" in state), None)
        if found is None:
            raise ValueError(
                "%s has no %s (nor %s): mx.save_weights saves the lessons' MultiHeadAttention (W_q, W_k, W_v, "
                "W_o), nn.MultiheadAttention, or modules with q_proj/k_proj/v_proj/o_proj; its weights are: %s."
                % (
                    type(module).__name__,
                    name + ".weight",
                    ", ".join(a + ".weight" for a in aliases[1:]),
                    ", ".join(list(state)[:8]) or "none",
                )
            )
        out[name] = (state[found + ".weight"], state.get(found + ".bias"))
    return out, heads


def save_weights(module, path, num_heads=None):
    """Writes module's attention weights to path (.safetensors) for the explorer page's Load weights; returns the path."""
    path = Path(path)
    path.write_bytes(weights_file(module, num_heads)[0])
    return path


def weights_file(module, num_heads=None):
    """module's attention weights as the bytes of a .safetensors file the page loads → (bytes, d_model, num_heads)."""
    try:
        import torch
    except ImportError:
        raise RuntimeError("mx.save_weights needs torch (it saves a torch module's weights).") from None
    if not isinstance(module, torch.nn.Module):
        raise TypeError(
            "%r is not a torch.nn.Module (the lessons' MultiHeadAttention, nn.MultiheadAttention, …)."
            % type(module).__name__
        )
    linears, heads = _linears(module)
    heads = num_heads or heads
    D = linears["W_q"][0].shape[1]
    tensors = {}
    for name in LINEARS:
        w, b = linears[name]
        if tuple(w.shape) != (D, D):
            raise ValueError(
                "%s's %s weight has shape %s; the explorer's module has square [d_model, d_model] = [%d, %d] "
                "projections." % (type(module).__name__, name, list(w.shape), D, D)
            )
        tensors[name + ".weight"] = w
        tensors[name + ".bias"] = b if b is not None else torch.zeros(D)
    if not heads:
        raise ValueError(
            "the number of heads of %s is unknown (it has no num_heads attribute): pass num_heads=."
            % type(module).__name__
        )
    if D % int(heads):
        raise ValueError("num_heads=%d does not divide d_model=%d." % (heads, D))
    return write_safetensors(tensors, {"num_heads": str(int(heads)), "format": "pt"}), D, int(heads)


def write_safetensors(tensors, metadata):
    """{name: torch tensor} (saved as float32) and {str: str} → the file's bytes."""
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().to("cpu").float().contiguous()
        raw = struct.pack("<%df" % t.numel(), *t.reshape(-1).tolist())  # little-endian whatever the host
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)
