// Components of one float4 element read on several lines: nvcc 13.0 (-O3 -arch=sm_90 -lineinfo) loads the
// vector once, at the first line. SASS: body: line 13 `LDS.128 R8, [R2+UR4+-0x40]` and the unrolled
// loop's other LDS.128, all on line 13, no load on lines 14 and 15 (x, y, z: the whole float4); pair:
// line 27 `LDS.64 R8, [R8+UR4]` (x, y).
__global__ void body(const float4 *pos, float *out)
{
    __shared__ float4 sp[256];
    float4 p = pos[blockIdx.x * 256 + threadIdx.x];
    float ax = 0, ay = 0, az = 0;
    sp[threadIdx.x] = p;
    __syncthreads();
    for (int j = 0; j < 256; j++) {
        float dx = sp[j].x - p.x;                                         // 13
        float dy = sp[j].y - p.y;
        float dz = sp[j].z - p.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + 1e-9f);
        ax += dx * inv; ay += dy * inv; az += dz * inv;
    }
    out[threadIdx.x] = ax + ay + az;
}

__global__ void pair(float *out)
{
    __shared__ float4 sp[256];
    sp[threadIdx.x] = make_float4(threadIdx.x, 1, 2, 3);
    __syncthreads();
    float a = sp[(threadIdx.x * 2) % 256].x;                              // 27
    float b = sp[(threadIdx.x * 2) % 256].y;
    out[threadIdx.x] = a + b;
}

void run(const float4 *p, float *o) { body<<<4, 256>>>(p, o); pair<<<1, 256>>>(o); }
