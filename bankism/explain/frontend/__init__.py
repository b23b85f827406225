"""The CUDA front end of `bankism explain`: preprocessing, tree-sitter parsing, declarations and the
host-side launch.
"""
