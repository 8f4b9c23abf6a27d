# Lessons 002/004 (L04 "Committee of Experts") as the page shows them: the setup every cell needs (the lesson's
# pipeline helpers, its module, which returns the output only, and the loop version; $constructor:
# mha_constructor.py), then one "# %% name" cell per printed example, as the page's code cells. The shape table's
# $B, $S, $D, $H and $seed are the page's values (lesson 004 shows it at the sizes chosen). What stands above the
# first "# %%" line is this note.
# %% setup
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

def split_heads(t, H):
    B, S, D = t.shape
    d_k = D // H
    return t.view(B, S, H, d_k).transpose(1, 2)  # [B,H,S,d_k]

def merge_heads(t):
    B, H, S, d_k = t.shape
    return t.transpose(1, 2).contiguous().view(B, S, H * d_k)  # [B,S,D]

def scaled_dot_attn(qh, kh, vh):
    scores = qh @ kh.transpose(-2, -1) / math.sqrt(qh.shape[-1])  # [B,H,S,S]
    attn = torch.softmax(scores, dim=-1)
    out = attn @ vh  # [B,H,S,d_k]
    return out, attn

$constructor

    def forward(self, q, k, v, mask=None):
        batch_size = q.size(0)
        Q = self.W_q(q).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)
        K = self.W_k(k).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)
        V = self.W_v(v).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)
        scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        attn_weights = torch.softmax(scores, dim=-1)
        attn_output = torch.matmul(attn_weights, V)
        attn_output = attn_output.transpose(1, 2).contiguous().view(batch_size, -1, self.d_model)
        return self.W_o(attn_output)

def mha_forward_loop(mha_module, x, mask=None):
    B, S, D = x.shape
    H = mha_module.num_heads
    d_k = mha_module.d_k
    Qs = mha_module.W_q(x).view(B, S, H, d_k)
    Ks = mha_module.W_k(x).view(B, S, H, d_k)
    Vs = mha_module.W_v(x).view(B, S, H, d_k)
    heads = []
    for h in range(H):
        qh, kh, vh = Qs[:, :, h, :], Ks[:, :, h, :], Vs[:, :, h, :]  # [B,S,d_k]
        scores = qh @ kh.transpose(-2, -1) / math.sqrt(d_k)  # [B,S,S]
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        heads.append(torch.softmax(scores, dim=-1) @ vh)  # [B,S,d_k]
    return mha_module.W_o(torch.cat(heads, dim=-1))  # [B,S,D]

# %% params
d_model = 512
h = 8
d_k = d_model // h
params_if_full = 3 * h * (d_model * d_model)
params_reduced = 3 * h * (d_model * d_k)
params_actual = 3 * (d_model * d_model)
print(f"d_model={d_model}, heads={h}, d_k={d_k}")
print("QKV parameters:")
print(f"  if full dims:     {params_if_full:,}")
print(f"  if reduced dims:  {params_reduced:,}")
print(f"  actual (1 big W): {params_actual:,}")
print(f"  reduced == actual? {params_reduced == params_actual}")

# %% mix
torch.manual_seed(1)
D = 8
x0 = torch.randn(D)
W = torch.randn(D, D)
q0 = x0 @ W
output_idx = 3
print(f"Input vector x0 (shape {x0.shape}):")
print(x0)
print()
print(f"Mix matrix W (shape {W.shape}):")
print(W)
print()
print(f"Output vector q0 = x0 @ W (shape {q0.shape}):")
print(q0)
print()
print(f"--- Verifying q0[{output_idx}] uses ALL input dimensions ---")
print(f"q0[{output_idx}] = {q0[output_idx].item():.4f}")
print()
print(f"W[:, {output_idx}] (weights for output dimension {output_idx}):")
print(W[:, output_idx])
print()
manual = (x0 * W[:, output_idx]).sum()
print(f"Manual calculation: sum of (x0[i] * W[i,{output_idx}]) for ALL i from 0 to {D-1}")
print(f"                  = {manual.item():.4f}")

# %% pipeline
torch.manual_seed(1)
_ = torch.randn(8), torch.randn(8, 8)  # the mix-then-split draws: the lesson continues that stream
B, S, D, H = 2, 4, 8, 2
x = torch.randn(B, S, D)
Wq = torch.randn(D, D)
Wk = torch.randn(D, D)
Wv = torch.randn(D, D)
Wo = torch.randn(D, D)
q, k, v = x @ Wq, x @ Wk, x @ Wv
qh, kh, vh = split_heads(q, H), split_heads(k, H), split_heads(v, H)
print(f"  After split: {qh.shape} = [B, H, S, d_k]")
out_h, attn = scaled_dot_attn(qh, kh, vh)
print(f"  Attention weights: {attn.shape} = [B, H, S, S]")
print(f"  Head outputs: {out_h.shape} = [B, H, S, d_k]")
print(f"  Example: Attention weights from batch 0, head 0:")
print(f"  {attn[0, 0]}")
concat = merge_heads(out_h)
print(f"  After concat: {concat.shape} = [B, S, D]")
y = concat @ Wo
print(f"  Final output: {y.shape} = [B, S, D]")

# %% heads
tokens = ["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "soft"]
n_tokens = len(tokens)
print("Sentence:", " ".join(tokens))
print(f"Tokens: {n_tokens}")

# hand-built logits, not learned: (query, key, logit) pairs; every other token 5.0 on itself
heads = [("Semantic Expert", [("it", "mat", 8.0), ("soft", "mat", 6.0)]),
         ("Syntactic Expert", [("sat", "cat", 8.0), ("cat", "sat", 6.0)])]
for n, (name, pairs) in enumerate(heads, start=1):
    logits = torch.zeros(n_tokens, n_tokens)
    for query, key, value in pairs:
        logits[tokens.index(query), tokens.index(key)] = value
    for i in range(n_tokens):
        if tokens[i] not in [query for query, _, _ in pairs]:
            logits[i, i] = 5.0
    weights = F.softmax(logits, dim=-1)
    print()
    print(f"HEAD {n}: {name}")
    print()
    print(f"Key patterns in Head {n}:")
    for i, token in enumerate(tokens):
        max_attn_idx = torch.argmax(weights[i]).item()
        max_attn_val = weights[i, max_attn_idx].item()
        if max_attn_val > 0.5:
            print(f"  '{token}' → '{tokens[max_attn_idx]}' ({max_attn_val:.2f})")

# %% shapes
torch.manual_seed($seed)
B, S, D, H = $B, $S, $D, $H
d_k = D // H
mha = MultiHeadAttention(d_model=D, num_heads=H)
x = torch.randn(B, S, D)
rows = [("Input x", x.shape)]
Q = mha.W_q(x);                rows.append(("After W_q(x)", Q.shape))
Q = Q.view(B, S, H, d_k);      rows.append((f"After .view({B}, {S}, {H}, {d_k})", Q.shape))
Q = Q.transpose(1, 2);         rows.append(("After .transpose(1, 2)", Q.shape))
K = mha.W_k(x).view(B, S, H, d_k).transpose(1, 2)
V = mha.W_v(x).view(B, S, H, d_k).transpose(1, 2)
out = torch.softmax(Q @ K.transpose(-2, -1) / math.sqrt(d_k), dim=-1) @ V
rows.append(("Attention computation", out.shape))
out = out.transpose(1, 2);     rows.append(("After .transpose(1, 2)", out.shape))
out = out.contiguous().view(B, S, D);  rows.append((f"After .contiguous().view({B}, {S}, {D})", out.shape))
y = mha.W_o(out);              rows.append(("After W_o(x)", y.shape))
w = max(len("Operation"), *(len(label) for label, _ in rows))
print(f"{'Operation':<{w}}  Shape")
for label, shape in rows:
    print(f"{label:<{w}}  {list(shape)}")

# %% contiguous
x_demo = torch.randn(2, 3, 4)
x_t = x_demo.transpose(1, 2)  # changes strides, does not move data
print("x_t.is_contiguous():", x_t.is_contiguous())
try:
    _ = x_t.view(2, 12)
    print("view() worked (unexpected in some layouts)")
except RuntimeError as e:
    print("view() failed as expected:", e)
x_c = x_t.contiguous()
print("x_c.is_contiguous():", x_c.is_contiguous())
print("x_c.view(2, 12).shape:", x_c.view(2, 12).shape)

# %% module
torch.manual_seed(0)
mha = MultiHeadAttention(d_model=32, num_heads=4)
x_in = torch.randn(2, 5, 32)
print(f"Input shape: {x_in.shape} = [Batch, Seq, D_model]")
y_out = mha(x_in, x_in, x_in)
print(f"Output shape: {y_out.shape} = [Batch, Seq, D_model]")
diff = (y_out - x_in).abs().mean().item()
print(f"✓ Output differs from input (mean abs diff: {diff:.4f})")
total_params = sum(p.numel() for p in mha.parameters())
print(f"✓ Total parameters: {total_params:,}")

# %% loop
torch.manual_seed(123)
mha = MultiHeadAttention(d_model=32, num_heads=4)
x_in = torch.randn(2, 6, 32)
y_vec = mha(x_in, x_in, x_in)
y_loop = mha_forward_loop(mha, x_in)
max_diff = (y_vec - y_loop).abs().max().item()
mean_diff = (y_vec - y_loop).abs().mean().item()
print(f"Difference between implementations:")
print(f"  Max absolute diff: {max_diff:.10f}")
print(f"  Mean absolute diff: {mean_diff:.10f}")
print(f"  Results match: {torch.allclose(y_vec, y_loop, atol=1e-6)}")

# %% causal
torch.manual_seed(123)
_ = MultiHeadAttention(d_model=32, num_heads=4), torch.randn(2, 6, 32)  # the loop example: the lesson continues its stream
B, S, D = 2, 6, 32
mha = MultiHeadAttention(d_model=D, num_heads=4)
x_in = torch.randn(B, S, D)
causal = torch.tril(torch.ones(S, S)).unsqueeze(0).unsqueeze(1)
print(f"Causal mask shape: {causal.shape} (will broadcast to [B, H, S, S])")
print(f"Causal mask (first 4x4 for visualization):")
print(causal[0, 0, :4, :4].int())
y_masked = mha(x_in, x_in, x_in, mask=causal)  # masked_fill(mask == 0, -1e9)
y_unmasked = mha(x_in, x_in, x_in, mask=None)
print()
print(f"Masked output: {y_masked.shape}")
print(f"Unmasked output: {y_unmasked.shape}")
print()
diff = (y_masked - y_unmasked).abs().mean().item()
print(f"Mean absolute difference: {diff:.4f}")
