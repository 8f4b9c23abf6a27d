"""A tiny GPT-2 with 1024 positions (tests/browser/models-long.test.mjs): 4 layers x 4 heads, d_model 256, random
weights as transformers initialises them (seed 0), saved by save_pretrained with the tokenizer of build/models/gpt2.
Usage: python long_gpt2.py OUT TOKENIZER_FOLDER"""

import shutil
import sys
from pathlib import Path

import torch
from transformers import GPT2Config, GPT2LMHeadModel

out, tokenizer = Path(sys.argv[1]), Path(sys.argv[2])
torch.manual_seed(0)
config = GPT2Config(vocab_size=512, n_positions=1024, n_embd=256, n_layer=4, n_head=4, bos_token_id=0, eos_token_id=0)
GPT2LMHeadModel(config).eval().save_pretrained(out, safe_serialization=True)
for name in ("tokenizer.json", "tokenizer_config.json"):
    shutil.copy(tokenizer / name, out / name)
