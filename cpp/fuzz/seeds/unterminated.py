s = '''abc

def f(:
