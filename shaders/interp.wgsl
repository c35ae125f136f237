// interp.wgsl: the hook functions of every kind implemented by an
// interpreter of the program bytecode in the params buffer. The Vulkan
// kernels are compiled with these hooks; the WebGPU backend generates
// specialized hooks instead (package gpu, wgsl.go).
//
// Instruction i occupies 5 words at the block's code offset:
//
//	w0  op | result type << 8 | argument type << 16 | destination register << 24
//	w1..w3  argument registers
//	w4  immediate: the constant's bits (OpConst), the input index (OpInput),
//	    the stream key (OpRandUniform, OpRandNormal)
//
// Registers hold compute-type bits (f32 bits, i32 bits, bool 0/1). Package
// gpu allocates registers so that at most MAX_REGS are live.

const MAX_REGS: u32 = 64u; // a power of two: register numbers are masked

fn interp(blk: u32, p: u32, acc: u32) -> u32 {
    var regs: array<u32, MAX_REGS>;
    let ncode = params[blk + PB_NCODE];
    let code = params[blk + PB_CODE];
    for (var i = 0u; i < ncode; i = i + 1u) {
        let w = code + i * 5u;
        let w0 = params[w];
        let op = w0 & 0xffu;
        let ty = (w0 >> 8u) & 0xffu;
        let at = (w0 >> 16u) & 0xffu;
        let a = regs[params[w + 1u] & (MAX_REGS - 1u)];
        let b = regs[params[w + 2u] & (MAX_REGS - 1u)];
        let c = regs[params[w + 3u] & (MAX_REGS - 1u)];
        let imm = params[w + 4u];
        var v = 0u;
        switch op {
            case 0u: { v = prog_input(blk, imm, p, acc); }
            case 1u: { v = imm; }
            case 2u: { v = p; }
            case 3u: { v = bitcast<u32>(rand_uniform(imm, p)); }
            case 4u: { v = bitcast<u32>(rand_normal(imm, p)); }
            case 24u: { v = select(0u, 1u, is_nan(bitcast<f32>(a))); }
            case 25u: { v = a ^ 1u; }
            case 26u: { v = cast_bits(a, at, ty); }
            case 40u: { v = a & b; }
            case 41u: { v = a | b; }
            case 42u: { v = select(c, b, a != 0u); }
            case 43u: { v = bitcast<u32>(fma(bitcast<f32>(a), bitcast<f32>(b), bitcast<f32>(c))); }
            default: {
                if (op >= OP_EQ) {
                    var r: bool;
                    if (at == DT_F32) {
                        r = compare_f32(op, bitcast<f32>(a), bitcast<f32>(b));
                    } else {
                        r = compare_i32(op, bitcast<i32>(a), bitcast<i32>(b));
                    }
                    v = select(0u, 1u, r);
                } else if (op >= OP_ADD) {
                    if (at == DT_F32) {
                        v = bitcast<u32>(binary_f32(op, bitcast<f32>(a), bitcast<f32>(b)));
                    } else {
                        v = bitcast<u32>(binary_i32(op, bitcast<i32>(a), bitcast<i32>(b)));
                    }
                } else if (at == DT_F32) {
                    v = bitcast<u32>(unary_f32(op, bitcast<f32>(a)));
                } else {
                    v = bitcast<u32>(unary_i32(op, bitcast<i32>(a)));
                }
            }
        }
        regs[(w0 >> 24u) & (MAX_REGS - 1u)] = v;
    }
    let outs = params[blk + PB_OUTREGS];
    let nin = params[blk + PB_NIN];
    let nout = params[blk + PB_NOUT];
    for (var j = 0u; j < nout; j = j + 1u) {
        let o = params[outs + j];
        prog_store(blk, nin + j, p, regs[o & (MAX_REGS - 1u)], (o >> 8u) & 0xffu);
    }
    return regs[params[outs] & (MAX_REGS - 1u)];
}

// ew_program runs the elementwise program at position p.
fn ew_program(p: u32) {
    _ = interp(params[H_PROG0], p, 0u);
}

// reduce_prologue returns the value to reduce at position p of the space
// OutShape ++ RedShape.
fn reduce_prologue(p: u32) -> f32 {
    return bitcast<f32>(interp(params[H_PROG0], p, 0u));
}

// reduce_epilogue runs the epilogue for output o with the reduced value's
// bits (f32, or i32 for argmax/argmin).
fn reduce_epilogue(o: u32, acc: u32) {
    _ = interp(params[H_PROG1], o, acc);
}

// epilogue runs the matmul or conv epilogue for result element o.
fn epilogue(o: u32, acc: f32) {
    _ = interp(params[H_PROG0], o, bitcast<u32>(acc));
}
