"""Why cuTile's own FFT benchmark is slower converted (complex32 0.72x in s32): the converted fft_kernel of
cutile-python's test/kernels/fft.py timed under forced launch options, next to cuTile's kernel, in one process,
on bench_fft.py's inputs (16K rows of 4096 points, 16 x 16 x 16; CUDA-graph replays, as the bench times).

    python3 cutile_python_fft.py ORIG_TEST_DIR CONV_TEST_DIR   (from cutile_python_bench_on_device.sh's work
    folder: WORK/orig/test, WORK/conv/test; SWEEP="fft" there)

Prints one line per (dtype, BS, warps, stages, use_tma): µs and the L2 relative error against torch.fft, or the
error; then the spill step's decisions. BS (rows per program) is the bench's 2 unless said: other values show
what the caller's tile costs, not options the launcher could take.
"""

import math
import sys

import torch

from script_util import graph_us, launch_options, load_file as load, print_spill_decisions, time_or_say_why  # noqa: E501


def twiddles(rows, cols, factor):
    """bench_fft.py's twiddles(): exp(-2 pi i I J / factor) as (rows, cols, 2) real pairs."""
    i, j = torch.meshgrid(torch.arange(rows, device="cuda"), torch.arange(cols, device="cuda"), indexing="ij")
    return torch.view_as_real(torch.exp(-2 * math.pi * 1j * (i * j) / factor))


def main(orig_dir, conv_dir):
    ct_mod = load(f"{orig_dir}/kernels/fft.py", "cutile_fft")
    tr_mod = load(f"{conv_dir}/kernels/fft.py", "converted_fft")
    import cuda.tile as ct

    batch, (F0, F1, F2), D = 16 * 1024, (16, 16, 16), 64
    N = F0 * F1 * F2
    for cdt, rdt, tol in ((torch.complex32, torch.float16, 1e-2), (torch.complex64, torch.float32, 1e-5)):
        x = torch.rand((batch, N), dtype=cdt, device="cuda")
        w = [twiddles(F0, F0, F0), twiddles(F1, F1, F1), twiddles(F2, F2, F2),
             twiddles(F0, F1 * F2, N), twiddles(F1, F2, F1 * F2)]
        W0, W1, W2, T0, T1 = (t.to(rdt).contiguous() for t in w)
        ref = torch.fft.fft(x.to(torch.complex64), axis=-1)
        x_ri = torch.view_as_real(x)
        name = str(cdt).replace("torch.", "")

        def args(y_ri, bs):
            return (x_ri.view(batch, N * 2 // D, D), y_ri.view(batch, N * 2 // D, D), W0.view(F0, F0, 2),
                    W1.view(F1, F1, 2), W2.view(F2, F2, 2), T0.view(F0, F1 * F2, 2), T1.view(F1, F2, 2),
                    N, F0, F1, F2, bs, D)

        def error(y_ri):
            y = torch.view_as_complex(y_ri).to(torch.complex64)
            return ((y - ref).norm() / ref.norm()).item()

        y_ri = torch.zeros_like(x_ri)
        f = lambda: ct.launch(torch.cuda.current_stream(), (batch // 2, 1, 1), ct_mod.fft_kernel, args(y_ri, 2))
        f()
        print(f"{name} cuTile BS=2: {graph_us(f):.1f} us, error {error(y_ri):.1e}", flush=True)
        combos = [(2, None, None, "tuned")] + [(2, wp, None, False) for wp in (2, 4, 8, 16)]
        combos += [(2, 4, 1, False), (2, 8, 1, False), (2, 4, None, True), (2, 8, None, True)]
        combos += [(1, None, None, "tuned"), (4, None, None, "tuned"), (4, 8, None, False)]
        for bs, warps, stages, tma in combos:
            y_ri = torch.zeros_like(x_ri)
            f = lambda: tr_mod.launch_fft_kernel((batch // bs, 1, 1), *args(y_ri, bs), use_tma=tma,
                                                 **launch_options(warps, stages))

            def check():
                err = error(y_ri)
                return f", error {err:.1e}" + ("" if err < tol else f" ABOVE {tol:g}")

            time_or_say_why(f"{name} converted BS={bs} warps={warps} stages={stages} tma={tma}", f, check)
    print_spill_decisions(tr_mod)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
