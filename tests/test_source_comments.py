"""The author's comments kept in converted kernels (cpp/lower/source_comments.h): where they land, and that the
commented kernel runs the same (interpreter, ragged sizes, against torch). The placement rules themselves are
tested in cpp/tests/driver/test_source_comments.cpp."""

from __future__ import annotations

from c2t_interp import assert_close, convert, dev, fresh_seed, load

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)

ROWSUM = '''
import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def rowsum(X, Out, n: int, T: ConstInt):
    # one row per block, walked in tiles of T
    acc = ct.zeros((1,), dtype=ct.float32)
    for j in range(ct.cdiv(n, T)):  # the tail tile is padded with zeros
        x = ct.load(X, index=(ct.bid(0), j), shape=(1, T), padding_mode=ct.PaddingMode.ZERO)
        if T > 4096:
            # wide tiles: nothing else to do
            pass
        acc = acc + ct.sum(x.astype(ct.float32), axis=1)  # widen before summing
    ct.store(Out, index=(ct.bid(0),), tile=acc)
'''


def test_comments_land_before_their_statements_and_the_kernel_runs(tmp_path):
    code = convert(ROWSUM, "rowsum.py")
    body = code[code.index("def rowsum("):code.index("def launch_rowsum")]
    lines = [line.strip() for line in body.splitlines()]
    for comment, statement in (("# one row per block, walked in tiles of T", "acc = tl.zeros("),
                               ("# the tail tile is padded with zeros", "for j in range("),
                               ("# widen before summing", "acc = acc + ")):
        i = lines.index(comment)
        assert lines[i + 1].startswith(statement), (comment, lines[i + 1])
    mod = load(code, tmp_path, "rowsum")
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    for rows, n in ((3, 1), (5, 37), (2, 130)):  # n not a multiple of the tile
        x = dev(torch.randn(rows, n, generator=g))
        out = dev(torch.full((rows,), float("nan")))
        mod.launch_rowsum((rows,), x, out, n, 32)
        assert_close(out, x.sum(dim=1), msg=f"rows={rows} n={n} seed={seed}")
