# The page's tokenizer and token embeddings (web/compute/explorer-run.js) in Python: the same tokens, the same vectors.
# tests/node/tokenizer.test.mjs runs this file against explorer-run.js's tokenize() on every code point.
# %% tokenizer
# MHA Explorer's tokenizer and token embeddings, exactly as the page computes them
import unicodedata

def tokenize(text):
    # a token: a run of letters, marks, digits and "_" (inner apostrophes kept, as in "didn't"),
    # or one punctuation mark or symbol; spaces, control and format characters separate tokens
    text = unicodedata.normalize("NFC", text)
    kind = lambda c: "w" if c == "_" or unicodedata.category(c)[0] in "LMN" else "p" if unicodedata.category(c)[0] in "PS" else " "
    tokens, i, n = [], 0, len(text)
    while i < n:
        k, j = kind(text[i]), i + 1
        if k == "w":
            while j < n and (kind(text[j]) == "w" or (text[j] == "'" and j + 1 < n and kind(text[j + 1]) == "w")):
                j += 1
        if k != " ":
            tokens.append(text[i:j])
        i = j
    return tokens

def fnv1a32(s):
    h = 0x811C9DC5
    for b in s.encode("utf-8"):
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h

def embed(tokens, seed, d_model, positions=True):
    rows = [torch.randn(d_model, generator=torch.Generator().manual_seed(fnv1a32(f"{seed}:{t}")))
            for t in tokens]
    x = torch.stack(rows).unsqueeze(0)  # [1, S, D]
    if positions:
        S = len(tokens)
        pos = torch.arange(S, dtype=torch.float64).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(S, d_model, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)[:, : d_model // 2]
        x = x + pe.float()
    return x
