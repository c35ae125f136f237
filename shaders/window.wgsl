// window.wgsl: geometry of convolution and pooling windows. Conv and pool
// launches keep it in params words 16..33, padded to three spatial
// dimensions (size one, stride one, no padding, dilation one).

const G_IN: u32 = 16u;
const G_KERNEL: u32 = 19u;
const G_OUT: u32 = 22u;
const G_STRIDE: u32 = 25u;
const G_PAD: u32 = 28u;
const G_DIL: u32 = 31u;

// The geometry words, copied once per invocation by load_geometry (kernels
// that read geo call it first) so that the compiler can keep them in
// registers rather than load params words inside the loops. On lavapipe this
// alone took the CNN's first max-pool backward from 540 to 360 ms
// (BenchmarkMaxPool, batch 64); hardware GPUs are unmeasured.
var<private> geometry: array<u32, 18>;

fn load_geometry() {
    for (var i = 0u; i < 18u; i = i + 1u) {
        geometry[i] = params[G_IN + i];
    }
}

fn geo(field: u32, d: u32) -> u32 { return geometry[field - G_IN + d]; }

// in_pos returns the input position of output position y and window tap k
// along dimension d (negative or >= In when outside the input).
fn in_pos(d: u32, y: u32, k: u32) -> i32 {
    return i32(y * geo(G_STRIDE, d) + k * geo(G_DIL, d)) - i32(geo(G_PAD, d));
}

// out_pos returns the output position whose tap k reads input position x
// along dimension d, or -1 when there is none.
fn out_pos(d: u32, x: u32, k: u32) -> i32 {
    let t = i32(x + geo(G_PAD, d)) - i32(k * geo(G_DIL, d));
    let s = i32(geo(G_STRIDE, d));
    if (t < 0 || t % s != 0 || t / s >= i32(geo(G_OUT, d))) {
        return -1;
    }
    return t / s;
}

fn inside(d: u32, x: i32) -> bool { return x >= 0 && x < i32(geo(G_IN, d)); }
