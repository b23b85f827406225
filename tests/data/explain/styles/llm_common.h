// A training-repository style common header: a 128-bit packed vector type with an explicit
// constructor and static_asserts, load/store helpers, and code the kernels never touch.
#pragma once
#include <cuda_runtime.h>
#include <assert.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))
#define WARP_SIZE 32U

static_assert(sizeof(float) == 4, "float must be 4 bytes");

template <class ElementType>
struct alignas(16) Packed128 {
    Packed128() = default;
    __device__ explicit Packed128(int4 bits) {
        static_assert(sizeof(bits) == sizeof(payload), "Size mismatch.");
        memcpy(&payload, &bits, sizeof(bits));
    }
    __device__ static Packed128 constant(ElementType value) {
        Packed128 result;
        for (int k = 0; k < size; ++k) {
            result.payload[k] = value;
        }
        return result;
    }
    __device__ ElementType& operator[](int index) { return payload[index]; }
    __device__ const ElementType& operator[](int index) const { return payload[index]; }
    static constexpr const size_t size = sizeof(int4) / sizeof(ElementType);
    ElementType payload[size];
};

typedef Packed128<float> f128;

// Never used by the kernels below: must not stop them.
struct Unused {
    decltype(sizeof(int)) bytes;
    __device__ Unused() : bytes(sizeof(*this)) { asm volatile("membar.gl;"); }
};

__device__ inline float warpReduceSum(float val) {
    for (int offset = 16; offset > 0; offset /= 2) {
        val += __shfl_xor_sync(0xFFFFFFFF, val, offset);
    }
    return val;
}
