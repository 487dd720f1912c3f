f'{a!r:>{w}.{p}} {{x}} {b=}'
f"{f'{x}'}"
f'{"".join(y)}'
rf'\{x}'
