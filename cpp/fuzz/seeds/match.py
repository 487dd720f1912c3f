match p:
    case {'x': [1, *rest], **kw} if rest: pass
    case Point(x=0) | None as q: pass
    case _: pass
