"""Stand-ins for CUDA's device library in `bankism explain`: built-ins and atomics, cooperative groups,
WMMA, inline PTX, half types.
"""
