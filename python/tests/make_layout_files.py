"""Writes .safetensors files in the layouts the page's Load weights takes, each beside a reference file in the
lessons' layout holding the same function, checked here against the original module's own forward.

usage: python make_layout_files.py DIR   (with mha_explorer installed)
  mx_lessons.safetensors      mx.save_weights of the lessons' MultiHeadAttention(32, 4)
  mx_mha.safetensors          mx.save_weights of nn.MultiheadAttention(32, 4)
  mha_raw.safetensors         nn.MultiheadAttention(32, 4)'s own state_dict (in_proj_weight, in_proj_bias, out_proj.*)
  mha_nobias.safetensors      nn.MultiheadAttention(32, 2, bias=False)'s state_dict (no biases at all)
  qproj_nobias.safetensors    q_proj / k_proj / v_proj / o_proj linears without biases
  ref_<name>                  the lessons' names for each, written from the original module's tensors
"""

import os
import sys

import torch
import torch.nn as nn

import mha_explorer as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "torch"))
import safetensors_spec  # noqa: E402
from lessons import MultiHeadAttention000  # noqa: E402


class QProj(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.num_heads = h
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (nn.Linear(d, d, bias=False) for _ in range(4))


def lessons_from(weights, biases):
    m = MultiHeadAttention000(weights[0].shape[0], 1)
    with torch.no_grad():
        for lin, w, b in zip((m.W_q, m.W_k, m.W_v, m.W_o), weights, biases):
            lin.weight.copy_(w)
            lin.bias.copy_(b if b is not None else torch.zeros(w.shape[0]))
    return m


def check(original, reference, heads):
    """The reference (lessons' layout) computes what the original module computes."""
    reference.num_heads, reference.d_k = heads, reference.d_model // heads
    x = torch.rand(2, 5, reference.d_model)
    original.eval()
    with torch.no_grad():
        if isinstance(original, nn.MultiheadAttention):
            want = original(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1))[0].transpose(0, 1)
        else:
            B, S, D = x.shape
            split = lambda t: t.view(B, S, heads, D // heads).transpose(1, 2)
            q, k, v = split(original.q_proj(x)), split(original.k_proj(x)), split(original.v_proj(x))
            w = torch.softmax(q @ k.transpose(-2, -1) / (D // heads) ** 0.5, dim=-1)
            want = original.o_proj((w @ v).transpose(1, 2).reshape(B, S, D))
        got = reference(x, x, x)[0]
    assert torch.allclose(got, want, atol=1e-5), (type(original).__name__, (got - want).abs().max())


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(5)
    lessons = MultiHeadAttention000(32, 4)
    mx.save_weights(lessons, os.path.join(out, "mx_lessons.safetensors"))
    safetensors_spec.save_file(lessons.state_dict(), os.path.join(out, "ref_mx_lessons.safetensors"))

    for name, module in (
        ("mx_mha", nn.MultiheadAttention(32, 4)),
        ("mha_raw", nn.MultiheadAttention(32, 4)),
        ("mha_nobias", nn.MultiheadAttention(32, 2, bias=False)),
    ):
        s = module.state_dict()
        b = s["in_proj_bias"].chunk(3) if "in_proj_bias" in s else (None,) * 3
        ref = lessons_from(
            list(s["in_proj_weight"].chunk(3)) + [s["out_proj.weight"]], list(b) + [s.get("out_proj.bias")]
        )
        check(module, ref, module.num_heads)
        if name.startswith("mx_"):
            mx.save_weights(module, os.path.join(out, name + ".safetensors"))
        else:
            safetensors_spec.save_file(s, os.path.join(out, name + ".safetensors"))
        safetensors_spec.save_file(ref.state_dict(), os.path.join(out, "ref_" + name + ".safetensors"))

    q = QProj(32, 4)
    ref = lessons_from([q.q_proj.weight, q.k_proj.weight, q.v_proj.weight, q.o_proj.weight], [None] * 4)
    check(q, ref, 4)
    safetensors_spec.save_file(q.state_dict(), os.path.join(out, "qproj_nobias.safetensors"))
    safetensors_spec.save_file(ref.state_dict(), os.path.join(out, "ref_qproj_nobias.safetensors"))


if __name__ == "__main__":
    main(sys.argv[1])
