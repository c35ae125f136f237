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
        if op in NAN_CONVENTION and any(bool(o.isnan().any()) for o in (x, y) if o is not None):
            tie[0] = True
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
            # + 0.0 turns -0 into +0: PyTorch computes x**-0.5 as rsqrt,
            # giving -inf at -0 where IEEE pow, and Shaderflow, give +inf.
            v = (x + 0.0).pow(fl[0])
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
        elif op in MORE:
            v = MORE[op](x, y, ints, fl, keep, tie)
        else:
            raise ValueError("unknown operation %r" % op)
        vals.append(v)
    out = vals[-1]
    w = decode(p["weights"], list(out.shape)).to(dtype)
    if out.requires_grad:
        (out * w).sum().backward()
    grads = [l.grad if l.grad is not None else torch.zeros_like(l) for l in leaves]
    return out, grads, tie[0]


# Operations whose gradient at a NaN operand is a convention that differs
# (docs/pytorch-differences.md): those taking an absolute value (PyTorch's
# sign(NaN) is 0, Shaderflow's NaN) and hardswish (PyTorch's vectorized
# kernel gives NaN, its scalar one passes the gradient, as Shaderflow does).
NAN_CONVENTION = {"abs", "logabs", "sqrtabs", "log1pabs", "log2abs", "log10abs", "pow",
                  "remainder", "fmod", "norm1", "norminf", "hardswish", "elu", "selu"}


def ties_along(x, ax):
    """Whether a line of x along ax holds equal values, where the gradient
    of sort, topk and median depends on an order convention."""
    n = x.shape[ax]
    if n < 2:
        return False
    s = x.detach().sort(dim=ax).values
    return bool((s.narrow(ax, 1, n - 1) == s.narrow(ax, 0, n - 1)).any())


def prod(x, dims, keep):
    for d in sorted(dims, reverse=True):
        x = x.prod(d, keepdim=keep)
    return x


def norm(p):
    def f(x, y, ints, fl, keep, tie):
        dims = tuple(ints) if ints else tuple(range(x.dim()))
        if not dims:
            return torch.linalg.vector_norm(x.reshape(1), ord=p).reshape(())
        if p == float("inf"):
            a = x.detach().abs()
            m = torch.amax(a, dim=dims, keepdim=True)
            tie[0] = tie[0] or bool(((a == m).sum(dim=dims) > 1).any())
        return torch.linalg.vector_norm(x, ord=p, dim=dims, keepdim=keep)
    return f


def reduce_dims(x, ints):
    return tuple(ints) if ints else tuple(range(x.dim()))


def ordered(kind):
    """sort, topk or median along ints[0], flagging ties."""
    def f(x, y, ints, fl, keep, tie):
        ax = ints[0]
        tie[0] = tie[0] or ties_along(x, ax)
        if kind == "sort":
            return torch.sort(x, dim=ax, descending=keep, stable=True).values
        if kind == "topk":
            return torch.topk(x, ints[1], dim=ax, largest=keep, sorted=True).values
        return torch.median(x, dim=ax, keepdim=keep).values
    return f


PAD_MODES = ["constant", "reflect", "replicate"]


def pad(x, y, ints, fl, keep, tie):
    mode = PAD_MODES[ints[2]]
    if mode == "constant":
        return F.pad(x, (ints[0], ints[1]), mode=mode, value=fl[0])
    return F.pad(x, (ints[0], ints[1]), mode=mode)


# The parity op set (run_more.go and program_axis.go): each takes the
# operands, the step's ints, floats and keep flag, and the tie flag.
MORE = {
    "sinh": lambda x, y, i, fl, k, t: x.sinh(),
    "cosh": lambda x, y, i, fl, k, t: x.cosh(),
    "tan": lambda x, y, i, fl, k, t: x.tan(),
    "asin": lambda x, y, i, fl, k, t: (x.tanh() * 0.875).asin(),
    "acos": lambda x, y, i, fl, k, t: (x.tanh() * 0.875).acos(),
    "log2abs": lambda x, y, i, fl, k, t: (x.abs() + 0.25).log2(),
    "log10abs": lambda x, y, i, fl, k, t: (x.abs() + 0.25).log10(),
    "round": lambda x, y, i, fl, k, t: x.round(),
    "trunc": lambda x, y, i, fl, k, t: x.trunc(),
    "floor": lambda x, y, i, fl, k, t: x.floor(),
    "ceil": lambda x, y, i, fl, k, t: x.ceil(),
    # Shaderflow's Sign keeps NaN; see docs/pytorch-differences.md.
    "sign": lambda x, y, i, fl, k, t: torch.where(x.isnan(), x.detach(), x.sign()),
    "softplus": lambda x, y, i, fl, k, t: F.softplus(x),
    "elu": lambda x, y, i, fl, k, t: F.elu(x, 1.0),
    "selu": lambda x, y, i, fl, k, t: F.selu(x),
    "hardswish": lambda x, y, i, fl, k, t: F.hardswish(x),
    "hardsigmoid": lambda x, y, i, fl, k, t: F.hardsigmoid(x),
    "mish": lambda x, y, i, fl, k, t: F.mish(x),
    "clampmin": lambda x, y, i, fl, k, t: x.clamp(min=fl[0]),
    "clampmax": lambda x, y, i, fl, k, t: x.clamp(max=fl[0]),
    "atan2": lambda x, y, i, fl, k, t: torch.atan2(x, y),
    "remainder": lambda x, y, i, fl, k, t: torch.remainder(x, y.abs() + 0.5),
    "fmod": lambda x, y, i, fl, k, t: torch.fmod(x, y.abs() + 0.5),
    "lerp": lambda x, y, i, fl, k, t: torch.lerp(x, y, fl[0]),
    "std": lambda x, y, i, fl, k, t: torch.std(x, dim=reduce_dims(x, i), correction=int(fl[0]), keepdim=k),
    "logsumexp": lambda x, y, i, fl, k, t: torch.logsumexp(x, dim=reduce_dims(x, i), keepdim=k) if reduce_dims(x, i) else x.clone(),
    "prod": lambda x, y, i, fl, k, t: prod(x, reduce_dims(x, i), k) if reduce_dims(x, i) else x.clone(),
    "norm1": norm(1),
    "norm2": norm(2),
    "norminf": norm(float("inf")),
    "cumsum": lambda x, y, i, fl, k, t: torch.cumsum(x, i[0]),
    "cumprod": lambda x, y, i, fl, k, t: torch.cumprod(x, i[0]),
    "sort": ordered("sort"),
    "topk": ordered("topk"),
    "median": ordered("median"),
    "flip": lambda x, y, i, fl, k, t: torch.flip(x, dims=i),
    "roll": lambda x, y, i, fl, k, t: torch.roll(x, shifts=i[1], dims=i[0]),
    "tril": lambda x, y, i, fl, k, t: torch.tril(x, i[0]),
    "triu": lambda x, y, i, fl, k, t: torch.triu(x, i[0]),
    "pad": pad,
    "repeat": lambda x, y, i, fl, k, t: x.repeat(*i),
    "glu": lambda x, y, i, fl, k, t: F.glu(x, i[0]),
}


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
