if (n := len(a)) > 10: f = lambda *a, k=1, **kw: (a, k)
y = [x for x in range(3) if x for z in y]
