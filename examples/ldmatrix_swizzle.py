"""A 64x64 half tile (128-byte rows) filled by 16-byte cp.async stores and read by ldmatrix.x4,
without and with CuTe's 128-byte XOR swizzle Swizzle<3,3,3>."""

from bankism.review import Access, SharedArray, Swizzle, advise, check

for swizzle in (None, Swizzle(3, 3, 3)):
    # --- layout ---
    tile = SharedArray("half", (64, 64), swizzle=swizzle, name="tile")
    fill = Access(tile, lambda t, i: (t.linear // 8 + 16 * i, t.linear % 8 * 8), op="store", vector=8)
    frag = Access(tile, lambda t, kk: (t.warp * 16 + t.lane % 16, kk * 16 + t.lane // 16 * 8),
                  op="ldmatrix", matrices=4)  # each warp: a 16x16 A fragment per k-step
    loops = {"i": range(4), "kk": range(4)}
    report = check([fill, frag], block=128, loops=loops)
    # --- end of layout ---
    print(f"=== {tile}\n{report}\n")

plain = SharedArray("half", (64, 64), name="tile")
fixes = advise(plain, [fill.on(plain), frag.on(plain)], block=128, loops=loops)
print("fixes for the unswizzled tile, cheapest first:")
for fix in fixes:
    print(f"- {fix}")
