"""The 32x32 tiled transpose (block 32x8, each thread moves 4 elements), without and with padding."""

from bankism.review import Access, SharedArray, advise, check

for pad in (0, 1):
    # --- layout ---
    tile = SharedArray("float", (32, 32), pad=pad, name="tile")
    store = Access(tile, lambda t, j: (t.y + j, t.x), op="store")  # tile[threadIdx.y+j][threadIdx.x] = in[..]
    load = Access(tile, lambda t, j: (t.x, t.y + j))  # out[...] = tile[threadIdx.x][threadIdx.y+j]
    report = check([store, load], block=(32, 8), loops={"j": range(0, 32, 8)})
    # --- end of layout ---
    print(f"=== {tile.declaration}\n{report}\n")

naive = SharedArray("float", (32, 32), name="tile")
fixes = advise(naive, [store.on(naive), load.on(naive)], block=(32, 8), loops={"j": range(0, 32, 8)})
print("fixes for the unpadded tile, cheapest first:")
for fix in fixes:
    print(f"- {fix}")
