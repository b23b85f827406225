"""Shared-memory tree reduction of 256 floats (Harris' reduce2 vs reduce3): interleaved addressing
with a strided index, then sequential addressing."""

from bankism.review import Access, SharedArray, check

# --- layout ---
sdata = SharedArray("float", (256,), name="sdata")
interleaved = {"s": [1, 2, 4, 8, 16, 32, 64, 128]}  # i = 2*s*tid; if (i < 256) sdata[i] += sdata[i + s]
active = lambda t, s: 2 * s * t.x < 256  # noqa: E731
strided = [Access(sdata, lambda t, s: 2 * s * t.x, mask=active),
           Access(sdata, lambda t, s: 2 * s * t.x + s, mask=active),
           Access(sdata, lambda t, s: 2 * s * t.x, op="store", mask=active)]
sequential = {"s": [128, 64, 32, 16, 8, 4, 2, 1]}  # if (tid < s) sdata[tid] += sdata[tid + s]
halves = [Access(sdata, lambda t, s: t.x, mask=lambda t, s: t.x < s),
          Access(sdata, lambda t, s: t.x + s, mask=lambda t, s: t.x < s),
          Access(sdata, lambda t, s: t.x, op="store", mask=lambda t, s: t.x < s)]
# --- end of layout ---

print(f"=== interleaved addressing (reduce2)\n{check(strided, block=256, loops=interleaved)}\n")
print(f"=== sequential addressing (reduce3)\n{check(halves, block=256, loops=sequential)}")
