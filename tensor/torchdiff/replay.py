"""Replays torchdiff programs in PyTorch.

Reads {"programs": [...]} (see program.go) on stdin and writes one JSON
result per program, in order, as {"results": [...]} on stdout. Every program
runs twice, in float32 and in float64: the first is the value Shaderflow is
compared with, the distance between the two measures how much the program
amplifies rounding. Arrays travel as base64 little-endian floats so that NaN
and infinities survive JSON.
"""

import base64
import json
import sys
import traceback

import numpy as np
import torch
import torch.nn.functional as F

torch.set_num_threads(1)


def decode(s, shape):
    a = np.frombuffer(base64.b64decode(s), dtype="<f4").copy()
    return torch.from_numpy(a).reshape(shape)


def encode(t, dtype):
    a = t.detach().contiguous().reshape(-1).numpy().astype(dtype)
    return base64.b64encode(a.tobytes()).decode("ascii")


def run(p, dtype):
    """Runs program p in dtype; returns output, input gradients and a flag
    telling whether a max, min, maximum or minimum met a tie, where the
    gradient is a convention."""
    leaves = [decode(i["data"], i["shape"]).to(dtype).requires_grad_(True) for i in p["inputs"]]
    vals = []
    # tie is set where the gradient of a max, min, maximum, minimum or relu
    # is a convention rather than a derivative: operands that tie, a NaN
    # operand (PyTorch sends the gradient to the other one, Shaderflow to
    # the NaN), a NaN or infinite incoming gradient (PyTorch masks it to zero
    # for the unselected operand, Shaderflow multiplies it by zero, giving
    # NaN), or a NaN relu input. See docs/pytorch-differences.md.
    tie = [False]

    def select(v, *operands):
        if any(bool(o.isnan().any()) for o in operands):
            tie[0] = True
        if v.requires_grad:
            def hook(g):
                if not bool(g.isfinite().all()):
                    tie[0] = True
            v.register_hook(hook)
    for s in p["steps"]:
        op = s["op"]
        a = s.get("args", [])
        ints = s.get("ints", [])
        fl = s.get("floats", [])
        keep = s.get("keep", False)
        x = vals[a[0]] if a else None
        y = vals[a[1]] if len(a) > 1 else None
        if op == "input":
            v = leaves[ints[0]]
        elif op == "neg":
            v = -x
        elif op == "abs":
            v = x.abs()
        elif op == "exp":
            v = x.exp()
        elif op == "log":
            v = x.log()
        elif op == "sqrt":
            v = x.sqrt()
        elif op == "rsqrt":
            v = x.rsqrt()
        elif op == "reciprocal":
            v = x.reciprocal()
        elif op == "sigmoid":
            v = x.sigmoid()
        elif op == "tanh":
            v = x.tanh()
        elif op == "relu":
            v = x.relu()
            # At a NaN input PyTorch's Relu passes the gradient on (its mask
            # is result <= 0, false for NaN) and Shaderflow's gives zero; see
            # docs/pytorch-differences.md.
            if bool(x.isnan().any()):
                tie[0] = True
        elif op == "sin":
            v = x.sin()
        elif op == "cos":
            v = x.cos()
        elif op == "erf":
            v = x.erf()
        elif op == "gelu":
            v = F.gelu(x)
        elif op == "silu":
            v = F.silu(x)
        elif op == "square":
            v = x.pow(2)
        elif op == "logabs":
            v = (x.abs() + 0.25).log()
        elif op == "sqrtabs":
            v = (x.abs() + 0.25).sqrt()
        elif op == "addscalar":
            v = x + fl[0]
        elif op == "mulscalar":
            v = x * fl[0]
        elif op == "rsubscalar":
            v = fl[0] - x
        elif op == "divscalar":
            v = x / fl[0]
        elif op == "powscalar":
            v = x.pow(fl[0])
        elif op == "clamp":
            v = x.clamp(fl[0], fl[1])
        elif op == "expm1":
            v = x.expm1()
        elif op == "log1pabs":
            v = x.abs().log1p()
        elif op == "atan":
            v = x.atan()
        elif op == "leakyrelu":
            v = F.leaky_relu(x, 0.1)
        elif op == "half":
            v = x.to(torch.float16).to(dtype)
        elif op == "bfloat":
            v = x.to(torch.bfloat16).to(dtype)
        elif op == "add":
            v = x + y
        elif op == "sub":
            v = x - y
        elif op == "mul":
            v = x * y
        elif op == "div":
            v = x / y
        elif op in ("maximum", "minimum"):
            tie[0] = tie[0] or bool((x == y).any())
            v = torch.maximum(x, y) if op == "maximum" else torch.minimum(x, y)
            select(v, x, y)
        elif op == "pow":
            v = (x.abs() + 0.25).pow(y)
        elif op == "gt":
            v = x > y
        elif op == "lt":
            v = x < y
        elif op == "ge":
            v = x >= y
        elif op == "le":
            v = x <= y
        elif op == "ne":
            v = x != y
        elif op == "and":
            v = x & y
        elif op == "or":
            v = x | y
        elif op == "not":
            v = ~x
        elif op == "tofloat":
            v = x.to(dtype)
        elif op == "where":
            v = torch.where(x, y, vals[a[2]])
        elif op == "transpose":
            v = x.transpose(ints[0], ints[1])
        elif op == "permute":
            v = x.permute(*ints)
        elif op == "slice":
            idx = [slice(None)] * x.dim()
            idx[ints[0]] = slice(ints[1], ints[2], ints[3])
            v = x[tuple(idx)]
        elif op == "narrow":
            v = x.narrow(ints[0], ints[1], ints[2])
        elif op == "expand":
            v = x.expand(ints)
        elif op == "reshape":
            v = x.reshape(ints)
        elif op == "unsqueeze":
            v = x.unsqueeze(ints[0])
        elif op == "squeeze":
            v = x.squeeze(ints[0])
        elif op == "flatten":
            v = x.flatten(ints[0], ints[1])
        elif op == "contiguous":
            v = x.contiguous()
        elif op in ("sum", "mean", "max", "min", "var"):
            dims = tuple(ints) if ints else tuple(range(x.dim()))
            if op == "sum":
                v = x.sum(dim=dims, keepdim=keep) if dims else x.clone()
            elif op == "mean":
                v = x.mean(dim=dims, keepdim=keep) if dims else x.clone()
            elif op == "var":
                v = torch.var(x, dim=dims, correction=int(fl[0]), keepdim=keep)
            else:
                f = torch.amax if op == "max" else torch.amin
                v = f(x, dim=dims, keepdim=keep) if dims else x.clone()
                if dims:
                    m = f(x, dim=dims, keepdim=True)
                    tie[0] = tie[0] or bool(((x == m).sum(dim=dims) > 1).any())
                select(v, x)
        elif op == "softmax":
            v = torch.softmax(x, ints[0])
        elif op == "logsoftmax":
            v = torch.log_softmax(x, ints[0])
        elif op == "matmul":
            v = torch.matmul(x, y)
        else:
            raise ValueError("unknown operation %r" % op)
        vals.append(v)
    out = vals[-1]
    w = decode(p["weights"], list(out.shape)).to(dtype)
    if out.requires_grad:
        (out * w).sum().backward()
    grads = [l.grad if l.grad is not None else torch.zeros_like(l) for l in leaves]
    return out, grads, tie[0]


def main():
    doc = json.load(sys.stdin)
    results = []
    for p in doc["programs"]:
        r = {"seed": p["seed"]}
        try:
            o32, g32, tie = run(p, torch.float32)
            o64, g64, _ = run(p, torch.float64)
            r.update(
                shape=list(o32.shape),
                out32=encode(o32, "<f4"),
                out64=encode(o64, "<f8"),
                grads32=[encode(g, "<f4") for g in g32],
                grads64=[encode(g, "<f8") for g in g64],
                tie=tie,
            )
        except Exception:
            r["error"] = traceback.format_exc()
        results.append(r)
    json.dump({"results": results}, sys.stdout)


if __name__ == "__main__":
    main()
