"""Writes transformer.safetensors: torch 1.13 modules' state dicts, inputs,
outputs and gradients for nn's MultiheadAttention and TransformerEncoderLayer
tests. Run from this directory: /usr/bin/python3 transformer.py

Names are "<case>.<state_dict name>" for weights and "<case>:<what>" for
inputs ("x", "q", "k", "v", "kpm", "mask", "w"), outputs ("out", "weights")
and gradients ("grad.<name>") of sum(out * w). Outputs are computed with
autograd on, which keeps torch off its inference fast paths (they return
zeros, not the math path's values, at padded positions).
"""
import json
import struct

import numpy as np
import torch

DT = {np.float32: 'F32', np.bool_: 'BOOL'}
out = {}


def put(name, t):
    out[name] = t.detach().contiguous().numpy()


def run_mha(case, embed, heads, batch_first, q, k, v, kpm=None, mask=None, average=True):
    torch.manual_seed(len(out))
    m = torch.nn.MultiheadAttention(embed, heads, dropout=0.1, batch_first=batch_first)
    with torch.no_grad():  # non-zero biases, so that loading them is tested
        m.in_proj_bias.uniform_(-0.5, 0.5)
        m.out_proj.bias.uniform_(-0.5, 0.5)
    m.eval()
    for n, p in m.state_dict().items():
        put(f'{case}.{n}', p)
    self_attn = k is None
    if self_attn:
        k = v = q
    y, w = m(q, k, v, key_padding_mask=kpm, attn_mask=mask, need_weights=True, average_attn_weights=average)
    g = torch.randn(y.shape)
    (y * g).sum().backward()
    put(f'{case}:q', q)
    if not self_attn:
        put(f'{case}:k', k)
        put(f'{case}:v', v)
    for n, t in (('kpm', kpm), ('mask', mask)):
        if t is not None:
            put(f'{case}:{n}', t)
    put(f'{case}:w', g)
    put(f'{case}:out', y)
    put(f'{case}:weights', w)
    put(f'{case}:grad.in_proj_weight', m.in_proj_weight.grad)


def run_encoder(case, batch_first, norm_first, activation, x, kpm=None, mask=None):
    torch.manual_seed(len(out))
    m = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, activation=activation,
                                         batch_first=batch_first, norm_first=norm_first)
    with torch.no_grad():
        for n, p in m.named_parameters():
            if n.startswith('norm') or n.endswith('bias'):
                p.uniform_(0.5 if n.endswith('weight') else -0.5, 1.5 if n.endswith('weight') else 0.5)
    m.eval()
    for n, p in m.state_dict().items():
        put(f'{case}.{n}', p)
    x = x.clone().requires_grad_(True)
    y = m(x, src_mask=mask, src_key_padding_mask=kpm)
    g = torch.randn(y.shape)
    (y * g).sum().backward()
    put(f'{case}:x', x)
    for n, t in (('kpm', kpm), ('mask', mask)):
        if t is not None:
            put(f'{case}:{n}', t)
    put(f'{case}:w', g)
    put(f'{case}:out', y)
    put(f'{case}:grad.x', x.grad)
    put(f'{case}:grad.linear1.weight', m.linear1.weight.grad)
    put(f'{case}:grad.self_attn.in_proj_weight', m.self_attn.in_proj_weight.grad)


torch.manual_seed(0)
pad = torch.tensor([[False, False, False, True, True], [False, False, False, False, False], [False, True, False, True, False]])
causal_bool = torch.ones(5, 5, dtype=torch.bool).triu(1)
causal_float = torch.zeros(5, 5).masked_fill(causal_bool, float('-inf'))
run_mha('mha_cross', 8, 2, False, torch.randn(4, 3, 8), torch.randn(5, 3, 8), torch.randn(5, 3, 8),
        kpm=pad, mask=torch.randn(4, 5))
run_mha('mha_self_causal', 8, 4, True, torch.randn(2, 5, 8), None, None, mask=causal_bool, average=False)
run_mha('mha_unbatched', 6, 3, False, torch.randn(5, 6), None, None, kpm=torch.tensor([False, True, False, False, True]))
run_encoder('enc_post_relu', True, False, 'relu', torch.randn(3, 5, 8), kpm=pad)
run_encoder('enc_pre_gelu', False, True, 'gelu', torch.randn(5, 2, 8), mask=causal_float)

hdr, blobs, off = {}, [], 0
for k in sorted(out):
    a = out[k]
    raw = a.tobytes()
    hdr[k] = {'dtype': DT[a.dtype.type], 'shape': list(a.shape), 'data_offsets': [off, off + len(raw)]}
    off += len(raw)
    blobs.append(raw)
h = json.dumps(hdr, separators=(',', ':')).encode()
h += b' ' * ((8 - len(h) % 8) % 8)
with open('transformer.safetensors', 'wb') as f:
    f.write(struct.pack('<Q', len(h)) + h + b''.join(blobs))
