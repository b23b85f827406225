"""What `bankism explain` prints: the report built from an analysis, its text rendering, and the
comparison against a trace.
"""
