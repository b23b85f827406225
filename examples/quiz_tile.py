"""The double-precision tile quiz (shared/quiz/dgemm_tile_quiz.cu): two 16x16 double tiles, 16x16 threads."""

from bankism.review import Access, SharedArray, advise, check

# --- layout ---
A = SharedArray("double", (16, 16), name="A_shared")
B = SharedArray("double", (16, 16), base=A.nbytes, name="B_shared")
accesses = [
    Access(A, lambda t: (t.y, t.x), op="store"),  # A_shared[threadIdx.y][threadIdx.x] = A_mat[...]
    Access(B, lambda t: (t.y, t.x), op="store"),  # B_shared[threadIdx.y][threadIdx.x] = B_mat[...]
    Access(A, lambda t, k: (t.y, k)),  # temp += A_shared[threadIdx.y][k] * ...
    Access(B, lambda t, k: (k, t.x)),  # ... * B_shared[k][threadIdx.x]
]
report = check(accesses, block=(16, 16), loops={"k": range(16)})
# --- end of layout ---

print(report)
for array in (A, B):
    if any(site.conflicts for site in report.sites if site.access.array == array):
        fixes = advise(array, accesses, block=(16, 16), loops={"k": range(16)})
        print(f"\n{array.name}: " + (str(fixes[0]) if fixes else "no padding or swizzle does better"))
