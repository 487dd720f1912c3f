"""Why cuTile's own fmha benchmark is slower converted at decode shapes (one query row, 1024 keys): the converted
fmha_kernel of cutile-python's test/kernels/attention.py timed under forced launch options and tile sizes, next
to cuTile's kernel, in one process, on the bench's inputs (CUDA-graph replays, as bench_attention.py times).

    python3 cutile_python_fmha_decode.py ORIG_TEST_DIR CONV_TEST_DIR   (from cutile_python_bench_on_device.sh's
    work folder: WORK/orig/test, WORK/conv/test)

Prints one line per (shape, TILE_M, TILE_N, warps, stages, use_tma): µs, or the error; then the spill step's
decisions (words spilled per thread through pointers at 4 and 8 warps, with descriptors at 4). cuTile's line uses the
bench's B200 config (tile_m 64, tile_n 256, occupancy 4), as the bench does on an H200.
"""

import math
import sys

import torch

from script_util import graph_us, launch_options, load_file as load, print_spill_decisions, time_or_say_why  # noqa: E501


def main(orig_dir, conv_dir):
    ct_mod = load(f"{orig_dir}/kernels/attention.py", "cutile_attention")
    tr_mod = load(f"{conv_dir}/kernels/attention.py", "converted_attention")
    import cuda.tile as ct

    for b, qh, kh in ((1, 32, 32), (8, 32, 8)):
        d, k_len = 128, 1024
        q = torch.randn(b, qh, 1, d, dtype=torch.float16, device="cuda")
        k = torch.randn(b, kh, k_len, d, dtype=torch.float16, device="cuda")
        v = torch.randn_like(k)
        ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=qh != kh)
        scale, pos, group = 1 / math.sqrt(d), k_len - 1, qh // kh
        shape = f"b={b} qh={qh} kh={kh}"

        def cutile(tm=64, tn=256, occ=4):
            o = torch.empty_like(q)
            kern = ct_mod.fmha_kernel.replace_hints(occupancy=occ)
            f = lambda: ct.launch(torch.cuda.current_stream(), (1, b * qh, 1), kern,
                                  (q, k, v, o, scale, pos, d, qh, tm, tn, group, False, k_len % tn == 0))
            f()
            torch.testing.assert_close(o, ref, atol=1e-2, rtol=5e-2)
            return graph_us(f)

        print(f"{shape} cuTile tile_m=64 tile_n=256 occupancy=4: {cutile():.1f} us", flush=True)
        # The bench's tiles as the launcher chooses (use_tma="tuned": the spill step's descriptors or warps),
        # through pointers at the step's warps and at a forced 4, with descriptors at 1 and 2 stages; other tiles.
        combos = [(64, 256, None, None, "tuned"), (64, 256, None, None, False), (64, 256, 4, None, False),
                  (64, 256, None, 1, True), (64, 256, None, 2, True)]
        combos += [(64, 128, None, None, "tuned"), (16, 256, None, None, "tuned")]
        for tm, tn, warps, stages, tma in combos:
            o = torch.empty_like(q)
            f = lambda: tr_mod.launch_fmha_kernel((1, b * qh, 1), q, k, v, o, scale, pos, d, qh, tm, tn, group,
                                                  False, k_len % tn == 0, use_tma=tma, **launch_options(warps, stages))
            time_or_say_why(f"{shape} converted tile_m={tm} tile_n={tn} warps={warps} stages={stages} tma={tma}", f,
                            lambda: torch.testing.assert_close(o, ref, atol=1e-2, rtol=5e-2) or "")
    print_spill_decisions(tr_mod)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
