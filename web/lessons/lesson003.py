# Lesson 003 (dropout and a triu mask) as the page shows it: the notebook's class, then its run ($name: the page's
# values; $dropout_arg: ", dropout=…" when it is not the class's 0.1). Each "# %% name" line starts a cell; what
# stands above the first is this note.
# %% definitions
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

class MultiHeadAttention(nn.Module):
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

# %% run
torch.manual_seed($seed)  # not in the notebook: added for reproducibility
d_model = $dmodel
num_heads = $heads
batch_size = 2
seq_len = 8

mha = MultiHeadAttention(d_model, num_heads$dropout_arg)
x = torch.randn(batch_size, seq_len, d_model)
mask = torch.triu(torch.ones(seq_len, seq_len), diagonal=1)

output, attn_weights = mha(x, mask=mask)

print(f"Input shape: {x.shape}")
print(f"Output shape: {output.shape}")
print(f"Attention weights shape: {attn_weights.shape}")
print(f"  (batch, num_heads, seq_len, seq_len)")
print()
total_params = sum(p.numel() for p in mha.parameters())
print(f"Multi-Head Attention Parameters:")
print(f"  W_q: {d_model} × {d_model} = {d_model * d_model}")
print(f"  W_k: {d_model} × {d_model} = {d_model * d_model}")
print(f"  W_v: {d_model} × {d_model} = {d_model * d_model}")
print(f"  W_o: {d_model} × {d_model} = {d_model * d_model}")
print(f"  + biases")
print(f"  Total: {total_params:,} parameters")
