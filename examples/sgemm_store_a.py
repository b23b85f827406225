"""Register-tiled SGEMM (BM=BN=128, BK=8, TM=TN=8, 256 threads): A arrives as float4 and is stored
transposed into As[BK][BM] one float at a time; the inner loop reads As back as float4."""

from bankism.review import Access, SharedArray, advise, check

# --- layout ---
As = SharedArray("float", (8, 128), name="As")  # As[BK][BM]
# As[innerColA * 4 + c][innerRowA] = tmp.x/y/z/w, with innerRowA = tid / 2, innerColA = tid % 2
store = Access(As, lambda t, c: ((t.x % 2) * 4 + c, t.x // 2), op="store")
# regM[4h .. 4h+3] = As[dotIdx][threadRow * TM + 4h] (LDS.128), with threadRow = tid / 16
load = Access(As, lambda t, k, h: (k, t.x // 16 * 8 + 4 * h), vector=4)
loops = {"c": range(4), "k": range(8), "h": range(2)}
report = check([store, load], block=256, loops=loops)
# --- end of layout ---

print(report)
fixes = advise(As, [store, load], block=256, loops=loops)
print("\nfixes, cheapest first:")
for fix in fixes:
    print(f"- {fix}")
padding = next((f for f in fixes if f.kind == "pad"), None)
print(f"\ncheapest padding: {padding.code if padding else 'none'}")
