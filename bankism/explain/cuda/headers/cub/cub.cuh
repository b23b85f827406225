// bankism's stand-in for CUB (<cub/cub.cuh>): what explain interprets of it, not NVIDIA's code.
// The block- and warp-wide reductions' shared-memory accesses as CUB 3.0 (CUDA 13.0) compiles them
// for sm_90: see block/block_reduce.cuh. Any other CUB name is unknown to explain.
#pragma once
#include <cub/warp/warp_reduce.cuh>
#include <cub/block/block_reduce.cuh>
