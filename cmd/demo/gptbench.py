# The PyTorch side of `demo --train gpt --bench`: trains the same character
# GPT on the same text, batches and protocol as the Shaderflow side and prints
# one JSON object. Run by the demo with Debian's /usr/bin/python3 (or the
# interpreter $SHADERFLOW_PYTHON names); not a user script.
#
#   python3 gptbench.py TEXTFILE OFFSETS STEPS EVALBATCHES THREADS SEED SIZES
#
# TEXTFILE is the corpus (UTF-8); the vocabulary is its sorted characters,
# the first int(0.9*len) characters train and the rest validate. OFFSETS
# holds little-endian int32 window starts: STEPS*32 into the training part,
# then EVALBATCHES*32 into the validation part (the Shaderflow side drew
# them). SIZES is the model's JSON (vocab, context, layers, heads, model);
# the model is shaderflow_gpt.GPT, written beside this script (the PyTorch
# twin of nn.GPT, shared with cmd/bench). AdamW lr 1e-3, betas (0.9, 0.99), weight
# decay 0.1 on 2-D weights only; linear warm-up over min(100, steps/10)
# steps, cosine to 1e-4 at the last; gradient norm clipped to 1. The clock
# (wall and the process's CPU time) covers the steps after the first.
import json, math, sys, time

try:
    import numpy as np
    import torch
    from torch import nn
    import torch.nn.functional as F
    from shaderflow_gpt import GPT
except ImportError as e:
    print('gptbench: %s' % e, file=sys.stderr)
    sys.exit(77)

BATCH = 32
LR, MIN_LR, DECAY, CLIP, MAX_WARMUP = 1e-3, 1e-4, 0.1, 1.0, 100


def batch(tokens, offs, context):
    idx = offs[:, None] + np.arange(context + 1)[None, :]
    w = torch.from_numpy(tokens[idx].astype(np.int64))
    return w[:, :-1], w[:, 1:]


def main():
    textfile, offsfile = sys.argv[1], sys.argv[2]
    steps, evals, threads, seed = (int(a) for a in sys.argv[3:7])
    sizes = json.loads(sys.argv[7])
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    with open(textfile, encoding='utf-8') as f:
        text = f.read()
    chars = sorted(set(text))
    ids = {c: i for i, c in enumerate(chars)}
    tokens = np.array([ids[c] for c in text], dtype=np.int32)
    n = int(len(tokens) * 0.9)
    train, val = tokens[:n], tokens[n:]
    offs = np.fromfile(offsfile, dtype='<i4').astype(np.int64)
    toffs, voffs = offs[:steps * BATCH].reshape(steps, BATCH), offs[steps * BATCH:].reshape(evals, BATCH)

    if sizes['vocab'] != len(chars):
        raise ValueError('the text has %d distinct characters, the model a vocabulary of %d' % (len(chars), sizes['vocab']))
    model = GPT(sizes)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    plain = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{'params': decay, 'weight_decay': DECAY}, {'params': plain, 'weight_decay': 0.0}],
                            lr=LR, betas=(0.9, 0.99))
    warmup = min(MAX_WARMUP, max(1, steps // 10))

    def lr_at(i):  # the rate of step i (from 0)
        if i < warmup:
            return LR * (i + 1) / warmup
        if i >= steps:
            return MIN_LR
        return MIN_LR + (LR - MIN_LR) * (1 + math.cos(math.pi * (i - warmup) / (steps - warmup))) / 2

    last_from = steps - max(1, steps // 10)
    last = []
    model.train()
    start = None
    for i in range(steps):
        if i == 1:
            start, cpu_start = time.perf_counter(), time.process_time()
        for g in opt.param_groups:
            g['lr'] = lr_at(i)
        x, y = batch(train, toffs[i], sizes['context'])
        loss = F.cross_entropy(model(x).reshape(-1, len(chars)), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        opt.step()
        if i >= last_from:
            last.append(loss.item())
    elapsed = time.perf_counter() - start if steps > 1 else 0.0
    cpu = time.process_time() - cpu_start if steps > 1 else 0.0
    model.eval()
    total = 0.0
    with torch.no_grad():
        for b in range(evals):
            x, y = batch(val, voffs[b], sizes['context'])
            total += F.cross_entropy(model(x).reshape(-1, len(chars)), y.reshape(-1)).item()
    print(json.dumps({'tokens_per_s': (steps - 1) * BATCH * sizes['context'] / elapsed if elapsed > 0 else 0.0,
                      'train_loss': sum(last) / len(last), 'val_loss': total / evals, 'seconds': elapsed,
                      'cpu_seconds': cpu,
                      'threads': torch.get_num_threads(), 'torch': torch.__version__}), flush=True)


main()
