"""cuTile kernels sized for GPU benchmarking (our own code).

The bundled examples use small tiles so that the CPU interpreter runs them
quickly; these use the tile sizes one would pick on Hopper. Every host
function takes its tile sizes as arguments so that the CI test
(tests/test_gpu_kernels.py) can run the same code small under Triton's
interpreter, and benchmarks/gpu/bench.py large on the GPU, for the original
cuTile module and its conversion alike.
"""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
PAD_ZERO = ct.PaddingMode.ZERO


def next_power_of_2(n: int) -> int:
    return 1 if n <= 1 else 2 ** (n - 1).bit_length()


@ct.kernel
def add_kernel(a, b, c, TILE: ConstInt):
    bid = ct.bid(0)
    x = ct.load(a, index=(bid,), shape=(TILE,), padding_mode=PAD_ZERO)
    y = ct.load(b, index=(bid,), shape=(TILE,), padding_mode=PAD_ZERO)
    ct.store(c, index=(bid,), tile=x + y)


def add(a: torch.Tensor, b: torch.Tensor, tile: int = 1024) -> torch.Tensor:
    """c = a + b, 1-D, one TILE per block."""
    c = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], tile),), add_kernel, (a, b, c, tile))
    return c


@ct.kernel
def softmax_kernel(x, out, TILE_N: ConstInt):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE_N), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    y = e / ct.sum(e, axis=1, keepdims=True)
    ct.store(out, index=(row, 0), tile=y.astype(out.dtype))


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Row softmax of a 2-D tensor, one row (one tile) per block."""
    out = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), softmax_kernel, (x, out, next_power_of_2(x.shape[1])))
    return out


@ct.kernel
def rms_norm_kernel(x, w, out, eps: float, TILE_N: ConstInt):
    row = ct.bid(0)
    n = x.shape[1]
    t = ct.load(x, index=(row, 0), shape=(1, TILE_N), padding_mode=PAD_ZERO).astype(ct.float32)
    wt = ct.load(w, index=(0,), shape=(TILE_N,), padding_mode=PAD_ZERO).astype(ct.float32)
    rstd = ct.rsqrt(ct.sum(t * t, axis=1, keepdims=True) / n + eps)
    ct.store(out, index=(row, 0), tile=(t * rstd * wt[None, :]).astype(out.dtype))


def rms_norm(x: torch.Tensor, w: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMS norm over the last axis of a 2-D tensor, one row per block."""
    out = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), rms_norm_kernel, (x, w, out, eps, next_power_of_2(x.shape[1])))
    return out


@ct.kernel
def matmul_kernel(A, B, C, TILE_M: ConstInt, TILE_N: ConstInt, TILE_K: ConstInt):
    bid_m = ct.bid(0)
    bid_n = ct.bid(1)
    acc = ct.zeros((TILE_M, TILE_N), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TILE_M, TILE_K))):
        a = ct.load(A, index=(bid_m, k), shape=(TILE_M, TILE_K), padding_mode=PAD_ZERO)
        b = ct.load(B, index=(k, bid_n), shape=(TILE_K, TILE_N), padding_mode=PAD_ZERO)
        acc = ct.mma(a, b, acc=acc)
    ct.store(C, index=(bid_m, bid_n), tile=acc.astype(C.dtype))


def matmul(a: torch.Tensor, b: torch.Tensor, tm: int = 128, tn: int = 128, tk: int = 64) -> torch.Tensor:
    """C = A @ B with fp32 accumulation; 2-D grid of (TILE_M, TILE_N) output tiles."""
    m, n = a.shape[0], b.shape[1]
    c = torch.empty((m, n), dtype=a.dtype, device=a.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, tm), ct.cdiv(n, tn)), matmul_kernel, (a, b, c, tm, tn, tk))
    return c


@ct.kernel
def transpose_kernel(x, out, TILE_M: ConstInt, TILE_N: ConstInt):
    bm = ct.bid(0)
    bn = ct.bid(1)
    t = ct.load(x, index=(bm, bn), shape=(TILE_M, TILE_N), padding_mode=PAD_ZERO)
    ct.store(out, index=(bn, bm), tile=ct.transpose(t))


def transpose(x: torch.Tensor, tm: int = 64, tn: int = 64) -> torch.Tensor:
    """out = x.T (materialised), tile by tile."""
    m, n = x.shape
    out = torch.empty((n, m), dtype=x.dtype, device=x.device)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(m, tm), ct.cdiv(n, tn)), transpose_kernel, (x, out, tm, tn))
    return out
