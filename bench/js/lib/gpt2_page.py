"""The model page's folder for bench/js/models-page-speed.js: GPT-2 small (lib/gpt2.py's config.json and
model.safetensors, linked) with a byte-level BPE tokenizer as GPT-2's is built (tests/models/make_checkpoints.py's
train_tokenizer, trained on its corpus: gpt2's own vocabulary is on the hub only), and texts.json: pairs of texts of
exactly T tokens that differ in one letter near the end (a keystroke).

    python gpt2_page.py --model DIR --out DIR [--tokens 128]
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "models"))
from make_checkpoints import CORPUS, train_tokenizer  # noqa: E402

VOCAB = 4096  # at most: the tiny model's embedding has 512 rows


def text_of(tok, T, words):
    """Words of the corpus, in turn, while they fit: a text of exactly T tokens (or None)."""
    text, n = "", 0
    for w in words:
        longer = (text + " " + w) if text else w
        k = len(tok(longer)["input_ids"])
        if k <= T:
            text, n = longer, k
        if n == T:
            return text
    return None


def keystroke(tok, text, T):
    """The text with one letter near its end changed, still T tokens."""
    for i in range(len(text) - 1, 0, -1):
        if text[i].isalpha():
            for c in "aeiou":
                other = text[:i] + c + text[i + 1 :]
                if other != text and len(tok(other)["input_ids"]) == T:
                    return other
    raise SystemExit("no one-letter change keeps %d tokens" % T)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tokens", type=int, nargs="+", default=[128])
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for f in ("config.json", "model.safetensors"):
        link = os.path.join(a.out, f)
        if not os.path.lexists(link):
            os.symlink(os.path.relpath(os.path.join(a.model, f), a.out), link)
    with open(os.path.join(a.model, "config.json")) as f:
        tok = train_tokenizer("gpt2", min(VOCAB, json.load(f)["vocab_size"]))
    tok.save_pretrained(a.out)
    words = " ".join(CORPUS * 20).split()
    texts = {}
    for T in a.tokens:
        text = text_of(tok, T, words)
        if text is None:
            raise SystemExit("the corpus gives no text of %d tokens" % T)
        texts[str(T)] = [text, keystroke(tok, text, T)]
    with open(os.path.join(a.out, "texts.json"), "w") as f:
        json.dump(texts, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
