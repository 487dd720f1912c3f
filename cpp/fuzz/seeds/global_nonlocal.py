def f():
    global g
    x = 1
    def h():
        nonlocal x
        x += 1
