"""The lessons' MultiHeadAttention classes as the lessons write them (../shared/lessons/: 000, 002, 003),
copied verbatim (comments trimmed) so the tests run the students' own code."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


# Lesson 000 (Chapter 2.3): a helper, forward(Q, K, V, mask) returning (output, weights)
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float('-inf'))
    attn = F.softmax(scores, dim=-1)
    output = torch.matmul(attn, V)
    return output, attn


class MultiHeadAttention000(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        assert d_model % num_heads == 0, "d_model must be divisible by num_heads"
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)

    def forward(self, Q, K, V, mask=None):
        batch_size = Q.size(0)
        Q = self.W_q(Q).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)
        K = self.W_k(K).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)
        V = self.W_v(V).view(batch_size, -1, self.num_heads, self.d_k).transpose(1, 2)
        attn_output, attn_weights = scaled_dot_product_attention(Q, K, V, mask)
        attn_output = attn_output.transpose(1, 2).contiguous().view(batch_size, -1, self.d_model)
        output = self.W_o(attn_output)
        return output, attn_weights


# Lesson 002 (L04, newer version): forward(q, k, v, mask) returning the output only
class MultiHeadAttention002(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        assert d_model % num_heads == 0, "d_model must be divisible by num_heads"
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)

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
        attn_output = attn_output.transpose(1, 2)
        attn_output = attn_output.contiguous()
        attn_output = attn_output.view(batch_size, -1, self.d_model)
        return self.W_o(attn_output)


# Lesson 003: forward(x, mask) with dropout on the weights and a triu mask where mask == 1 is blocked
class MultiHeadAttention003(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.1):
        super().__init__()
        assert d_model % num_heads == 0, "d_model must be divisible by num_heads"
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        batch_size, seq_len, _ = x.shape
        Q = self.W_q(x)
        K = self.W_k(x)
        V = self.W_v(x)
        Q = Q.view(batch_size, seq_len, self.num_heads, self.d_k).transpose(1, 2)
        K = K.view(batch_size, seq_len, self.num_heads, self.d_k).transpose(1, 2)
        V = V.view(batch_size, seq_len, self.num_heads, self.d_k).transpose(1, 2)
        scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(mask == 1, float('-inf'))
        attention_weights = F.softmax(scores, dim=-1)
        attention_weights = self.dropout(attention_weights)
        context = torch.matmul(attention_weights, V)
        context = context.transpose(1, 2).contiguous().view(batch_size, seq_len, self.d_model)
        output = self.W_o(context)
        return output, attention_weights


# ---- what PyTorch computes for these modules, step by step (the tests' reference, not the package's code) ----

def lesson_weights(m, q_in, k_in=None, mask=None):
    """The softmax weights of a lessons' module, [B, H, T, S]."""
    k_in = q_in if k_in is None else k_in
    B = q_in.shape[0]
    q = m.W_q(q_in).view(B, -1, m.num_heads, m.d_k).transpose(1, 2)
    k = m.W_k(k_in).view(B, -1, m.num_heads, m.d_k).transpose(1, 2)
    return torch.softmax(torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(m.d_k), dim=-1)


def step(t):
    return {"shape": list(t.shape), "strides": list(t.stride()), "contiguous": t.is_contiguous()}


def lesson_trace(m, x):
    """Lesson 004's table, each row a tensor PyTorch makes here."""
    B = x.shape[0]
    q = m.W_q(x)
    split = q.view(B, -1, m.num_heads, m.d_k)
    heads = split.transpose(1, 2)
    v = m.W_v(x).view(B, -1, m.num_heads, m.d_k).transpose(1, 2)
    w = lesson_weights(m, x)
    attended = torch.matmul(w, v)
    back = attended.transpose(1, 2)
    merged = back.contiguous().view(B, -1, m.d_model)
    out = m.W_o(merged)
    return [dict(step(x), op="input"), dict(step(q), op="linear"), dict(step(split), op="view"),
            dict(step(heads), op="transpose"), dict(step(attended), op="attention", weights=list(w.shape)),
            dict(step(back), op="transpose"), dict(step(merged), op="contiguous_view"), dict(step(out), op="linear")]
