"""Runs the golden PTX kernels that need no tensor maps on a GPU and checks them against a CPU reference.

A quick check of the PTX writer's fragment math (mma, wgmma A from registers, reductions, layout
changes, swizzled shared memory) without building the Rust launch path: pure Python + ctypes over the
CUDA driver API (no numpy). Usage, on a machine with an NVIDIA GPU (sm_90):

    python3 compiler-tests/tests/ptx/gpu_check.py [check names...]

Each launch follows the kernel ABI of compiler/src/ptx/mod.rs: the parameters in order, then the
runtime dimensions; outputs are poisoned first. Exits non-zero on any mismatch.
"""
import ctypes as C, struct, random, sys, math, os

cu = C.CDLL("libcuda.so.1")
def ck(r, what):
    if r != 0:
        s = C.c_char_p()
        cu.cuGetErrorString(r, C.byref(s))
        raise RuntimeError(f"{what}: {r} {s.value}")

ck(cu.cuInit(0), "init")
dev = C.c_int(); ck(cu.cuDeviceGet(C.byref(dev), 0), "dev")
ctx = C.c_void_p(); ck(cu.cuDevicePrimaryCtxRetain(C.byref(ctx), dev), "ctx"); ck(cu.cuCtxSetCurrent(ctx), "cur")

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")

def load(name):
    ptx = open(f"{OUT}/{name}.ptx", "rb").read() + b"\0"
    mod = C.c_void_p()
    ck(cu.cuModuleLoadData(C.byref(mod), ptx), f"load {name}")
    f = C.c_void_p(); ck(cu.cuModuleGetFunction(C.byref(f), mod, name.encode()), "func")
    return f

def alloc(nbytes, data=None):
    p = C.c_uint64()
    ck(cu.cuMemAlloc_v2(C.byref(p), max(nbytes, 4)), "alloc")
    if data is None:
        data = b"\xa5" * nbytes  # poison
    ck(cu.cuMemcpyHtoD_v2(p, data, len(data)), "h2d")
    return p

def fetch(p, nbytes):
    buf = C.create_string_buffer(nbytes)
    ck(cu.cuCtxSynchronize(), "sync")
    ck(cu.cuMemcpyDtoH_v2(buf, p, nbytes), "d2h")
    return buf.raw

def launch(f, grid, args, smem=48 * 1024, threads=128):
    vals = []
    for a in args:
        if isinstance(a, C.c_uint64): vals.append(a)
        elif isinstance(a, float): vals.append(C.c_float(a))
        else: vals.append(C.c_int32(a))
    ptrs = (C.c_void_p * len(vals))(*[C.cast(C.byref(v), C.c_void_p) for v in vals])
    g = list(grid) + [1] * (3 - len(grid))
    ck(cu.cuLaunchKernel(f, g[0], g[1], g[2], threads, 1, 1, smem, None, ptrs, None), "launch")
    ck(cu.cuCtxSynchronize(), "sync after launch")

# ---- element codecs ----
def f32r(x): return struct.unpack("f", struct.pack("f", x))[0]
def bf16_bits(x):
    b = struct.unpack("I", struct.pack("f", x))[0]
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF
def bf16_val(bits): return struct.unpack("f", struct.pack("I", bits << 16))[0]
def e4m3_val(c):
    s = -1.0 if c & 0x80 else 1.0
    e = (c >> 3) & 0xF; m = c & 7
    if e == 0: return s * m / 8 * 2 ** -6
    return s * (1 + m / 8) * 2 ** (e - 7)

def pack(fmt, vals): return struct.pack(f"<{len(vals)}{fmt}", *vals)
def unpack(fmt, raw): return list(struct.unpack(f"<{len(raw) // struct.calcsize(fmt)}{fmt}", raw))

def gauss(n): return [random.gauss(0, 1) for _ in range(n)]

failures = []
def compare(name, got, want, rtol=0.0, atol=0.0):
    bad = 0; first = None
    for k, (g, w) in enumerate(zip(got, want)):
        ok = (g == w) or (abs(g - w) <= atol + rtol * abs(w)) or (isinstance(g, float) and math.isnan(g) and math.isnan(w))
        if not ok:
            bad += 1
            if first is None: first = (k, g, w)
    status = "OK " if bad == 0 and len(got) == len(want) else "BAD"
    print(f"  {status} {name}: {len(want) - bad}/{len(want)} match" + (f"; first bad #{first[0]}: got {first[1]} want {first[2]}" if first else ""))
    if status == "BAD": failures.append(name)

def matmul(a, b, M, K, N):
    return [sum(a[i * K + k] * b[k * N + j] for k in range(K)) for i in range(M) for j in range(N)]

# ---- checks ----
def check_mma_bf16():
    M, K, N = 128, 64, 64
    ab = [bf16_bits(x) for x in gauss(M * K)]; bb = [bf16_bits(x) for x in gauss(K * N)]
    a = [bf16_val(x) for x in ab]; b = [bf16_val(x) for x in bb]
    pa, pb, pc = alloc(2 * M * K, pack("H", ab)), alloc(2 * K * N, pack("H", bb)), alloc(4 * M * N)
    launch(load("mma_bf16"), (M // 64, N // 32), [pa, pb, pc, M, K, N])
    compare("mma_bf16", unpack("f", fetch(pc, 4 * M * N)), matmul(a, b, M, K, N), 1e-4, 1e-4)

def check_mma_i8():
    M, K, N = 64, 64, 64
    a = [random.randint(-128, 127) for _ in range(M * K)]; b = [random.randint(-128, 127) for _ in range(K * N)]
    pa, pb, pc = alloc(M * K, pack("b", a)), alloc(K * N, pack("b", b)), alloc(4 * M * N)
    launch(load("mma_i8"), (M // 32, N // 32), [pa, pb, pc, M, K, N])
    compare("mma_i8", unpack("i", fetch(pc, 4 * M * N)), matmul(a, b, M, K, N))

def check_mma_fp8():
    M, K, N = 32, 64, 64
    codes = [c for c in range(256) if (c & 0x7F) != 0x7F]
    ac = [random.choice(codes) for _ in range(M * K)]; bc = [random.choice(codes) for _ in range(K * N)]
    a = [e4m3_val(c) for c in ac]; b = [e4m3_val(c) for c in bc]
    pa, pb, pc = alloc(M * K, bytes(ac)), alloc(K * N, bytes(bc)), alloc(4 * M * N)
    launch(load("mma_fp8"), (M // 16, N // 32), [pa, pb, pc, M, K, N])
    compare("mma_fp8", unpack("f", fetch(pc, 4 * M * N)), matmul(a, b, M, K, N), 1e-3, 1e-2)

def check_mma_i4():
    M, K, N = 64, 128, 16
    a = [random.randint(-8, 7) for _ in range(M * K)]; b = [random.randint(-8, 7) for _ in range(K * N)]
    pa, pb, pc = alloc(M * K, pack("b", a)), alloc(K * N, pack("b", b)), alloc(4 * M * N)
    launch(load("mma_i4"), (M // 64, N // 8), [pa, pb, pc, M, K, N])
    compare("mma_i4", unpack("i", fetch(pc, 4 * M * N)), matmul(a, b, M, K, N))

def check_reduce_rows():
    M = 256
    x = [f32r(v) for v in gauss(M * 16)]
    hb = [bf16_bits(v) for v in gauss(M * 16)]; h = [bf16_val(v) for v in hb]
    px, ph = alloc(4 * M * 16, pack("f", x)), alloc(2 * M * 16, pack("H", hb))
    ps, pm, phs = alloc(4 * M), alloc(4 * M), alloc(2 * M)
    launch(load("reduce_rows"), (M // 128,), [px, ph, ps, pm, phs, M])
    rows = lambda v, r: v[r * 16:(r + 1) * 16]
    compare("reduce_rows sum f32", unpack("f", fetch(ps, 4 * M)), [sum(rows(x, r)) for r in range(M)], 1e-5, 1e-5)
    compare("reduce_rows max f32", unpack("f", fetch(pm, 4 * M)), [max(rows(x, r)) for r in range(M)])
    got = [bf16_val(b) for b in unpack("H", fetch(phs, 2 * M))]
    compare("reduce_rows sum bf16", got, [bf16_val(bf16_bits(sum(rows(h, r)))) for r in range(M)], 8e-3, 1e-2)

def check_reduce_cols():
    N = 32
    x = [f32r(v) for v in gauss(128 * N)]
    b = [random.randint(-128, 127) for _ in range(64 * N)]
    n = [random.randint(-2 ** 31, 2 ** 31 - 1) for _ in range(64 * N)]
    px, pb, pn = alloc(4 * 128 * N, pack("f", x)), alloc(64 * N, pack("b", b)), alloc(4 * 64 * N, pack("i", n))
    ps, pbs, pmi, ptw = alloc(4 * N), alloc(N), alloc(4 * N), alloc(4 * N)
    launch(load("reduce_cols"), (N // 16,), [px, pb, pn, ps, pbs, pmi, ptw, N])
    col = lambda v, rows, c: [v[r * N + c] for r in range(rows)]
    wrap8 = lambda s: ((s + 128) % 256) - 128
    compare("reduce_cols sum f32", unpack("f", fetch(ps, 4 * N)), [sum(col(x, 128, c)) for c in range(N)], 1e-5, 1e-4)
    compare("reduce_cols sum i8 (wraps)", unpack("b", fetch(pbs, N)), [wrap8(sum(col(b, 64, c))) for c in range(N)])
    compare("reduce_cols min i32", unpack("i", fetch(pmi, 4 * N)), [min(col(n, 64, c)) for c in range(N)])
    compare("reduce_cols splat sum", unpack("f", fetch(ptw, 4 * N)), [128.0] * N)

def check_relayout():
    M, N = 128, 32
    x = [f32r(v) for v in gauss(M * N)]
    hv = [struct.unpack("e", struct.pack("e", v))[0] for v in gauss(M * N)]
    px, ph = alloc(4 * M * N, pack("f", x)), alloc(2 * M * N, pack("e", hv))
    outs = [alloc(4 * M * N), alloc(4 * M * N), alloc(2 * M * N), alloc(2 * M * N)]
    launch(load("relayout"), (M // 64, N // 16), [px, ph] + outs + [M, N])
    want = []
    for r in range(M):
        for c in range(N):
            r0, c0 = r // 64 * 64, c // 16 * 16
            rmax = max(x[r * N + cc] for cc in range(c0, c0 + 16))
            csum = sum(x[rr * N + c] for rr in range(r0, r0 + 64))
            want.append(x[r * N + c] - rmax + csum + 1.0)
    compare("relayout spread (Strided->Wgmma, reduce, broadcast, ->MmaAcc->Strided)", unpack("f", fetch(outs[0], 4 * M * N)), want, 1e-4, 1e-4)
    compare("relayout same (layout_cast Wgmma->MmaAcc)", unpack("f", fetch(outs[1], 4 * M * N)), x)
    compare("relayout halves (layout_cast Wgmma->MmaLhs)", unpack("e", fetch(outs[2], 2 * M * N)), hv)
    compare("relayout from_b (MmaRhs->Wgmma)", unpack("e", fetch(outs[3], 2 * M * N)), hv)

def check_smem_swizzle():
    M, N = 128, 128
    xb = [bf16_bits(v) for v in gauss(M * N)]
    px, py = alloc(2 * M * N, pack("H", xb)), alloc(2 * M * N)
    launch(load("smem_swizzle"), (M // 64, N // 64), [px, py, M, N])
    compare("smem_swizzle copy", unpack("H", fetch(py, 2 * M * N)), xb)

def check_scalars():
    N = 512; n = 7; alpha = 1.5
    x = [f32r(v) for v in gauss(N)]
    px, py = alloc(4 * N, pack("f", x)), alloc(4 * N)
    launch(load("scalars"), (N // 128,), [px, py, n, alpha, N])
    acc = 0.0
    for k in range(n):
        acc = acc + alpha if k % 2 == 0 else acc * 0.5
    compare("scalars", unpack("f", fetch(py, 4 * N)), [f32r(v + acc) for v in x], 1e-6, 1e-6)

def i8s(n): return [random.randint(-128, 127) for _ in range(n)]

def run_wgmma(name, a_bytes, b_bytes, M, K, N, out_fmt, want, rtol=0.0, atol=0.0):
    pa, pb, pc = alloc(len(a_bytes), a_bytes), alloc(len(b_bytes), b_bytes), alloc(4 * M * N)
    launch(load(name), (M // 64, N // 64), [pa, pb, pc, M, K, N])
    compare(name, unpack(out_fmt, fetch(pc, 4 * M * N)), want, rtol, atol)

def matmul_bt(a, bt, M, K, N):
    return [sum(a[i * K + k] * bt[j * K + k] for k in range(K)) for i in range(M) for j in range(N)]

def check_wgmma_a_i8_regs():
    M, K, N = 128, 128, 64
    a, bt = i8s(M * K), i8s(N * K)
    run_wgmma("wgmma_a_i8_regs", pack("b", a), pack("b", bt), M, K, N, "i", matmul_bt(a, bt, M, K, N))

def check_wgmma_a_fp8_regs():
    M, K, N = 64, 128, 64
    # Small integers: every partial sum is exact even in the fp8 tensor core's narrow accumulator.
    codes = [c for c in range(256) if (c & 0x7F) != 0x7F and e4m3_val(c) in (-4, -3, -2, -1, 0, 1, 2, 3, 4)]
    ac = [random.choice(codes) for _ in range(M * K)]; bc = [random.choice(codes) for _ in range(N * K)]
    a = [e4m3_val(c) for c in ac]; bt = [e4m3_val(c) for c in bc]
    run_wgmma("wgmma_a_fp8_regs", bytes(ac), bytes(bc), M, K, N, "f", matmul_bt(a, bt, M, K, N), 1e-3, 1e-2)

def check_wgmma_a_regs():
    M, K, N = 64, 128, 64
    ab = [bf16_bits(x) for x in gauss(M * K)]; bb = [bf16_bits(x) for x in gauss(N * K)]
    a = [2 * bf16_val(x) for x in ab]; bt = [bf16_val(x) for x in bb]
    run_wgmma("wgmma_a_regs", pack("H", ab), pack("H", bb), M, K, N, "f", matmul_bt(a, bt, M, K, N), 1e-4, 1e-4)

CHECKS = {k[6:]: v for k, v in globals().items() if k.startswith("check_")}
random.seed(1)
for name in (sys.argv[1:] or list(CHECKS)):
    print(name)
    try:
        CHECKS[name]()
    except Exception as e:
        print(f"  ERR {name}: {e}")
        failures.append(name)
print("FAILURES:", failures if failures else "none")
sys.exit(1 if failures else 0)
