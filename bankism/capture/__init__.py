"""Capture of real CUDA programs on a GPU machine: the Sanitizer-API tracer and Nsight Compute.

``toolkit`` finds nvcc and the Sanitizer API, ``build`` builds the tracer in ``native/``, ``run`` runs a
program under it, ``raw`` reads what it wrote, ``disasm`` maps program counters to SASS and source lines,
``convert`` writes the trace, ``ncu`` profiles and imports Nsight Compute counters.
"""
