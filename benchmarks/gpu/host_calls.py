"""Host µs per call of the torch.cuda queries TileGym's host code makes on every op call, next to
the cheaper spellings a converted module could use (BENCHMARKS.md, "Host time per call"): TileGym's
bmm asks torch.cuda.current_stream() and get_device_properties("cuda") on every call, its persistent
layernorm get_device_properties(x.device) and current_stream(). Each row: best of 5 rounds of 20,000
calls, and whether the cheaper spelling returned the same value. The cheaper spellings here are the
measured prototypes of the runtime's _c2t_current_stream / _c2t_device_properties (cpp/host/runtime_host_apis.cpp),
which add only the checks for a replaced torch function.

  python3 host_calls.py [TILEGYM CONVERTED]   (the arguments are ignored: scripts_on_device.sh passes them)"""
import timeit

import torch


def best_us(fn, calls=20000, rounds=5):
    """Host µs per fn() call: the best of `rounds` timings of `calls` calls (timeit)."""
    return min(timeit.repeat(fn, number=calls, repeat=rounds)) / calls * 1e6


def fast_current_stream():
    torch.cuda._lazy_init()
    s = torch._C._cuda_getCurrentStream(torch._C._cuda_getDevice())
    return torch.cuda.Stream(stream_id=s[0], device_index=s[1], device_type=s[2])


_props = {}


def fast_props(device=None):
    torch.cuda._lazy_init()
    key = (device, torch._C._cuda_getDevice())
    p = _props.get(key)
    if p is None:
        p = _props[key] = torch.cuda.get_device_properties(device)
    return p


x = torch.empty(16, device="cuda")
rows = [
    ("torch.cuda.current_stream()", torch.cuda.current_stream, fast_current_stream),
    ('get_device_properties("cuda")', lambda: torch.cuda.get_device_properties("cuda"), lambda: fast_props("cuda")),
    ("get_device_properties(x.device)", lambda: torch.cuda.get_device_properties(x.device),
     lambda: fast_props(x.device)),
    ("get_device_capability()", torch.cuda.get_device_capability,
     lambda: (fast_props(None).major, fast_props(None).minor)),
    ("torch.cuda.current_device()", torch.cuda.current_device, lambda: torch._C._cuda_getDevice()),
    ("torch.empty((4096,), cuda)", lambda: torch.empty((4096,), device=x.device), None),
    ("raw current stream (Triton's query)", lambda: torch._C._cuda_getCurrentRawStream(0), None),
]
for name, slow, fast in rows:
    line = f"{name:38s} {best_us(slow):6.2f} us"
    if fast is not None:
        same = slow() == fast()
        line += f" | cheaper {best_us(fast):6.2f} us, same value: {same}"
    print(line, flush=True)
