"""The SIMT machine of `bankism explain`: one thread block run statement by statement, values, memory
and recording of shared accesses.
"""
