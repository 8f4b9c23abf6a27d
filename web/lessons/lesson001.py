# Lesson 001 (the self-attention article) as the page shows it: the article's class, then its run ($name: the
# page's values). Each "# %% name" line starts a cell; what stands above the first is this note.
# %% definitions
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

class MultiHeadSelfAttention(nn.Module):
    def __init__(self, embed_size, num_heads):
        super(MultiHeadSelfAttention, self).__init__()
        self.num_heads = num_heads
        self.head_dim = embed_size // num_heads
        assert (
            self.head_dim * num_heads == embed_size
        ), "Embedding size must be divisible by number of heads"
        self.W_q = nn.Linear(embed_size, embed_size)
        self.W_k = nn.Linear(embed_size, embed_size)
        self.W_v = nn.Linear(embed_size, embed_size)
        self.W_o = nn.Linear(embed_size, embed_size)

    def forward(self, X):
        batch_size, seq_length, embed_size = X.shape
        Q = self.W_q(X)
        K = self.W_k(X)
        V = self.W_v(X)
        Q = Q.view(batch_size, seq_length, self.num_heads, self.head_dim).transpose(1, 2)
        K = K.view(batch_size, seq_length, self.num_heads, self.head_dim).transpose(1, 2)
        V = V.view(batch_size, seq_length, self.num_heads, self.head_dim).transpose(1, 2)
        attention_scores = torch.matmul(Q, K.transpose(-2, -1)) / (self.head_dim ** 0.5)
        attention_weights = F.softmax(attention_scores, dim=-1)
        output = torch.matmul(attention_weights, V)
        output = output.transpose(1, 2).contiguous().view(batch_size, seq_length, embed_size)
        return self.W_o(output)

# %% run
torch.manual_seed($seed)  # not in the article: added for reproducibility
X = torch.rand(1, 4, $dmodel)

multi_head_attention = MultiHeadSelfAttention(embed_size=$dmodel, num_heads=$heads)

output = multi_head_attention(X)
print("Multi-Head Attention Output Shape:", output.shape)
