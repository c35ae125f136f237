"""Exports small models with PyTorch's own ONNX exporter, with random
weights, and saves each model's inputs and PyTorch's outputs beside it as
TensorProto files (input_0.pb, output_0.pb, ...), the layout of ONNX's
backend test data. Run by the onnx package's tests:

    python3 export.py OUTDIR [NAME ...]
"""
import math
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

torch.manual_seed(0)
np.random.seed(0)


def randomize_norms(model):
    """Gives normalization layers random statistics and affine parameters,
    so that normalization is not close to the identity (and the exporter
    does not merge their equal initial weights into one initializer)."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
        if isinstance(m, (nn.BatchNorm2d, nn.LayerNorm)):
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)
    return model


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(16, 32)
        self.l2 = nn.Linear(32, 32)
        self.l3 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.l1(x))
        x = torch.tanh(self.l2(x))
        return F.log_softmax(self.l3(x), dim=-1)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=2)
        self.c3 = nn.Conv2d(16, 16, 1)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.c1(x))), 2)
        x = F.leaky_relu(self.c2(x), 0.1)
        x = F.pad(x, (1, 0, 0, 1), mode="reflect")
        x = F.avg_pool2d(x, 2, stride=1)
        x = torch.sigmoid(self.c3(x)) * F.relu6(x)
        x = torch.flatten(x, 1)
        x = x[:, : 16 * 4 * 4]
        return torch.clamp(self.fc(x), min=-3.0, max=3.0)


class WideConvs(nn.Module):
    """3×3 convolutions of 128 channels and more on 28×28 images, which
    Shaderflow's CPU backend computes by Winograd's F(2×2, 3×3)."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(128, 128, 3, padding=1)
        self.bn = nn.BatchNorm2d(128)
        self.c2 = nn.Conv2d(128, 160, 3, padding=1, bias=False)

    def forward(self, x):
        return self.c2(F.relu(self.bn(self.c1(x))))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.size()
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, h, d // h).transpose(1, 2)
        k = k.view(b, t, h, d // h).transpose(1, 2)
        v = v.view(b, t, h, d // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(k.size(-1))
        mask = torch.tril(torch.ones(t, t, device=x.device)) == 0
        att = att.masked_fill(mask, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab=40, d=32, heads=4, layers=2, ctx=32):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.Sequential(*[Block(d, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        x = self.blocks(x)
        return self.head(self.ln(x))


class Encoder(nn.Module):
    def __init__(self, vocab=40, d=32):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, 4, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.out = nn.Linear(d, vocab)

    def forward(self, idx):
        t = idx.size(1)
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        return self.out(self.enc(self.tok(idx), mask=mask))


def resnet18():
    import torchvision

    m = torchvision.models.resnet18(num_classes=10)
    randomize_norms(m)
    return m


def save(dirname, name, arrays):
    for i, a in enumerate(arrays):
        t = numpy_helper.from_array(np.ascontiguousarray(a), name)
        with open(os.path.join(dirname, "%s_%d.pb" % (name, i)), "wb") as f:
            f.write(t.SerializeToString())


def export(outdir, name, model, inputs, opset, training=False, dynamic=None, grads=()):
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    if training:
        model.train()
    else:
        model.eval()
    path = os.path.join(d, "model.onnx")
    names = ["input_%d" % i for i in range(len(inputs))]
    mode = torch.onnx.TrainingMode.TRAINING if training else torch.onnx.TrainingMode.EVAL
    torch.onnx.export(model, tuple(inputs), path, opset_version=opset, input_names=names,
                      output_names=["output_0"], training=mode,
                      do_constant_folding=not training, dynamic_axes=dynamic)
    onnx.checker.check_model(onnx.load(path))
    save(d, "input", [x.numpy() for x in inputs])
    model.zero_grad()
    out = model(*inputs)
    save(d, "output", [out.detach().numpy()])
    if grads:
        # The gradient of sum(out * w) for a fixed random w, for fine-tuning tests.
        w = torch.from_numpy(np.random.RandomState(1).standard_normal(out.shape).astype(np.float32))
        (out * w).sum().backward()
        save(d, "weight", [w.numpy()])
        params = dict(model.named_parameters())
        for g in grads:
            save(d, "grad." + g, [params[g].grad.numpy()])


def main():
    outdir = sys.argv[1]
    want = set(sys.argv[2:])
    torch.set_num_threads(1)
    tokens = torch.randint(0, 40, (2, 12), dtype=torch.long)
    seq = {"input_0": {0: "batch", 1: "seq"}, "output_0": {0: "batch", 1: "seq"}}
    models = {
        "mlp": lambda: export(outdir, "mlp", MLP(), [torch.randn(4, 16)], 13,
                              dynamic={"input_0": {0: "batch"}, "output_0": {0: "batch"}}),
        "cnn": lambda: export(outdir, "cnn", randomize_norms(CNN()), [torch.randn(2, 3, 16, 16)], 13),
        "resnet18": lambda: export(outdir, "resnet18", resnet18(), [torch.randn(2, 3, 32, 32)], 13),
        "resnet18_train": lambda: export(outdir, "resnet18_train", resnet18(), [torch.randn(4, 3, 64, 64)], 15,
                                         training=True, grads=["conv1.weight", "fc.weight", "fc.bias", "layer4.1.bn2.weight"]),
        "gpt": lambda: export(outdir, "gpt", randomize_norms(GPT()), [tokens], 17, dynamic=seq,
                              grads=["tok.weight", "blocks.0.qkv.bias", "ln.bias"]),
        "encoder": lambda: export(outdir, "encoder", randomize_norms(Encoder()), [tokens], 14, dynamic=seq),
        # Last: the exports draw from one random stream in this order, so a model
        # placed before others would change their weights.
        "wideconvs": lambda: export(outdir, "wideconvs", randomize_norms(WideConvs()), [torch.randn(4, 128, 28, 28)], 13),
        "resnet18_224": lambda: export(outdir, "resnet18_224", resnet18(), [torch.randn(1, 3, 224, 224)], 13,
                                       dynamic={"input_0": {0: "batch"}, "output_0": {0: "batch"}}),
    }
    for name, f in models.items():
        if want and name not in want:
            continue
        if not want and name == "resnet18_224":
            continue
        f()


if __name__ == "__main__":
    main()
