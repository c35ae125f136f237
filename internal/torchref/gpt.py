# The PyTorch twin of Shaderflow's nn.GPT, shared by the scripts that compare
# with PyTorch (cmd/demo's gptbench.py, cmd/bench's torch_bench.py), which
# import it from the file the Go side writes beside them. SIZES is the JSON
# object of nn.GPTConfig that torchref.GPTSizes writes: vocab, context,
# layers, heads, model.
#
# Token and learned position embeddings, `layers` blocks of
# nn.TransformerEncoderLayer(model, heads, 4*model, dropout 0, gelu,
# batch_first, norm_first) with the causal -inf mask, a final LayerNorm and
# a head without bias, so the parameter names are those of nn.GPT's state;
# GPT-2's initialization (weights N(0, 0.02), out_proj and linear2
# N(0, 0.02/sqrt(2*layers)), biases 0, LayerNorms 1 and 0).
import math

import torch
from torch import nn


class GPT(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        vocab, context, layers, heads, model = (sizes[k] for k in ('vocab', 'context', 'layers', 'heads', 'model'))
        self.context = context
        self.wte = nn.Embedding(vocab, model)
        self.wpe = nn.Embedding(context, model)
        self.h = nn.ModuleList([
            nn.TransformerEncoderLayer(model, heads, 4 * model, 0.0, 'gelu', batch_first=True, norm_first=True)
            for _ in range(layers)])
        self.ln_f = nn.LayerNorm(model)
        self.lm_head = nn.Linear(model, vocab, bias=False)
        self.register_buffer('mask', torch.triu(torch.full((context, context), float('-inf')), 1))
        residual = 0.02 / math.sqrt(2 * layers)
        for name, p in self.named_parameters():
            if name.endswith('bias'):
                nn.init.zeros_(p)
            elif name.startswith('ln_f') or '.norm' in name:
                nn.init.ones_(p)
            elif name.endswith('out_proj.weight') or name.endswith('linear2.weight'):
                nn.init.normal_(p, 0, residual)
            else:
                nn.init.normal_(p, 0, 0.02)

    def forward(self, x):
        t = x.shape[1]
        z = self.wte(x) + self.wpe.weight[:t]
        for block in self.h:
            z = block(z, src_mask=self.mask[:t, :t])
        return self.lm_head(self.ln_f(z))
