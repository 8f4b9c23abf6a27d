"""Writes the .safetensors files the page's "Load weights" is tested with, from real PyTorch modules.

usage: /usr/bin/python3 tests/torch/make_weight_files.py DIR
  lessons_mha.safetensors   the lessons' MultiHeadAttention(32, 4) after torch.manual_seed(3)
  lab_model.safetensors     a 2-layer model with the training lab's state_dict names (d_model 16)
  half.safetensors          the lessons' module (d_model 8) saved as F16
  no_attention.safetensors  only an embedding (tok.weight)
  not_square.safetensors    W_q.weight of shape [32, 16]
  no_bias.safetensors       the lessons' module without W_o.bias
  wrong_shape.safetensors   W_k.weight of shape [16, 16] beside a d_model 32 W_q
  zip.safetensors           a torch.save file renamed (a zip archive, not safetensors)
  notes.safetensors         a text file renamed
  mislabelled.safetensors   a two-offsets lab model (2 readouts) whose metadata says task reverse (1 readout)
  bad_heads.safetensors     the lessons' module (d_model 32) whose metadata says num_heads 3
Files go through tests/torch/safetensors_spec.py, the writer that follows the format's specification.
"""

import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_spec  # noqa: E402


class MultiHeadAttention(nn.Module):  # the lessons' module: only its parameters matter here
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)


class TinyAttentionModel(nn.Module):  # the lab script's names: tok, pos, layers.N, readouts.N
    def __init__(self, vocab, seq_len, d_model, num_heads, layers, readouts):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(seq_len, d_model)
        self.layers = nn.ModuleList([MultiHeadAttention(d_model, num_heads) for _ in range(layers)])
        self.readouts = nn.ModuleList([nn.Linear(d_model, vocab) for _ in range(readouts)])


def main(out):
    os.makedirs(out, exist_ok=True)
    save = lambda state, name: safetensors_spec.save_file(state, os.path.join(out, name))
    torch.manual_seed(3)
    lessons = MultiHeadAttention(32, 4).state_dict()
    save(lessons, "lessons_mha.safetensors")
    torch.manual_seed(5)
    save(TinyAttentionModel(12, 10, 16, 2, 2, 1).state_dict(), "lab_model.safetensors")
    torch.manual_seed(6)
    safetensors_spec.save_file(
        TinyAttentionModel(8, 8, 16, 2, 1, 2).state_dict(),
        os.path.join(out, "mislabelled.safetensors"),
        {
            "format": "pt",
            "task": "reverse",
            "num_heads": "2",
            "layers": "1",
            "d_model": "16",
            "seq_len": "8",
            "vocab": "8",
        },
    )
    safetensors_spec.save_file(lessons, os.path.join(out, "bad_heads.safetensors"), {"format": "pt", "num_heads": "3"})
    torch.manual_seed(7)
    save({k: v.half() for k, v in MultiHeadAttention(8, 2).state_dict().items()}, "half.safetensors")
    save({"tok.weight": torch.zeros(4, 8)}, "no_attention.safetensors")
    save(dict(lessons, **{"W_q.weight": torch.zeros(32, 16)}), "not_square.safetensors")
    save({k: v for k, v in lessons.items() if k != "W_o.bias"}, "no_bias.safetensors")
    save(dict(lessons, **{"W_k.weight": torch.zeros(16, 16)}), "wrong_shape.safetensors")
    with open(os.path.join(out, "zip.safetensors"), "wb") as f:
        f.write(b"PK\x03\x04" + bytes(60))
    with open(os.path.join(out, "notes.safetensors"), "w") as f:
        f.write("W_q: the query projection\n")


if __name__ == "__main__":
    main(sys.argv[1])
