"""The programs the Makefile drives, run from the repository root as
``python3 -m tools.NAME`` (each has --help); tools.common holds what they share.
"""
