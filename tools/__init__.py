"""The programs the Makefile drives, run from the repository root as
``python3 -m tools.NAME`` (each has --help). tools.paths holds every path and the
upstream pin, tools.common what they share (ToolError, say, run, venvs); the Makefile
calls the tools, and a tool reaches another by calling its functions.
"""
