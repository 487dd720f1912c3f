@a.b(c)
@(lambda f: f)
class K(B, metaclass=M):
    @property
    def p(self, /, q, *, r): return q
