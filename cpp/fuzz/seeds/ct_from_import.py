from cuda.tile import kernel, load, store, bid
import cuda.tile as ct

@kernel
def k(a):
    store(a, index=(bid(0), 0), tile=load(a, index=(bid(0), 0), shape=(4, 8)) + 1)
