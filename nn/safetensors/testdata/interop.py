#!/usr/bin/env python3
"""Cross-checks Shaderflow's Go safetensors package against Python.

usage: interop.py write lib|spec PATH    write the interop tensors to PATH
       interop.py check lib|spec PATH    check that PATH holds exactly them

Mode "lib" uses the safetensors package (safetensors.torch), the reference
implementation. Mode "spec" uses only json, struct, numpy and torch, following
the published format; it checks the layout and, independently of Go, the
float16 (numpy) and bfloat16 (torch) conversions. The Go test
(interop_test.go) builds the same tensors from the same formulas.

The committed golden file python_numpy_torch.safetensors was written with
`interop.py write spec`.
"""
import json
import math
import struct
import sys

import numpy as np
import torch

METADATA = {"format": "pt"}

# The reference implementation's dtype order (increasing alignment).
ORDER = ["BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "I16", "U16", "F16",
         "BF16", "I32", "U32", "F32", "F64", "I64", "U64"]
NUMPY = {"BOOL": np.bool_, "U8": np.uint8, "F16": np.float16, "I32": np.int32,
         "F32": np.float32, "F64": np.float64, "I64": np.int64}


def floats(n):
    """n float32 values: special values first, then a rational sequence."""
    specials = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, 3e-6,
                70000.0, 65519.0, 1.0 / 3.0]
    vals = specials[:n]
    for i in range(len(vals), n):
        vals.append(((i * 7919) % 1000 - 500) / 37.0 * 2.0 ** ((i % 11) - 5))
    return np.array(vals, dtype=np.float64).astype(np.float32)


def half(x):
    """numpy's float32 -> float16 conversion (overflow to inf is intended)."""
    with np.errstate(over="ignore"):
        return x.astype(np.float16)


def ints32(n):
    vals = [-2 ** 31, 2 ** 31 - 1][:n]
    vals += [((i * 2654435761) % 2 ** 32) - 2 ** 31 for i in range(len(vals), n)]
    return np.array(vals, dtype=np.int32)


def expected():
    """name -> (dtype, shape, torch tensor)."""
    f = lambda n: torch.from_numpy(floats(n))
    spec = {
        "weight": ("F32", [3, 5, 7], f(105)),
        "bias": ("F32", [5], f(5) * 3),
        "scalar": ("F32", [], torch.tensor(3.5, dtype=torch.float32)),
        "half": ("F16", [2, 9], torch.from_numpy(half(floats(18)))),
        "empty": ("F16", [0, 3], torch.zeros((0, 3), dtype=torch.float16)),
        # No NaN here: torch 1.13's vectorized CPU conversion turns a float32
        # NaN into bfloat16 0xFFFF, its scalar path (and Go) into 0x7FC0;
        # both are NaN, but the bytes differ.
        "brain": ("BF16", [4, 5], torch.from_numpy(np.delete(floats(21), 4)).to(torch.bfloat16)),
        "double": ("F64", [3], torch.tensor([1.0 / 3.0, -2.5e300, 5e-324], dtype=torch.float64)),
        "ints": ("I32", [2, 3], torch.from_numpy(ints32(6))),
        "longs": ("I64", [4], torch.tensor([-2 ** 63, 2 ** 63 - 1, 1234567890123, -5], dtype=torch.int64)),
        "bytes": ("U8", [5], torch.tensor([(i * 37) % 256 for i in range(5)], dtype=torch.uint8)),
        "mask": ("BOOL", [2, 2], torch.tensor([i % 3 == 0 for i in range(4)]).reshape(2, 2)),
    }
    return {name: (dt, shape, t.reshape(shape)) for name, (dt, shape, t) in spec.items()}


def raw_bytes(dt, t):
    """The little-endian bytes of tensor t of safetensors dtype dt."""
    if dt == "BF16":
        return t.contiguous().view(torch.int16).numpy().astype("<i2").tobytes()
    return t.contiguous().numpy().astype(np.dtype(NUMPY[dt]).newbyteorder("<")).tobytes()


def write_spec(path, spec):
    items = sorted(spec.items(), key=lambda kv: (-ORDER.index(kv[1][0]), kv[0]))
    header, blobs, off = {"__metadata__": METADATA}, [], 0
    for name, (dt, shape, t) in items:
        b = raw_bytes(dt, t)
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def read_spec(path):
    """Returns (metadata, name -> (dtype, shape, bytes)), checking the layout."""
    with open(path, "rb") as fh:
        data = fh.read()
    (n,) = struct.unpack("<Q", data[:8])
    assert n % 8 == 0 and 8 + n <= len(data), "bad header length"
    header = json.loads(data[8:8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", None)
    body, pos, out = data[8 + n:], 0, {}
    for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"]):
        begin, end = info["data_offsets"]
        assert begin == pos, f"{name}: offsets not contiguous"
        assert (8 + n + begin) % np.dtype(NUMPY.get(info["dtype"], np.int16)).itemsize == 0, f"{name}: unaligned"
        out[name] = (info["dtype"], info["shape"], body[begin:end])
        pos = end
    assert pos == len(body), "data section not covered exactly"
    return metadata, out


def same(dt, a, b):
    """Bitwise equality of two tensors of one dtype (NaNs included)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if dt in ("F32", "F16", "BF16", "F64"):
        view = {"F32": torch.int32, "F16": torch.int16, "BF16": torch.int16, "F64": torch.int64}[dt]
        return torch.equal(a.contiguous().view(view), b.contiguous().view(view))
    return torch.equal(a, b)


def check(mode, path):
    spec = expected()
    if mode == "lib":
        from safetensors import safe_open
        from safetensors.torch import load_file, save
        got = load_file(path)
        with safe_open(path, framework="pt") as fh:
            metadata = fh.metadata()
        for name, (dt, shape, t) in spec.items():
            assert name in got, f"missing {name}"
            assert same(dt, got[name], t), f"{name} differs: {got[name]} vs {t}"
        assert set(got) == set(spec), f"extra tensors {set(got) - set(spec)}"
        with open(path, "rb") as fh:
            written = fh.read()
        ref = save({k: v[2] for k, v in spec.items()}, metadata=METADATA)
        assert written == ref, "Go's bytes differ from safetensors.torch.save's"
    else:
        metadata, got = read_spec(path)
        for name, (dt, shape, t) in spec.items():
            gdt, gshape, b = got[name]
            assert (gdt, gshape) == (dt, shape), f"{name}: {gdt} {gshape}, want {dt} {shape}"
            assert b == raw_bytes(dt, t), f"{name}: data differs"
        assert set(got) == set(spec), f"extra tensors {set(got) - set(spec)}"
    assert metadata == METADATA, f"metadata {metadata}"
    print("ok")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("write", "check") or sys.argv[2] not in ("lib", "spec"):
        sys.exit(__doc__)
    action, mode, path = sys.argv[1:]
    if action == "check":
        check(mode, path)
    elif mode == "lib":
        from safetensors.torch import save_file
        save_file({k: v[2] for k, v in expected().items()}, path, metadata=METADATA)
    else:
        write_spec(path, expected())


if __name__ == "__main__":
    main()
