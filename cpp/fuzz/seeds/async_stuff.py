async def f():
    async with a as b, c: await d
    async for x in y: yield x
    [z async for z in w]
